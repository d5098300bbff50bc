import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../adapters/memory-rate-limiter.js';
import { RateLimits } from './rate-limits.js';

describe('RateLimits', () => {
  const limits = () => {
    let now = 1_000_000;
    const clock = { now: () => now, advance: (ms: number) => (now += ms) };
    return { clock, limits: new RateLimits(new MemoryRateLimiter(() => now), { post: 1, get: 2, windowMs: 60_000 }) };
  };

  it('keeps one bucket per key and kind, with the kind’s quota; peeking takes nothing', async () => {
    const { limits: l } = limits();
    expect(await l.peek('post', 'aaaaaaaa')).toEqual({ kind: 'post', decision: expect.objectContaining({ limit: 1, remaining: 1 }), windowMs: 60_000 });
    const taken = await l.take('post', 'aaaaaaaa');
    expect(taken.decision).toMatchObject({ allowed: true, remaining: 0 });
    expect((await l.take('post', 'aaaaaaaa')).decision.allowed).toBe(false);
    // Another key and the other kind are buckets of their own.
    expect((await l.take('post', 'bbbbbbbb')).decision.allowed).toBe(true);
    expect(await l.take('get', 'aaaaaaaa')).toMatchObject({ kind: 'get', decision: { allowed: true, limit: 2, remaining: 1 } });
  });

  it('gives back the place a take took, and nothing for a refusal or a peek', async () => {
    const { limits: l } = limits();
    const taken = await l.take('post', 'cccccccc');
    const refused = await l.take('post', 'cccccccc');
    await l.refund(refused, 'cccccccc');
    await l.refund(await l.peek('post', 'cccccccc'), 'cccccccc');
    expect((await l.peek('post', 'cccccccc')).decision.remaining).toBe(0);
    await l.refund(taken, 'cccccccc');
    expect((await l.peek('post', 'cccccccc')).decision.remaining).toBe(1);
  });

  it('refuses with the quota, the window and the wait, which is the Retry-After (at least 1 s)', async () => {
    const { limits: l, clock } = limits();
    await l.take('post', 'dddddddd');
    clock.advance(59_500);
    const refused = await l.take('post', 'dddddddd');
    expect(l.refusal(refused)).toEqual({
      kind: 'rate_limited',
      message: 'Too many POST requests for this API key (1 per 60 s). Wait 1 seconds (Retry-After).',
      retryAfterSeconds: 1,
    });
    const get = { kind: 'get' as const, decision: { allowed: false, limit: 2, remaining: 0, resetSeconds: 0 }, windowMs: 60_000 };
    expect(l.refusal(get)).toMatchObject({ retryAfterSeconds: 1, message: expect.stringContaining('Too many GET requests for this API key (2 per 60 s)') });
  });
});
