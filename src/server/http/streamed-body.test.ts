import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from './create-app.js';
import { guardedStream } from './streamed-body.js';

/**
 * guardedStream under app.request() (no Node adapter): the source's bytes pass through, and a source
 * that fails half-way errors the body after one warning line. Under the Node adapter (the connection
 * destroyed instead) it is tested with a real listener in routes/audio-stream-errors.test.ts.
 */
function setup(source: () => ReadableStream<Uint8Array>) {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const app = createApp({ log, notFoundHint: 'none' });
  app.get('/file', (c) => c.body(guardedStream(c, source(), log, 'audio stream failed', { job_id: 'j1' }), 200));
  return { app, lines };
}

const chunks = (...parts: string[]) => parts.map((p) => new TextEncoder().encode(p));

describe('guardedStream', () => {
  it('passes the source through whole, and logs nothing', async () => {
    const { app, lines } = setup(
      () =>
        new ReadableStream({
          start(controller) {
            for (const chunk of chunks('hello ', 'world')) controller.enqueue(chunk);
            controller.close();
          },
        }),
    );
    const res = await app.request('/file');
    expect(await res.text()).toBe('hello world');
    expect(lines).toEqual([]);
  });

  it('errors the body when the source fails, after one warning with the request id and fields', async () => {
    const { app, lines } = setup(() => {
      let sent = false;
      return new ReadableStream({
        pull(controller) {
          if (sent) return controller.error(new Error('store went away'));
          sent = true;
          controller.enqueue(chunks('partial')[0]);
        },
      });
    });
    const res = await app.request('/file');
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('partial');
    await expect(reader.read()).rejects.toThrow('store went away');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'audio stream failed',
      job_id: 'j1',
      request_id: res.headers.get('x-request-id'),
      err: { message: 'store went away' },
    });
  });

  it('cancels the source when the reader goes away', async () => {
    let cancelled: unknown;
    const { app } = setup(
      () =>
        new ReadableStream({
          pull(controller) {
            controller.enqueue(chunks('x')[0]);
          },
          cancel(reason) {
            cancelled = reason;
          },
        }),
    );
    const res = await app.request('/file');
    await res.body!.cancel('client left');
    expect(cancelled).toBe('client left');
  });
});
