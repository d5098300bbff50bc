import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateLimiter } from '../ports/index.js';

/**
 * The behaviour every RateLimiter adapter owes the domain: a rolling window per bucket, exact under
 * concurrency. The harness's limiter reads time from `clock`, which the tests move by hand.
 */
export interface RateLimiterHarness {
  limiter: RateLimiter;
  close(): Promise<void>;
}

/** What the groups of tests work with: the suite's harness, and the time its limiter reads, moved by hand. */
interface Limited {
  harness: () => RateLimiterHarness;
  clock: { now: number };
}

const bucket = () => `contract:${randomUUID()}`;

/** The admission a counted check returns, for `refund`. */
function admissionOf(decision: { admission?: string }): string {
  if (decision.admission === undefined) throw new Error('a counted check that was allowed returns its admission');
  return decision.admission;
}

export function describeRateLimiterContract(name: string, open: (clock: () => number) => Promise<RateLimiterHarness>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip ?? false)(`RateLimiter contract: ${name}`, () => {
    const clock = { now: Date.UTC(2026, 3, 10, 12, 0, 0) };
    let h: RateLimiterHarness;
    beforeAll(async () => {
      h = await open(() => clock.now);
    });
    afterAll(async () => {
      await h?.close();
    });

    const limited: Limited = { harness: () => h, clock };
    rollingWindow(limited);
    refundsAndBuckets(limited);
  });
}

/**
 * Admissions within a rolling window, refusals with the seconds until a place frees, and reports that
 * take nothing.
 */
function rollingWindow({ harness, clock }: Limited): void {
  it('admits up to the limit in a window, then refuses with the seconds until a place frees', async () => {
    const h = harness();
    const b = bucket();
    expect(await h.limiter.check(b, 3, 60_000, true)).toMatchObject({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    clock.now += 10_000;
    expect(await h.limiter.check(b, 3, 60_000, true)).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 50 });
    clock.now += 10_000;
    expect(await h.limiter.check(b, 3, 60_000, true)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 40 });
    clock.now += 500;
    const refused = await h.limiter.check(b, 3, 60_000, true);
    // 39.5 s until the first admission leaves the window: rounded up.
    expect(refused).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 40 });
    // A refusal takes nothing: the window still frees at the same time.
    clock.now += 39_500;
    expect(await h.limiter.check(b, 3, 60_000, true)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('slides: a place frees exactly when its admission is a window old', async () => {
    const h = harness();
    const b = bucket();
    await h.limiter.check(b, 1, 60_000, true);
    clock.now += 59_999;
    expect(await h.limiter.check(b, 1, 60_000, true)).toMatchObject({ allowed: false, resetSeconds: 1 });
    clock.now += 1;
    expect(await h.limiter.check(b, 1, 60_000, true)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 60 });
  });

  it('reports without taking when not consuming', async () => {
    const h = harness();
    const b = bucket();
    expect(await h.limiter.check(b, 2, 60_000, false)).toEqual({ allowed: true, limit: 2, remaining: 2, resetSeconds: 0 });
    expect(await h.limiter.check(b, 2, 60_000, false)).toMatchObject({ allowed: true, remaining: 2 });
    await h.limiter.check(b, 2, 60_000, true);
    await h.limiter.check(b, 2, 60_000, true);
    expect(await h.limiter.check(b, 2, 60_000, false)).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 60 });
  });
}

/**
 * A refunded place comes back at once; buckets are apart; concurrent requests are admitted exactly up
 * to the limit.
 */
function refundsAndBuckets({ harness, clock }: Limited): void {
  it('gives back a refunded place at once, and only that one', async () => {
    const h = harness();
    const b = bucket();
    const first = await h.limiter.check(b, 2, 60_000, true);
    clock.now += 5_000;
    const second = await h.limiter.check(b, 2, 60_000, true);
    expect(second).toMatchObject({ allowed: true, remaining: 0 });
    expect(first.admission).toBeTypeOf('string');
    expect(await h.limiter.check(b, 2, 60_000, false)).not.toHaveProperty('admission');
    await h.limiter.refund(b, admissionOf(second));
    // The first admission still holds its place and still sets the reset.
    expect(await h.limiter.check(b, 2, 60_000, false)).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 55 });
    expect(await h.limiter.check(b, 2, 60_000, true)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await h.limiter.check(b, 2, 60_000, true)).toMatchObject({ allowed: false });
    // Refunding an admission that already left the window changes nothing.
    clock.now += 57_000; // the first admission (at 0 s) has left; the one at 5 s has not
    await h.limiter.refund(b, admissionOf(first));
    expect(await h.limiter.check(b, 2, 60_000, false)).toMatchObject({ remaining: 1 });
  });

  it('keeps buckets apart', async () => {
    const h = harness();
    const a = bucket();
    const b = bucket();
    await h.limiter.check(a, 1, 60_000, true);
    expect((await h.limiter.check(a, 1, 60_000, true)).allowed).toBe(false);
    expect((await h.limiter.check(b, 1, 60_000, true)).allowed).toBe(true);
  });

  it('admits exactly the limit among concurrent requests', async () => {
    const h = harness();
    const b = bucket();
    const decisions = await Promise.all(Array.from({ length: 25 }, () => h.limiter.check(b, 7, 60_000, true)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(7);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.resetSeconds === 60)).toBe(true);
  });
}
