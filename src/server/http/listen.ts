import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { API_VERSION } from '@agent-tts/contract/limits.js';
import { ConfigError } from '../config/error.js';
import type { AheadOfApp } from './poll-fast-path.js';
import { forgetRequest, markAnswered, requestIdOf } from './socket-requests.js';
import { boundUnreadBodies } from './unread-body.js';

export interface ListenOptions {
  /** Headers also set on the answers to requests the HTTP parser refuses (the sandbox's mark). */
  headers?: Readonly<Record<string, string>>;
  /** Told of each request the HTTP parser refused, once it is answered: its request line when one was read (the sandbox's journal). */
  onClientError?: (refused: { requestId: string; requestLine?: string }) => void;
  /** How long a request may take to arrive whole, headers and body (default 120 s; tests set less). */
  requestTimeoutMs?: number;
  /** Offered every request before the app (the API's poll: poll-fast-path.ts). */
  ahead?: AheadOfApp;
}

const REQUEST_TIMEOUT_MS = 120_000;

/**
 * Errors the HTTP parser raises before any handler runs (malformed request line or headers, headers
 * too large) still get the API's error body, not a bare "400 Bad Request". A request whose headers
 * were read is answered with its own id, which the app's log names: 408 when the server's own
 * request timeout ends it (not received whole in time; logged and counted 408), 400 when its body
 * stops short because the client closed its sending side (a half-close; logged and counted 499,
 * the client's doing) or breaks the chunked encoding (logged and counted 400)
 * (docs/api-rules.md#errors).
 */
function answerClientErrors(server: Server, options: ListenOptions, timeoutMs: number): void {
  const extra = Object.entries(options.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  server.on('clientError', (error: Error & { rawPacket?: Buffer; code?: string }, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const inFlight = requestIdOf(socket);
    const requestId = inFlight ?? randomUUID();
    let message = 'The HTTP request is malformed (request line or headers).';
    if (timedOut) {
      message = `The request did not arrive whole within the server's request timeout (${Math.round(timeoutMs / 1000)} s for its headers and body). Send it again, its body at once.`;
      markAnswered(socket, 408, "request not received whole within the server's request timeout: answered 408");
    } else if (inFlight && error.code === 'HPE_INVALID_EOF_STATE') {
      // The client ended its side mid-body: it may still read (a half-close) or be gone, which the
      // server cannot tell apart. It gets this answer in case it reads; the app logs and counts the
      // request as the client's doing (499), under this id.
      message =
        'The request body ended before the length its Content-Length or chunked encoding announced: the client closed its sending side mid-body. Send the whole body.';
    } else if (inFlight) {
      message = 'The request body is malformed HTTP (its chunked encoding). Send the whole body, with a Content-Length that matches it.';
      markAnswered(socket, 400, `request body malformed at the HTTP level (${error.code ?? error.message}): answered 400`);
    }
    const body = JSON.stringify({
      success: false,
      error: { code: 'INVALID_REQUEST', message },
      meta: { request_id: requestId, api_version: API_VERSION },
    });
    socket.end(
      `HTTP/1.1 ${timedOut ? '408 Request Timeout' : '400 Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n${extra}Connection: close\r\n\r\n${body}`,
    );
    if (options.onClientError) {
      const requestLine = /^[^\r\n]{1,8192}(?=\r?\n)/.exec(error.rawPacket?.toString('latin1') ?? '')?.[0];
      try {
        options.onClientError({ requestId, ...(requestLine === undefined ? {} : { requestLine }) });
      } catch {
        // The answer is out; an observer's failure must not take the listener down.
      }
    }
  });
}

/** Listening errors that come from the configuration name the variable and exit with code 2. */
function listenError(error: NodeJS.ErrnoException, variable: string, port: number, hostname: string): Error {
  const reasons: Record<string, string> = {
    EADDRINUSE: `port ${port} on ${hostname} is in use`,
    EACCES: `port ${port} needs privileges this process does not have`,
    EADDRNOTAVAIL: `${hostname} is not an address of this machine`,
    ENOTFOUND: `${hostname} is a name that does not resolve to an address (use an IP address, or a name in /etc/hosts or DNS)`,
    EAI_AGAIN: `${hostname} could not be resolved now (DNS did not answer)`,
  };
  const reason = error.code ? reasons[error.code] : undefined;
  const hostProblem = error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN';
  return reason ? new ConfigError(`${hostProblem ? 'HOST' : variable}: ${reason}`) : error;
}

export function listen(
  fetch: (req: Request) => Response | Promise<Response>,
  port: number,
  hostname: string,
  variable: string,
  options: ListenOptions = {},
): Promise<Server> {
  return new Promise((resolve, reject) => {
    // Unread request bodies are discarded by Node, within the bounds set in unread-body.ts (the
    // adapter's own clean-up would close such connections after half a second).
    const timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    // Node looks for requests past their timeout every connectionsCheckingInterval (30 s by default).
    const serverOptions = { requestTimeout: timeoutMs, connectionsCheckingInterval: Math.min(30_000, Math.max(50, timeoutMs / 4)) };
    const { ahead } = options;
    const withAhead = ahead
      ? (settings: ServerOptions, app: RequestListener) =>
          createServer(settings, (req, res) => {
            if (!ahead(req, res, app)) app(req, res);
          })
      : undefined;
    const server = serve({ fetch, port, hostname, autoCleanupIncoming: false, serverOptions, createServer: withAhead as typeof createServer | undefined }, () =>
      resolve(server as Server),
    ) as Server;
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, variable, port, hostname)));
    answerClientErrors(server, options, timeoutMs);
    boundUnreadBodies(server);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => res.once('close', () => forgetRequest(req.socket)));
    // Inline waits last up to ~10 s; keep idle sockets short so shutdown is prompt.
    server.keepAliveTimeout = 5_000;
    server.headersTimeout = Math.min(20_000, timeoutMs);
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
