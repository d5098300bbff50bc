import { getRequestListener } from '@hono/node-server';
import { describe, expect, it } from 'vitest';
import { parseList } from '@agent-tts/contract/ratelimit-headers.js';
import { ClientClosedError } from '../../domain/errors.js';
import { ApiError } from '../api-error.js';
import type { BucketReport } from '../../domain/rate-limits.js';
import { createLogger } from '../../log.js';
import { StoreUnavailableError } from '../../ports/index.js';
import type { AppContext } from '../context.js';
import { createApp } from '../create-app.js';
import { rateLimitHeaders } from './rate-limit-headers.js';

const POST_BUCKET: BucketReport = { kind: 'post', decision: { allowed: false, limit: 1, remaining: 0, resetSeconds: 42 }, windowMs: 60_000 };
const GET_BUCKET: BucketReport = { kind: 'get', decision: { allowed: true, limit: 30, remaining: 29, resetSeconds: 60 }, windowMs: 90_500 };

/** rateLimitHeaders in the app shell every listener has (createApp), so that its error handler answers failures. */
function app() {
  const a = createApp({ log: createLogger('silent'), notFoundHint: 'none' });
  a.use(rateLimitHeaders);
  const reporting = (bucket: BucketReport, then: (c: AppContext) => Response) => (c: AppContext) => {
    c.set('rateLimit', bucket);
    return then(c);
  };
  a.get(
    '/post',
    reporting(POST_BUCKET, (c) => c.json({})),
  );
  a.get(
    '/get',
    reporting(GET_BUCKET, (c) => c.json({})),
  );
  a.get('/none', (c) => c.json({}));
  const throwing = (error: Error) =>
    reporting(POST_BUCKET, () => {
      throw error;
    });
  a.get('/refused', throwing(new ApiError('RATE_LIMITED', 'slow down', undefined, { 'Retry-After': '42' })));
  a.get('/outage', throwing(new StoreUnavailableError('down')));
  a.get('/bug', throwing(new Error('boom')));
  a.get('/gone', throwing(new ClientClosedError('client went away')));
  return a;
}

/**
 * Whether @hono/node-server's listener writes this answer straight from what the handler gave (its
 * lightweight response still holds the status, body string and headers under its `cache` symbol: the
 * listener's test for its fast path) rather than through a web Response and its body stream.
 */
const writtenDirectly = (res: Response) => Object.getOwnPropertySymbols(res).some((s) => s.description === 'cache');

describe('rateLimitHeaders', () => {
  it('writes RateLimit-Policy and RateLimit of the bucket on the context, as Structured Field Lists', async () => {
    const post = await app().request('/post');
    expect(post.headers.get('ratelimit-policy')).toBe('"post";q=1;w=60');
    expect(post.headers.get('ratelimit')).toBe('"post";r=0;t=42');
    const get = await app().request('/get');
    // The window is given in whole seconds.
    expect(get.headers.get('ratelimit-policy')).toBe('"get";q=30;w=91');
    expect(get.headers.get('ratelimit')).toBe('"get";r=29;t=60');
    for (const name of ['ratelimit', 'ratelimit-policy']) expect(() => parseList(get.headers.get(name)!)).not.toThrow();
  });

  it('writes none when nothing put a bucket on the context', async () => {
    const res = await app().request('/none');
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit')).toBeNull();
    expect(res.headers.get('ratelimit-policy')).toBeNull();
  });

  it('writes them on the answer the error handler made of a thrown error, whatever it was', async () => {
    const cases: [string, number][] = [
      ['/refused', 429],
      ['/outage', 500],
      ['/bug', 500],
      ['/gone', 499],
    ];
    for (const [path, status] of cases) {
      const res = await app().request(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('ratelimit'), path).toBe('"post";r=0;t=42');
      expect(res.headers.get('ratelimit-policy'), path).toBe('"post";q=1;w=60');
    }
    const refused = await app().request('/refused');
    expect(refused.headers.get('retry-after')).toBe('42');
    expect((await refused.json()).error).toEqual({ code: 'RATE_LIMITED', message: 'slow down' });
  });

  it("keeps the answer @hono/node-server's lightweight response, which its listener writes without a web Response", async () => {
    // What serve() does first: the adapter's own Request and Response become the global ones.
    getRequestListener(() => new Response(null));
    for (const path of ['/get', '/refused']) {
      const res = await app().request(path);
      expect(res.headers.get('ratelimit'), path).not.toBeNull();
      expect(writtenDirectly(res), path).toBe(true);
    }
  });
});
