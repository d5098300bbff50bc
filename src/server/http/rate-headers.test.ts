import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { parseList } from '@agent-tts/contract/ratelimit-headers.js';
import { hasRateHeaders, setRateHeaders } from './rate-headers.js';

describe('rate-limit headers', () => {
  function app() {
    const a = new Hono();
    a.get('/post', (c) => {
      setRateHeaders(c, 'post', { allowed: false, limit: 1, remaining: 0, resetSeconds: 42 }, 60_000);
      return c.json({ had: hasRateHeaders(c) });
    });
    a.get('/get', (c) => {
      const before = hasRateHeaders(c);
      setRateHeaders(c, 'get', { allowed: true, limit: 30, remaining: 29, resetSeconds: 60 }, 90_500);
      return c.json({ before, after: hasRateHeaders(c) });
    });
    return a;
  }

  it('sets RateLimit-Policy and RateLimit of the request’s bucket, as Structured Field Lists', async () => {
    const post = await app().request('/post');
    expect(post.headers.get('ratelimit-policy')).toBe('"post";q=1;w=60');
    expect(post.headers.get('ratelimit')).toBe('"post";r=0;t=42');
    const get = await app().request('/get');
    // The window is given in whole seconds.
    expect(get.headers.get('ratelimit-policy')).toBe('"get";q=30;w=91');
    expect(get.headers.get('ratelimit')).toBe('"get";r=29;t=60');
    for (const name of ['ratelimit', 'ratelimit-policy']) expect(() => parseList(get.headers.get(name)!)).not.toThrow();
  });

  it('tells whether an answer already carries them', async () => {
    expect(await (await app().request('/post')).json()).toEqual({ had: true });
    expect(await (await app().request('/get')).json()).toEqual({ before: false, after: true });
  });
});
