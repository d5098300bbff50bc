import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { API_VERSION } from '@agent-tts/contract/limits.js';
import { ApiError } from './api-error.js';
import { type AppEnv, metaOf, sendError, sendJson } from './context.js';

function app() {
  const a = new Hono<AppEnv>();
  a.use(async (c, next) => {
    c.set('requestId', 'req-1');
    await next();
  });
  a.get('/meta', (c) => c.json({ plain: metaOf(c), timed: metaOf(c, 12) }));
  a.get('/json', (c) => sendJson(c, 202, { success: true, status: 'processing' }));
  a.get('/error', (c) => sendError(c, new ApiError('RATE_LIMITED', 'slow down', { retry_after_seconds: 3 }, { 'Retry-After': '3' })));
  a.get('/bare-error', (c) => sendError(c, new ApiError('NOT_FOUND', 'no such job')));
  return a;
}

describe('request context', () => {
  it('metaOf: the request id and API version, with the processing time when given', async () => {
    expect(await (await app().request('/meta')).json()).toEqual({
      plain: { request_id: 'req-1', api_version: API_VERSION },
      timed: { request_id: 'req-1', processing_time_ms: 12, api_version: API_VERSION },
    });
  });

  it('sendJson: the body with meta added, at the given status', async () => {
    const res = await app().request('/json');
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ success: true, status: 'processing', meta: { request_id: 'req-1', api_version: API_VERSION } });
  });

  it('sendError: the error body with its status, headers, details and meta; no details key when there are none', async () => {
    const res = await app().request('/error');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(await res.json()).toEqual({
      success: false,
      error: { code: 'RATE_LIMITED', message: 'slow down', details: { retry_after_seconds: 3 } },
      meta: { request_id: 'req-1', api_version: API_VERSION },
    });
    const bare = await app().request('/bare-error');
    expect(bare.status).toBe(404);
    expect((await bare.json()).error).toStrictEqual({ code: 'NOT_FOUND', message: 'no such job' });
  });
});
