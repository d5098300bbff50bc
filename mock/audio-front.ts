import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import { completedJobExample } from '@agent-tts/contract/examples.js';
import { API_PATH, AUDIO_PATH_PREFIX, STREAM_PATH_PREFIX } from '@agent-tts/contract/limits.js';
import { AudioPathParams } from '@agent-tts/contract/parameter-schemas.js';
import { encodeChunk } from '../src/server/synth/mp3-encode.js';
import { captionRequest } from './caption-front.js';
import { isJson, onOwnOrigin, ownOrigin } from './own-origin.js';
import { preferredCode, prefersError, wellFormedQuery } from './signed-urls.js';

/**
 * The mock's listener, in front of Prism: it answers an audio download and the stream of a job's audio
 * itself, with a real MP3, asks
 * Prism for a caption file in the format its URL names (caption-front.ts), and hands every other
 * request to Prism unchanged.
 *
 * Why not Prism: Prism 5.14.2 sends a response example as text. Its serializer passes a string body of
 * a type it has no serializer for (audio/mpeg) through as a string, which goes out UTF-8 encoded, so
 * bytes 0x80–0xFF (an MP3 frame starts with 0xFF) cannot be written; `externalValue` is read from the
 * document but never served (the mocker answers an example's `value` only); without an example it
 * generates the schema's placeholder, the six bytes `string`. So no example in the document can make
 * Prism send MP3 bytes, and a download from the plain Prism mock was `string` labelled audio/mpeg.
 */

/** Half a second of silence, encoded as the reference encodes speech (MPEG-2 layer III, 24 kHz, mono, 32 kbit/s). */
export async function silenceMp3(): Promise<Uint8Array> {
  const { mp3 } = await encodeChunk({ samples: new Float32Array(0), sampleRate: 24_000, outputRate: 24_000, pauseSamples: 12_000, bitrateKbps: 32 });
  return mp3;
}

/**
 * Whether the front answers this request itself: a GET or HEAD of a well-formed audio URL that asks
 * for no error with `Prefer` (no Prefer, or `code=200` or `206`). Errors chosen with Prefer, and
 * malformed URLs, get Prism's examples: 404, 416, 500, 503.
 */
function servesAudio(method: string | undefined, url: URL, prefer: string | undefined, prefix = AUDIO_PATH_PREFIX): boolean {
  const code = preferredCode(prefer);
  if (prefer !== undefined && code !== '200' && code !== '206') return false;
  if ((method !== 'GET' && method !== 'HEAD') || !url.pathname.startsWith(prefix)) return false;
  const file = /^(.+)\.mp3$/.exec(url.pathname.slice(prefix.length));
  if (!file || !AudioPathParams.safeParse({ job_id: file[1] }).success) return false;
  return wellFormedQuery(url);
}

/**
 * Whether the front answers this request with the stream of a job's audio (the streaming extension,
 * docs/api-rules.md#streaming-audio): a GET or HEAD of a well-formed stream URL that asks for no
 * error with `Prefer` (no Prefer, or `code=200`).
 */
const servesStream = (method: string | undefined, url: URL, prefer: string | undefined): boolean =>
  preferredCode(prefer) !== '206' && servesAudio(method, url, prefer, STREAM_PATH_PREFIX);

/**
 * A GET or HEAD of an audio URL whose query is malformed or cut short: the server answers it 404
 * NOT_FOUND, like every refusal of an audio URL. Prism would refuse the query itself (a 422 of its
 * own, the document having no 400 there), so the front asks it for the document's 404 example of a
 * malformed URL with a query of the issued form: the path with the example's query, and `Prefer`.
 */
function malformedAudioRequest(method: string | undefined, url: URL, prefer: string | undefined): { path: string; prefer: string } | undefined {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const example = url.pathname.startsWith(AUDIO_PATH_PREFIX)
    ? 'malformed_audio_url'
    : url.pathname.startsWith(STREAM_PATH_PREFIX)
      ? 'malformed_stream_url'
      : undefined;
  if (example === undefined || wellFormedQuery(url)) return undefined;
  const issued = new URL(completedJobExample.audio_url);
  // A Prefer that names an error keeps it; one that asks for the audio cannot have it.
  return { path: `${url.pathname}${issued.search}`, prefer: prefersError(prefer) ? prefer : `code=404, example=${example}` };
}

/** A single `bytes=` range of a file of `size` bytes: the range, 'unsatisfiable', or undefined (serve it whole). */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    return suffix === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return undefined;
  return start >= size ? 'unsatisfiable' : { start, end };
}

/** How the front hands a request to Prism: other headers, another path or method, a request body read already. */
interface ForwardOptions {
  headers?: Record<string, string>;
  path?: string;
  method?: string;
  body?: Buffer;
}

/** Caption formats whose media type the document gives without the charset the server sends (`; charset=utf-8`). */
const TEXT_TYPES_WITHOUT_CHARSET = new Set(['text/vtt', 'application/x-subrip']);

/**
 * Hands a request to Prism and its answer back, as the server would send it: the examples' file URLs
 * on the mock's own origin (own-origin.ts), and the caption formats' text with their charset.
 */
function forward(req: IncomingMessage, res: ServerResponse, prism: { host: string; port: number }, options: ForwardOptions = {}): void {
  const method = options.method ?? req.method;
  const headers = { ...req.headers, ...options.headers };
  if (options.body) {
    delete headers['transfer-encoding'];
    headers['content-length'] = String(options.body.length);
  }
  const upstream = request({ host: prism.host, port: prism.port, method, path: options.path ?? req.url, headers }, (answer) => {
    const answerHeaders = { ...answer.headers };
    const type = answerHeaders['content-type'];
    if (type !== undefined && TEXT_TYPES_WITHOUT_CHARSET.has(type)) answerHeaders['content-type'] = `${type}; charset=utf-8`;
    if (!isJson(type) || method === 'HEAD') {
      res.writeHead(answer.statusCode ?? 502, answerHeaders);
      answer.pipe(res);
      return;
    }
    const chunks: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.on('end', () => {
      const body = Buffer.from(onOwnOrigin(Buffer.concat(chunks).toString('utf8'), ownOrigin(req, listenerOrigin(req))));
      delete answerHeaders['transfer-encoding'];
      answerHeaders['content-length'] = String(body.length);
      res.writeHead(answer.statusCode ?? 502, answerHeaders);
      res.end(body);
    });
  });
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' });
    res.end('agent-tts-mock: Prism is not answering yet; retry in a moment.\n');
  });
  if (options.body) upstream.end(options.body);
  else req.pipe(upstream);
}

/** The address the request came in on, for a request without a usable Host header. */
function listenerOrigin(req: IncomingMessage): string {
  const { localAddress = '127.0.0.1', localPort } = req.socket;
  const host = localAddress.startsWith('::ffff:') ? localAddress.slice(7) : localAddress;
  return `http://${host.includes(':') ? `[${host}]` : host}:${localPort}`;
}

/**
 * A submission that asks for word timings (`timestamps: "word"`) without a `Prefer` of its own is
 * answered with the completed job that has them (`completed_with_timings`), as the server would answer
 * it, so that a client that asks for captions (`agent-tts speak --captions`) gets caption URLs without
 * knowing the mock's headers. The body is read here and sent on to Prism as it came.
 */
function submitWithTimings(req: IncomingMessage, res: ServerResponse, prism: { host: string; port: number }): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    let timestamps: unknown;
    try {
      timestamps = (JSON.parse(body.toString('utf8')) as { timestamps?: unknown } | null)?.timestamps;
    } catch {
      // not JSON: Prism answers it with its 400 example
    }
    forward(req, res, prism, { body, headers: timestamps === 'word' ? { prefer: `example=${TIMINGS_EXAMPLE}` } : {} });
  });
}

function sendAudio(req: IncomingMessage, res: ServerResponse, mp3: Uint8Array, prism: { host: string; port: number }): void {
  const range = parseRange(req.headers.range, mp3.length);
  // A range past the end: the document's 416 example, from Prism.
  if (range === 'unsatisfiable') {
    forward(req, res, prism, { headers: { prefer: 'code=416' } });
    return;
  }
  const { start, end } = range ?? { start: 0, end: mp3.length - 1 };
  const headers: Record<string, string> = {
    'content-type': 'audio/mpeg',
    'content-length': String(end - start + 1),
    'accept-ranges': 'bytes',
    'cache-control': 'private, max-age=3600',
    'x-request-id': randomUUID(),
    // As Prism answers every origin.
    'access-control-allow-origin': req.headers.origin ?? '*',
    'access-control-expose-headers': '*',
  };
  if (range) headers['content-range'] = `bytes ${start}-${end}/${mp3.length}`;
  res.writeHead(range ? 206 : 200, headers);
  res.end(req.method === 'HEAD' ? undefined : Buffer.from(mp3.subarray(start, end + 1)));
}

/**
 * The stream of a job's audio, as the server sends a completed job's: `200 audio/mpeg`, chunked (no
 * Content-Length), `Cache-Control: no-store`, and exactly the bytes the audio URL serves. The mock's
 * jobs take no time, so the stream is whole at once; a client that streams a processing example's
 * `stream_url` gets the file its `audio_url` downloads.
 */
function sendStream(req: IncomingMessage, res: ServerResponse, mp3: Uint8Array): void {
  res.writeHead(200, {
    'content-type': 'audio/mpeg',
    'cache-control': 'no-store',
    'x-request-id': randomUUID(),
    'access-control-allow-origin': req.headers.origin ?? '*',
    'access-control-expose-headers': '*',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  // Two writes, so that the body goes out in chunks as the server's does.
  const half = Math.floor(mp3.length / 2);
  res.write(Buffer.from(mp3.subarray(0, half)));
  res.end(Buffer.from(mp3.subarray(half)));
}

/** The example a submission asking for word timings is answered with, when it names none. */
const TIMINGS_EXAMPLE = 'completed_with_timings';

/**
 * The front listener (not yet listening): audio downloads answered with `mp3`, downloads of timings and
 * captions forwarded to Prism as caption-front.ts says, a submission asking for word timings answered
 * with the example that has them (unless Prism generates bodies, `dynamic`), the rest forwarded to
 * Prism; JSON answers carry the examples' file URLs on the mock's own origin (own-origin.ts).
 */
export function createFront(mp3: Uint8Array, prism: { host: string; port: number }, { dynamic = false } = {}): Server {
  return createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://mock.invalid');
    } catch {
      return forward(req, res, prism);
    }
    const prefer = req.headers.prefer === undefined ? undefined : String(req.headers.prefer);
    if (servesAudio(req.method, url, prefer)) {
      req.resume();
      return sendAudio(req, res, mp3, prism);
    }
    if (servesStream(req.method, url, prefer)) {
      req.resume();
      return sendStream(req, res, mp3);
    }
    const malformed = malformedAudioRequest(req.method, url, prefer);
    if (malformed) return forward(req, res, prism, { headers: { prefer: malformed.prefer }, path: malformed.path });
    const captions = captionRequest(req.method, url, prefer);
    if (captions) return forward(req, res, prism, { headers: captions.headers, path: captions.path, method: 'GET' });
    if (!dynamic && req.method === 'POST' && url.pathname === API_PATH && prefer === undefined) return submitWithTimings(req, res, prism);
    forward(req, res, prism);
  });
}
