import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InProcessServer } from '../../../../test/helpers/in-process.js';
import { createTestServices } from '../../../../test/helpers/test-services.js';
import { ApiError } from '../api-error.js';
import { createLogger } from '../../log.js';
import { StoreUnavailableError } from '../../ports/index.js';
import type { AppContext } from '../context.js';
import { createApp } from '../create-app.js';
import { requireApiKey } from './auth.js';
import { rateLimitHeaders } from './rate-limit-headers.js';

const INVALID = 'The API key is missing, malformed, unknown or revoked. Send `Authorization: Bearer tts_<public_id>_<secret>`.';

/**
 * requireApiKey over the real embedded adapters (SQLite store, in-process rate limiter), in an app
 * of its own behind rateLimitHeaders, as the job routes have it: what a refused key is answered
 * (401/403, error body with `meta`, `WWW-Authenticate`), what a route behind it is given, and the
 * bucket it reports (only for a 403: a valid key's answers report what the route decided).
 */
describe('requireApiKey', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await createTestServices({ RATE_GET_LIMIT: '30', RATE_POST_LIMIT: '1', RATE_WINDOW_SECONDS: '60' });
  });
  afterAll(async () => {
    await server?.close();
  });

  function app() {
    const a = createApp({ log: createLogger('silent'), notFoundHint: 'none' });
    const { jobs } = server.services;
    a.use(rateLimitHeaders);
    const guard = requireApiKey(server.services.auth, jobs.rateLimits);
    const answer = (c: AppContext) => c.json({ account: c.get('principal').account.id, displayKey: c.get('displayKey') });
    a.get('/ok', guard, answer);
    a.post('/ok', guard, answer);
    a.get('/refuse', guard, () => {
      throw new ApiError('INVALID_REQUEST', 'refused by the route');
    });
    a.get('/own-bucket', guard, (c) => {
      c.set('rateLimit', { kind: 'get', decision: { allowed: true, limit: 30, remaining: 7, resetSeconds: 1 }, windowMs: 60_000 });
      return c.json({});
    });
    a.get('/outage', guard, () => {
      throw new StoreUnavailableError('down');
    });
    return a;
  }
  const get = (path: string, headers: Record<string, string> = {}) => app().request(path, { headers });

  async function expectRefusal(res: Response, status: number, code: string, message: string | RegExp) {
    expect(res.status).toBe(status);
    const body = await res.json();
    expect(body).toEqual({
      success: false,
      error: { code, message: expect.any(String) },
      meta: { request_id: res.headers.get('x-request-id'), api_version: expect.any(String) },
    });
    if (typeof message === 'string') expect(body.error.message).toBe(message);
    else expect(body.error.message).toMatch(message);
    return body;
  }

  it('answers 401 INVALID_KEY with WWW-Authenticate and no RateLimit for a missing or malformed header', async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer not-a-key' },
      { authorization: `Bearer tts_ABCDEF12_${'0'.repeat(48)}` },
      { authorization: `Bearer tts_abcdef12_${'0'.repeat(47)}` },
      { authorization: `Bearer xyz_abcdef12_${'0'.repeat(48)}` },
    ];
    for (const headers of cases) {
      const res = await get('/ok', headers);
      await expectRefusal(res, 401, 'INVALID_KEY', INVALID);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.headers.get('ratelimit')).toBeNull();
    }
  });

  it('refuses an unknown key and a wrong secret alike, naming the key but never echoing the secret', async () => {
    const { key } = await server.newKey();
    const wrongSecret = key.slice(0, 13) + (key[13] === 'a' ? 'b' : 'a') + key.slice(14);
    for (const presented of [`tts_0badc0de_${'1'.repeat(48)}`, wrongSecret]) {
      const res = await get('/ok', { authorization: `Bearer ${presented}` });
      const body = await expectRefusal(res, 401, 'INVALID_KEY', `${INVALID} (key ${presented.slice(0, 12)})`);
      expect(JSON.stringify(body)).not.toContain(presented.slice(13));
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('refuses a revoked key with 401 and no RateLimit headers', async () => {
    const { key } = await server.newKey();
    await server.admin.revokeKey(key.slice(0, 12));
    const res = await get('/ok', { authorization: `Bearer ${key}` });
    await expectRefusal(res, 401, 'INVALID_KEY', `${INVALID} (key ${key.slice(0, 12)})`);
    expect(res.headers.get('ratelimit')).toBeNull();
  });

  it('refuses an inactive subscription and a plan without API access with 403, reporting the untouched bucket', async () => {
    const inactive = await server.newKey({ subscription: 'inactive' });
    const refusedGet = await get('/ok', { authorization: `Bearer ${inactive.key}` });
    await expectRefusal(refusedGet, 403, 'INACTIVE_SUBSCRIPTION', 'The subscription of this account is not active. Reactivate it on the billing page.');
    expect(refusedGet.headers.get('www-authenticate')).toBeNull();
    expect(refusedGet.headers.get('ratelimit')).toMatch(/^"get";r=30;t=\d+$/);
    expect(refusedGet.headers.get('ratelimit-policy')).toBe('"get";q=30;w=60');

    const basic = await server.newKey({ plan: 'basic' });
    const refusedPost = await app().request('/ok', { method: 'POST', headers: { authorization: `Bearer ${basic.key}` } });
    await expectRefusal(refusedPost, 403, 'NO_API_ACCESS', 'The basic plan does not include API access. Check the plan or contact support.');
    expect(refusedPost.headers.get('ratelimit')).toMatch(/^"post";r=1;t=\d+$/);
    expect(refusedPost.headers.get('ratelimit-policy')).toBe('"post";q=1;w=60');
  });

  it('follows the account: switching subscription and plan takes effect on the next request', async () => {
    const { key, accountId } = await server.newKey({ plan: 'free' });
    const auth = { authorization: `Bearer ${key}` };
    expect((await get('/ok', auth)).status).toBe(200);
    await server.services.store.updateAccount(accountId, { subscription: 'inactive' });
    await expectRefusal(await get('/ok', auth), 403, 'INACTIVE_SUBSCRIPTION', /not active/);
    await server.services.store.updateAccount(accountId, { subscription: 'active', plan: 'basic' });
    await expectRefusal(await get('/ok', auth), 403, 'NO_API_ACCESS', /basic plan/);
  });

  it('hands the route the principal and display key, accepting any case of "Bearer" and extra spaces', async () => {
    const { key, accountId } = await server.newKey();
    for (const authorization of [`Bearer ${key}`, `bearer   ${key} `]) {
      const res = await get('/ok', { authorization });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ account: accountId, displayKey: key.slice(0, 12) });
    }
  });

  it('reports no bucket of its own for a valid key: the route reports the one the domain gave it', async () => {
    const { key } = await server.newKey();
    const auth = { authorization: `Bearer ${key}` };
    const ok = await get('/ok', auth);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit')).toBeNull();
    const refused = await get('/refuse', auth);
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toEqual({ code: 'INVALID_REQUEST', message: 'refused by the route' });
    expect(refused.headers.get('ratelimit')).toBeNull();
  });

  it('keeps the bucket a route decided, and reports none after a store outage', async () => {
    const { key } = await server.newKey();
    const auth = { authorization: `Bearer ${key}` };
    const own = await get('/own-bucket', auth);
    expect(own.headers.get('ratelimit')).toBe('"get";r=7;t=1');
    expect(own.headers.get('ratelimit-policy')).toBe('"get";q=30;w=60');
    const outage = await get('/outage', auth);
    expect(outage.status).toBe(500);
    expect((await outage.json()).error.code).toBe('INTERNAL_ERROR');
    expect(outage.headers.get('ratelimit')).toBeNull();
  });
});
