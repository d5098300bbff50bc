import { completedJobWithTimingsExample } from '@agent-tts/contract/examples.js';
import { CAPTIONS_PATH_PREFIX } from '@agent-tts/contract/limits.js';
import { CaptionPathParams } from '@agent-tts/contract/parameter-schemas.js';
import { CAPTION_MEDIA_TYPES } from '@agent-tts/contract/timing-schemas.js';
import { prefersError, wellFormedQuery } from './signed-urls.js';

/**
 * How the mock's front hands a download of a job's timings or captions to Prism, so that it answers as
 * the server does: the file name chooses the format, a malformed URL is the 404 of the document.
 *
 * Prism 5.14.2 chooses among a response's media types by the `Accept` header only: without one, a
 * `.vtt` or `.srt` URL would be answered with the JSON example, and with `Accept: text/vtt` alone an
 * error chosen with `Prefer` (JSON) finds no example and becomes a 500 of Prism's. So the front sends
 * the format's media type first and JSON after it, whatever the client asked for (the server sends the
 * format the URL names). A query that is malformed or cut short would be Prism's own 422; the server
 * answers it 404 NOT_FOUND, so the front asks Prism for the document's `malformed_caption_url` example,
 * with a query of the issued form. A HEAD is asked of Prism as a GET (the document declares GET only;
 * the server answers both), and Node sends the answer's headers without its body.
 */
export function captionRequest(
  method: string | undefined,
  url: URL,
  prefer: string | undefined,
): { path: string; headers: Record<string, string> } | undefined {
  if ((method !== 'GET' && method !== 'HEAD') || !url.pathname.startsWith(CAPTIONS_PATH_PREFIX)) return undefined;
  const file = /^(.+)\.([a-z]+)$/.exec(url.pathname.slice(CAPTIONS_PATH_PREFIX.length));
  const params = CaptionPathParams.safeParse({ job_id: file?.[1], format: file?.[2] });
  if (!params.success) return undefined;
  const { format } = params.data;
  const accept = format === 'json' ? 'application/json' : `${CAPTION_MEDIA_TYPES[format]}, application/json;q=0.1`;
  if (wellFormedQuery(url)) return { path: url.pathname + url.search, headers: { accept } };
  // A Prefer that names an error keeps it; one that asks for the file cannot have it.
  const example = new URL(completedJobWithTimingsExample.timings!.vtt_url);
  return { path: `${url.pathname}${example.search}`, headers: { accept, prefer: prefersError(prefer) ? prefer : 'code=404, example=malformed_caption_url' } };
}
