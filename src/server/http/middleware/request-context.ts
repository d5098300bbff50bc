import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { type Logger, requestLineWriter } from '../../log.js';
import type { AppEnv } from '../context.js';
import { noteRequestId } from '../socket-requests.js';

export interface RequestContextOptions {
  log: Logger;
  /** One log line per request once it is answered; off for listeners that only answer probes. */
  logRequests?: boolean;
  /** Headers set on every answer, errors and preflights included (the sandbox's mark). */
  headers?: Readonly<Record<string, string>>;
}

/**
 * What every request carries from its start: a fresh request id (the handler's `requestId`, the
 * answer's `X-Request-Id`, `meta.request_id`), the time it was received, the listener's extra
 * headers, and, when asked, the request log line (method, path, status, milliseconds, display key).
 */
export function requestContext(options: RequestContextOptions): MiddlewareHandler<AppEnv> {
  const { log, logRequests } = options;
  const requestLine = requestLineWriter(log);
  // Listed once, not per request (the server has none; the sandbox marks every answer).
  const extraHeaders = Object.entries(options.headers ?? {});
  return async (c, next) => {
    const requestId = randomUUID();
    c.set('requestId', requestId);
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (incoming?.socket) noteRequestId(incoming.socket, requestId);
    c.set('receivedAt', Date.now());
    c.header('X-Request-Id', requestId);
    for (const [name, value] of extraHeaders) c.header(name, value);
    await next();
    if (logRequests) {
      requestLine({
        request_id: requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Date.now() - c.get('receivedAt'),
        key: c.get('displayKey'),
      });
    }
  };
}
