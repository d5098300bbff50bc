import type { IncomingMessage } from 'node:http';
import { EXAMPLE_ORIGIN } from '@agent-tts/contract/examples.js';
import { AUDIO_PATH_PREFIX, CAPTIONS_PATH_PREFIX, STREAM_PATH_PREFIX } from '@agent-tts/contract/limits.js';

/**
 * The document's examples point their files (`audio_url`, `timings.*_url`, `stream_url`) at `https://tts.example.com`,
 * a host that does not exist: a client following them from the mock failed with ENOTFOUND, or sent its
 * request off the machine. The mock's front serves those paths itself (audio-front.ts, caption-front.ts),
 * so it rewrites their origin, in the JSON answers it hands back from Prism, to the origin the client
 * reached the mock at. Other example URLs (the billing page of USAGE_LIMIT_EXCEEDED) are left as they
 * are: the mock serves no such page.
 */

const escaped = EXAMPLE_ORIGIN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const FILE_URL = new RegExp(`${escaped}(?=${AUDIO_PATH_PREFIX}|${CAPTIONS_PATH_PREFIX}|${STREAM_PATH_PREFIX})`, 'g');

/** A Host header the mock can put in a URL: a name or an IPv4 address, or an IPv6 one in brackets, with an optional port. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.%]+\])(?::\d{1,5})?$/;

/**
 * The origin a client reached the mock at: `http://` and the request's Host header (so a client that
 * used `localhost:4010` gets `localhost:4010` back), or `fallback` (the listener's address) when the
 * request has no usable Host.
 */
export function ownOrigin(req: IncomingMessage, fallback: string): string {
  const host = req.headers.host;
  return host !== undefined && HOST.test(host) ? `http://${host}` : fallback;
}

/** Whether an answer's body is JSON, whose file URLs are rewritten. */
export const isJson = (contentType: string | string[] | undefined): boolean =>
  typeof contentType === 'string' && /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType);

/** `text` with the examples' file URLs moved to `origin`. */
export const onOwnOrigin = (text: string, origin: string): string => text.replace(FILE_URL, origin);
