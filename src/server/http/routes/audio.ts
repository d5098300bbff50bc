import type { OpenAPIHono } from '@hono/zod-openapi';
import { AUDIO_URL_INVALID_MESSAGE } from '@agent-tts/contract/errors.js';
import { AUDIO_PATH_PREFIX } from '@agent-tts/contract/limits.js';
import { getAudioRoute } from '@agent-tts/contract/routes.js';
import { ApiError } from '../api-error.js';
import type { AppEnv } from '../context.js';
import { answerOtherMethods } from '../create-app.js';
import { guardedStream } from '../streamed-body.js';
import { fromStore, mp3JobId, type SignedFileRouteDeps, signedQueryHook } from './signed-files.js';

/**
 * GET /v1/audio/{job_id}.mp3: the signed URL is the capability (no Authorization header). Every refusal
 * of a URL is 404 NOT_FOUND, the status the error table gives that code, with one remedy: GET the job
 * for a fresh audio_url (docs/api-rules.md#audio-urls). A tampered or expired signature, an unknown
 * job and audio that no longer exists answer alike; a malformed or cut-short query names its fault. The file streams from the audio storage,
 * one byte range at most.
 */
export function registerAudioRoutes(app: OpenAPIHono<AppEnv>, deps: SignedFileRouteDeps): void {
  const { files, log } = deps;
  // Hono matches whole path segments, so `{job_id}.mp3` is routed as one parameter and split here;
  // the document keeps the contract's route (registered as it is), the handler its response types.
  app.openAPIRegistry.registerPath(getAudioRoute);
  const routed = { ...getAudioRoute, path: `${AUDIO_PATH_PREFIX}{file}`, hide: true, request: { query: getAudioRoute.request.query } };
  app.openapi(
    routed,
    async (c) => {
      const jobId = mp3JobId(c.req.param('file'));
      const { expires, sig } = c.req.valid('query');
      const stat = await fromStore(() => files.audio(jobId, expires, sig));
      if (!stat) throw new ApiError('NOT_FOUND', AUDIO_URL_INVALID_MESSAGE);

      c.header('Content-Type', 'audio/mpeg');
      c.header('Accept-Ranges', 'bytes');
      c.header('Cache-Control', `private, max-age=${stat.secondsLeft}`);
      const range = parseRange(c.req.header('range'), stat.size);
      if (range === 'unsatisfiable') {
        // HTTP's range protocol fixes 416 here; the body is INVALID_REQUEST's (a documented exception).
        throw new ApiError(
          'INVALID_REQUEST',
          `The requested range is not within the file of ${stat.size} bytes.`,
          undefined,
          { 'Content-Range': `bytes */${stat.size}` },
          416,
        );
      }
      const { start, end } = range ?? { start: 0, end: stat.size - 1 };
      c.header('Content-Length', String(end - start + 1));
      if (range) c.header('Content-Range', `bytes ${start}-${end}/${stat.size}`);
      const status = range ? 206 : 200;
      if (c.req.method === 'HEAD' || stat.size === 0) return c.body(null, status);
      const stream = await fromStore(() => stat.open({ start, end }));
      if (!stream) throw new ApiError('NOT_FOUND', AUDIO_URL_INVALID_MESSAGE);
      const failed = 'audio store failed during a download; the connection was closed short of Content-Length';
      return c.body(guardedStream(c, stream, log, failed, { job_id: jobId }), status);
    },
    signedQueryHook,
  );
  answerOtherMethods(app, `${AUDIO_PATH_PREFIX}:file`, ['GET', 'HEAD']);
}

/**
 * Parses a single `bytes=` range (RFC 9110 §14.1.2). Undefined when absent, or when not a single valid
 * byte range: a multi-range, another unit, or a syntax error, which includes a last-pos below the
 * first-pos (`bytes=100-50`); RFC 9110 §14.2 has a server ignore such a Range and send the whole file.
 * A valid range that selects nothing of the file (starting at or past its end, or a zero-length suffix)
 * is 'unsatisfiable': 416.
 */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  // A last-pos below the first-pos is a syntax error: the header is ignored, not answered 416.
  if (m[1] !== '' && m[2] !== '' && Number(m[2]) < Number(m[1])) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
