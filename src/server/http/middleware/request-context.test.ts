import { Writable } from 'node:stream';
import { OpenAPIHono } from '@hono/zod-openapi';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../log.js';
import type { AppEnv } from '../context.js';
import { type RequestContextOptions, requestContext } from './request-context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A logger that keeps its lines, parsed. */
function capturingLog() {
  const lines: Record<string, unknown>[] = [];
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    }),
  );
  return { log, lines };
}

/** The middleware alone, before a few routes: one answering its context, one naming a key, one failing. */
function app(options: Partial<RequestContextOptions> = {}) {
  const a = new OpenAPIHono<AppEnv>();
  a.use(requestContext({ log: createLogger('silent'), ...options }));
  a.get('/ok', (c) => c.json({ requestId: c.get('requestId'), receivedAt: c.get('receivedAt') }));
  a.get('/keyed', (c) => {
    c.set('displayKey', 'tts_abcd1234');
    return c.json({}, 202);
  });
  a.get('/fail', () => {
    throw new Error('boom');
  });
  a.onError((_error, c) => c.json({ failed: true }, 500));
  return a;
}

describe('requestContext', () => {
  it('gives every request a fresh id, to the handler and in X-Request-Id, and the time it was received', async () => {
    const a = app();
    const before = Date.now();
    const [first, second] = [await a.request('/ok'), await a.request('/ok')];
    const body = (await first.json()) as { requestId: string; receivedAt: number };
    expect(first.headers.get('x-request-id')).toMatch(UUID);
    expect(body.requestId).toBe(first.headers.get('x-request-id'));
    expect(second.headers.get('x-request-id')).toMatch(UUID);
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(body.receivedAt).toBeGreaterThanOrEqual(before);
    expect(body.receivedAt).toBeLessThanOrEqual(Date.now());
  });

  it('sets the extra headers on every answer: a route’s, a failure’s and an unknown path’s', async () => {
    const a = app({ headers: { 'Agent-TTS-Sandbox': '1' } });
    for (const path of ['/ok', '/fail', '/nope']) {
      const res = await a.request(path);
      expect(res.headers.get('agent-tts-sandbox'), path).toBe('1');
      expect(res.headers.get('x-request-id'), path).toMatch(UUID);
    }
  });

  it('logs one line per answered request when asked: id, method, path, status, milliseconds and the display key', async () => {
    const { log, lines } = capturingLog();
    const a = app({ log, logRequests: true });
    const keyed = await a.request('/keyed?x=1', { method: 'GET' });
    const failed = await a.request('/fail');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      msg: 'request',
      request_id: keyed.headers.get('x-request-id'),
      method: 'GET',
      path: '/keyed',
      status: 202,
      key: 'tts_abcd1234',
    });
    expect(lines[0]!.ms).toEqual(expect.any(Number));
    expect(lines[1]).toMatchObject({ msg: 'request', request_id: failed.headers.get('x-request-id'), path: '/fail', status: 500 });
    expect(lines[1]).not.toHaveProperty('key');
  });

  it('logs nothing when request lines are off', async () => {
    const { log, lines } = capturingLog();
    await app({ log }).request('/ok');
    expect(lines).toEqual([]);
  });
});
