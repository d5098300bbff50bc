import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Exchange } from './exchange.js';

export interface SendOptions {
  method: string;
  /** Absolute URL, or a path resolved against the base URL. */
  url: string;
  headers?: Record<string, string>;
  /** Serialized as JSON with Content-Type application/json unless headers say otherwise. */
  json?: unknown;
  body?: string | Buffer;
  label?: string;
  timeoutMs?: number;
  /** Drop the connection this many ms after the request is fully written (simulated transport failure). */
  dropAfterSendMs?: number;
  /**
   * Drop the connection as soon as the answer's status line and headers arrive, before its body: the
   * answer is lost on the way back, yet its status proves the server received and handled the request.
   */
  dropOnAnswer?: boolean;
  /** Called once, when the first byte of the answer's body arrives (a streamed answer: while the rest is still coming). */
  onFirstBody?: () => void;
  /**
   * Keep only the first 64 KiB of the body, and its SHA-256 and size (`response.digest`): for audio of
   * any length (a long job's is tens of megabytes), compared without holding it.
   */
  digest?: boolean;
}

const DIGEST_KEPT_BYTES = 64 * 1024;

const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Errors raised before any byte reached a server. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * A bare HTTP/1.1 client on node:http rather than fetch: conformance needs to send what browsers
 * forbid (Origin, malformed Authorization), read bodies as bytes, and cut a connection mid-request.
 */
export async function sendRaw(base: string, options: SendOptions, seq: number, owner: string): Promise<Exchange> {
  const url = new URL(options.url, `${base}/`);
  const headers: Record<string, string> = { 'user-agent': 'agent-tts-conformance/0.1', ...lowerKeys(options.headers ?? {}) };
  let body: Buffer | undefined;
  if (options.json !== undefined) {
    body = Buffer.from(JSON.stringify(options.json));
    headers['content-type'] ??= 'application/json';
  } else if (options.body !== undefined) {
    body = Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
  }
  if (body) headers['content-length'] = String(body.length);

  const exchange: Exchange = {
    seq,
    owner,
    label: options.label,
    startedAt: new Date().toISOString(),
    ms: 0,
    request: { method: options.method, url: url.toString(), headers, body: body?.toString('utf8') },
  };
  const started = performance.now();
  try {
    const outcome = await transmit(url, options, headers, body, () => {
      exchange.firstBodyMs = Math.round(performance.now() - started);
      options.onFirstBody?.();
    });
    if (outcome === 'dropped') exchange.dropped = true;
    else if (outcome && 'droppedAfterStatus' in outcome) {
      exchange.dropped = true;
      exchange.droppedAfterStatus = outcome.droppedAfterStatus;
    } else exchange.response = outcome;
  } catch (error) {
    exchange.error = (error as Error).message || String(error);
    exchange.notSent = NOT_SENT.has((error as NodeJS.ErrnoException).code ?? '');
  }
  exchange.ms = Math.round(performance.now() - started);
  return exchange;
}

function transmit(
  url: URL,
  options: SendOptions,
  headers: Record<string, string>,
  body: Buffer | undefined,
  onFirstBody: () => void,
): Promise<Exchange['response'] | 'dropped' | { droppedAfterStatus: number }> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: options.method, headers, agent: false });
    const timeoutMs = options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    let answered = false;
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      // A server may answer early (e.g. refuse an oversized body) and close while the body is still
      // being written; the answer can still be in the socket, so give it a moment to surface.
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') {
        setTimeout(() => {
          if (!answered) {
            clearTimeout(timer);
            reject(error);
          }
        }, 1_000);
        return;
      }
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (res: IncomingMessage) => {
      answered = true;
      if (options.dropOnAnswer) {
        clearTimeout(timer);
        req.on('error', () => undefined);
        res.on('error', () => undefined);
        req.destroy();
        resolve({ droppedAfterStatus: res.statusCode ?? 0 });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const hash = options.digest ? createHash('sha256') : undefined;
      res.on('data', (chunk: Buffer) => {
        if (size === 0 && chunk.length > 0) onFirstBody();
        const kept = size;
        size += chunk.length;
        if (hash) {
          hash.update(chunk);
          if (kept < DIGEST_KEPT_BYTES) chunks.push(chunk.subarray(0, DIGEST_KEPT_BYTES - kept));
        } else if (size > MAX_BODY_BYTES) req.destroy(new Error(`response body over ${MAX_BODY_BYTES} bytes`));
        else chunks.push(chunk);
      });
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const response = responseOf(res, Buffer.concat(chunks));
        resolve(hash ? { ...response, digest: { sha256: hash.digest('hex'), size } } : response);
      });
    });
    if (options.dropAfterSendMs !== undefined) {
      req.on('finish', () => {
        setTimeout(() => {
          clearTimeout(timer);
          req.destroy();
          resolve('dropped');
        }, options.dropAfterSendMs);
      });
      // Destroying the request emits an error we caused ourselves.
      req.on('error', () => undefined);
    }
    req.end(body);
  });
}

/** The answer as an exchange records it: headers joined, the body as text when textual, parsed when JSON. */
function responseOf(res: IncomingMessage, bytes: Buffer): NonNullable<Exchange['response']> {
  const responseHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const contentType = responseHeaders['content-type'] ?? '';
  const textual = /json|text|xml|subrip/i.test(contentType) || contentType === '';
  const text = textual ? bytes.toString('utf8') : '';
  let json: unknown;
  if (/json/i.test(contentType) && text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: res.statusCode ?? 0, headers: responseHeaders, contentType, bytes, text, json };
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
