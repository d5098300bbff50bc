import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * A request body the server does not use (a body over MAX_BODY_BYTES, or a POST answered 401 before
 * its body was read) is still read to its end and thrown away after the answer is sent. Closing the
 * connection instead would make a client that is still writing the body see EPIPE or ECONNRESET, and
 * lose the answer waiting in its socket. The discarding is bounded: a body that goes on for more than
 * `maxBytes` after the answer, or longer than `maxMs`, has its connection closed.
 */
const UNREAD_BODY_LIMITS = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000 } as const;

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
    // A request without a body (every poll) has nothing to linger over: no listener on its answer.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return;
    res.once('finish', () => {
      const socket = req.socket;
      if (!socket || req.destroyed || req.complete) return;
      // An answer that closes the connection (the client sent `Connection: close`) has just had Node
      // end the socket and schedule its destruction once the end is flushed, while the client may
      // still be writing the body: the reset would lose the answer. Lingering close instead: the
      // write side is ended, reading goes on, and the socket is destroyed when the body is in.
      const closing = !res.shouldKeepAlive;
      if (closing) socket.removeListener('finish', socket.destroy);
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
        req.off('end', bodyIn);
        req.off('close', stop);
      };
      const bodyIn = () => {
        stop();
        if (closing) socket.destroy();
      };
      req.once('end', bodyIn);
      req.once('close', stop);
    });
  });
}
