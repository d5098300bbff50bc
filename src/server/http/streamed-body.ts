import type { ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import type { AppContext } from './context.js';

/**
 * A body streamed from a backend (the audio store), guarded against the backend failing half-way.
 *
 * By then the status line and Content-Length have usually left, so the only honest answer is to close
 * the connection short of Content-Length: the client sees an incomplete download, never a short file
 * that looks whole. The failure is reported once, as a warning of the server's JSON log: `message`,
 * the request id, `fields` and the error.
 *
 * Why the error does not simply error the stream: @hono/node-server, which writes the stream to the
 * socket, prints such an error with console.error (a raw multi-line stack on stderr, outside the JSON
 * log) and, when the headers have not left yet, answers 500 with `Error: <the error's message>` as
 * the body (a store's own words, to a client). So under that adapter the error never reaches it: the
 * response is destroyed instead, and the adapter cancels the stream as it does when a client goes
 * away. Without it (app.request() in tests, another runtime) the stream is errored as usual.
 */
export function guardedStream(
  c: AppContext,
  source: ReadableStream<Uint8Array>,
  log: Logger,
  message: string,
  fields: Record<string, unknown> = {},
): ReadableStream<Uint8Array> {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        log.warn({ request_id: c.get('requestId'), ...fields, err: error }, message);
        if (!outgoing) return controller.error(error);
        // No enqueue and no close: destroying the response makes the adapter cancel this stream.
        outgoing.destroy();
        return;
      }
      if (chunk.done) controller.close();
      else controller.enqueue(chunk.value);
    },
    cancel(reason) {
      // A source that failed rejects its cancellation with its error, which was reported above.
      return reader.cancel(reason).catch(() => undefined);
    },
  });
}
