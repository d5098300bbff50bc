import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { API_VERSION } from '@agent-tts/contract/limits.js';
import { ConfigError } from '../config.js';
import { boundUnreadBodies } from './unread-body.js';

export interface ListenOptions {
  /** Headers also set on the answers to requests the HTTP parser refuses (the sandbox's mark). */
  headers?: Readonly<Record<string, string>>;
  /** Told of each request the HTTP parser refused, once it is answered: its request line when one was read (the sandbox's journal). */
  onClientError?: (refused: { requestId: string; requestLine?: string }) => void;
}

/**
 * Errors the HTTP parser raises before any handler runs (malformed request line or headers, headers
 * too large) still get the API's error body, not a bare "400 Bad Request".
 */
function answerClientErrors(server: Server, options: ListenOptions): void {
  const extra = Object.entries(options.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  server.on('clientError', (error: Error & { rawPacket?: Buffer }, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const requestId = randomUUID();
    const body = JSON.stringify({
      success: false,
      error: { code: 'INVALID_REQUEST', message: 'The HTTP request is malformed (request line or headers).' },
      meta: { request_id: requestId, api_version: API_VERSION },
    });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n${extra}Connection: close\r\n\r\n${body}`,
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
    EADDRNOTAVAIL: `HOST ${hostname} is not an address of this machine`,
  };
  const reason = error.code ? reasons[error.code] : undefined;
  return reason ? new ConfigError(`${error.code === 'EADDRNOTAVAIL' ? 'HOST' : variable}: ${reason}`) : error;
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
    const server = serve({ fetch, port, hostname, autoCleanupIncoming: false }, () => resolve(server as Server)) as Server;
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, variable, port, hostname)));
    answerClientErrors(server, options);
    boundUnreadBodies(server);
    // Inline waits last up to ~10 s; keep idle sockets short so shutdown is prompt.
    server.keepAliveTimeout = 5_000;
    server.headersTimeout = 20_000;
    server.requestTimeout = 120_000;
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
