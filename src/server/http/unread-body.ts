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

/**
 * Bounds the reading of bodies still arriving when their answer has been sent: either Node's own
 * discarding of a body nobody read, or `discardRest` above. Past the limits the connection is closed.
 */
export function boundUnreadBodies(server: Server, limits: { maxBytes: number; maxMs: number } = UNREAD_BODY_LIMITS): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    res.once('finish', () => {
      if (req.complete || req.destroyed) return;
      let bytes = 0;
      const close = () => {
        stop();
        req.socket?.destroy();
      };
      const timer = setTimeout(close, limits.maxMs);
      timer.unref();
      // An observer only: a 'data' listener does not resume a stream that its reader paused.
      const onData = (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > limits.maxBytes) close();
      };
      const stop = () => {
        clearTimeout(timer);
        req.off('data', onData);
        req.off('end', stop);
        req.off('close', stop);
      };
      req.on('data', onData);
      req.once('end', stop);
      req.once('close', stop);
    });
  });
}
