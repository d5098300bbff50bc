import { createRoute, z } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { API_VERSION } from '@agent-tts/contract/limits.js';
import { ClientClosedError } from '../domain/errors.js';
import { ApiError } from './api-error.js';
import { createLogger } from '../log.js';
import { createOpsMetrics } from '../metrics.js';
import { StoreUnavailableError } from '../ports/index.js';
import { CLIENT_CLOSED_REQUEST, answerOtherMethods, createApp } from './create-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The app shell every listener is built from, driven by app.request(). */
function shell(options: Partial<Parameters<typeof createApp>[0]> = {}) {
  const app = createApp({ log: createLogger('silent'), notFoundHint: 'The API is at /v1/agent-tts.', ...options });
  app.get('/ok', (c) => c.json({ requestId: c.get('requestId') }));
  app.get('/throw/:kind', (c) => {
    const kind = c.req.param('kind');
    if (kind === 'api') throw new ApiError('RATE_LIMITED', 'slow down', { retry_after_seconds: 3 }, { 'Retry-After': '3' });
    if (kind === 'http415') throw new HTTPException(415, { message: 'unsupported' });
    if (kind === 'json') throw new HTTPException(400, { message: 'Malformed JSON in request body' });
    if (kind === 'closed') throw new ClientClosedError('client closed the connection', { job_id: 'j1' });
    if (kind === 'store') throw new StoreUnavailableError('redis down at 10.0.0.1');
    throw new Error('secret internals');
  });
  return app;
}

async function errorOf(res: Response) {
  const body = await res.json();
  expect(body.success).toBe(false);
  expect(body.meta).toEqual({ request_id: res.headers.get('x-request-id'), api_version: API_VERSION });
  return body.error;
}

describe('createApp', () => {
  it('gives every answer a fresh request id, in X-Request-Id and to the handler', async () => {
    const app = shell();
    const [a, b] = [await app.request('/ok'), await app.request('/ok')];
    expect(a.headers.get('x-request-id')).toMatch(UUID);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    expect(await a.json()).toEqual({ requestId: a.headers.get('x-request-id') });
  });

  it('answers an unknown path with 404 NOT_FOUND naming the method, path and hint', async () => {
    const res = await shell().request('/v2/agent-tts', { method: 'POST' });
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toEqual({ code: 'NOT_FOUND', message: 'No route POST /v2/agent-tts. The API is at /v1/agent-tts.' });
  });

  it('answers an ApiError with its status, headers, details and message', async () => {
    const res = await shell().request('/throw/api');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(await errorOf(res)).toEqual({ code: 'RATE_LIMITED', message: 'slow down', details: { retry_after_seconds: 3 } });
  });

  it('turns Hono’s own refusals into INVALID_REQUEST', async () => {
    const unsupported = await shell().request('/throw/http415');
    expect(unsupported.status).toBe(400);
    expect(await errorOf(unsupported)).toEqual({ code: 'INVALID_REQUEST', message: 'Content-Type must be application/json.' });
    const json = await shell().request('/throw/json');
    expect(await errorOf(json)).toEqual({ code: 'INVALID_REQUEST', message: expect.stringMatching(/^The request body is not valid JSON/) });
  });

  it('answers a client that went away with 499 and no body', async () => {
    const res = await shell().request('/throw/closed');
    expect(res.status).toBe(CLIENT_CLOSED_REQUEST);
    expect(res.status).toBe(499);
    expect(await res.text()).toBe('');
  });

  it('answers a store outage and any other failure with 500 INTERNAL_ERROR, never the error’s own text', async () => {
    const store = await shell().request('/throw/store');
    expect(store.status).toBe(500);
    expect(await errorOf(store)).toEqual({
      code: 'INTERNAL_ERROR',
      message: "The service's data store did not answer in time. Retry with backoff; retry a POST with the same Idempotency-Key, so that it cannot run twice.",
    });
    const bug = await shell().request('/throw/bug');
    expect(bug.status).toBe(500);
    expect(await errorOf(bug)).toEqual({ code: 'INTERNAL_ERROR', message: 'Internal server error. Retry with backoff.' });
  });

  it('marks every answer with its extra headers (errors and preflights too); guards run before CORS', async () => {
    const app = shell({
      headers: { 'Agent-TTS-Sandbox': '1' },
      cors: { origins: ['https://app.example.com'] },
      guards: [
        async (c, next) => {
          if (c.req.header('x-block')) return c.body(null, 403);
          await next();
        },
      ],
    });
    expect((await app.request('/ok')).headers.get('agent-tts-sandbox')).toBe('1');
    expect((await app.request('/nope')).headers.get('agent-tts-sandbox')).toBe('1');
    const preflight = { origin: 'https://app.example.com', 'access-control-request-method': 'GET' };
    const pre = await app.request('/ok', { method: 'OPTIONS', headers: preflight });
    expect([pre.status, pre.headers.get('agent-tts-sandbox'), pre.headers.get('access-control-allow-origin')]).toEqual([204, '1', 'https://app.example.com']);
    const blocked = await app.request('/ok', { method: 'OPTIONS', headers: { ...preflight, 'x-block': '1' } });
    expect([blocked.status, blocked.headers.get('access-control-allow-origin')]).toEqual([403, null]);
  });

  it('counts answers by route pattern and status, unknown paths as unmatched', async () => {
    const metrics = createOpsMetrics();
    const app = shell({ metrics });
    app.get('/jobs/:id', (c) => c.json({}));
    await app.request('/jobs/a');
    await app.request('/jobs/b');
    await app.request('/nope');
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/agent_tts_http_requests_total\{method="GET",route="\/jobs\/:id",status="200"\} 2\n/);
    expect(text).toMatch(/agent_tts_http_requests_total\{method="GET",route="unmatched",status="404"\} 1\n/);
    expect(text).not.toContain('/jobs/a');
  });

  it('validates routes bound to the contract through the one hook: INVALID_REQUEST with a message for people', async () => {
    const app = shell();
    const route = createRoute({
      method: 'get',
      path: '/q',
      request: { query: z.object({ n: z.coerce.number().int().min(1) }) },
      responses: { 200: { description: 'ok' } },
    });
    app.openapi(route, (c) => c.json({ n: c.req.valid('query').n }, 200));
    expect(await (await app.request('/q?n=2')).json()).toEqual({ n: 2 });
    const refused = await app.request('/q?n=0');
    expect(refused.status).toBe(400);
    expect((await errorOf(refused)).code).toBe('INVALID_REQUEST');
  });
});

describe('answerOtherMethods', () => {
  it('answers another method with 405, Allow and INVALID_REQUEST; a plain OPTIONS with 204 and Allow', async () => {
    const app = shell();
    app.get('/v1/agent-tts', (c) => c.json({}));
    app.post('/v1/agent-tts', (c) => c.json({}));
    answerOtherMethods(app, '/v1/agent-tts', ['GET', 'POST']);
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const res = await app.request('/v1/agent-tts', { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, POST, OPTIONS');
      expect(await errorOf(res)).toEqual({ code: 'INVALID_REQUEST', message: `Method ${method} is not allowed here; use GET or POST.` });
    }
    const options = await app.request('/v1/agent-tts', { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'GET, POST, OPTIONS']);
    expect((await app.request('/v1/agent-tts')).status).toBe(200);
  });
});
