import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * A request body the server does not use (a body over MAX_BODY_BYTES, or a POST answered 401 before
 * its body was read) is still read to its end and thrown away after the answer is sent. Closing the
 * connection instead would make a client that is still writing the body see EPIPE or ECONNRESET, and
 * lose the answer waiting in its socket. The discarding is bounded: a body that goes on for more than
 * `maxBytes` after the answer, or longer than `maxMs`, has its connection closed.
 */
export const UNREAD_BODY_LIMITS = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000 } as const;

/** Reads the rest of a body and drops it; errors (a client that went away) end the reading quietly. */
export function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  void (async () => {
    for (;;) {
      const { done } = await reader.read();
      if (done) return;
    }
  })().catch(() => undefined);
}

/** How often the bytes read from a lingering connection are looked at. */
const CHECK_INTERVAL_MS = 50;

/**
 * Bounds the reading of bodies still arriving when their answer has been sent: either Node's own
 * discarding of a body nobody read (which emits no 'data' events), or `discardRest` above. Bytes are
 * counted at the socket, which sees both. Past the limits the connection is closed.
 */
export function boundUnreadBodies(server: Server, limits: { maxBytes: number; maxMs: number } = UNREAD_BODY_LIMITS): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // A client that sent `Connection: close` would otherwise have its connection destroyed as soon as
    // the answer is written, while it may still be writing the body: the reset loses the answer. Such
    // a connection is kept until the body has been read (within the limits), then closed.
    const closeAfterBody = !res.shouldKeepAlive && hasBody(req);
    if (closeAfterBody) res.shouldKeepAlive = true;
    res.once('finish', () => {
      const socket = req.socket;
      if (!socket || req.destroyed) return;
      if (req.complete) {
        if (closeAfterBody) socket.end();
        return;
      }
      const startBytes = socket.bytesRead;
      const startedAt = Date.now();
      const check = setInterval(() => {
        const over = socket.bytesRead - startBytes > limits.maxBytes || Date.now() - startedAt > limits.maxMs;
        if (over) {
          stop();
          socket.destroy();
        }
      }, CHECK_INTERVAL_MS);
      check.unref();
      const stop = () => {
        clearInterval(check);
        req.off('end', stop);
        req.off('close', stop);
      };
      req.once('end', () => {
        stop();
        if (closeAfterBody) socket.end();
      });
      req.once('close', stop);
    });
  });
}

const hasBody = (req: IncomingMessage) => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
