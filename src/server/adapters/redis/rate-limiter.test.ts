import { describe, expect, it } from 'vitest';
import { redisForFile } from '../../../../test/helpers/redis.js';
import { describeRateLimiterContract } from '../rate-limiter.contract.js';
import { RedisRateLimiter } from './rate-limiter.js';

const { redis, prefix } = await redisForFile('RedisRateLimiter contract', 'rate');

describeRateLimiterContract('RedisRateLimiter', async (clock) => ({ limiter: new RedisRateLimiter(redis!, prefix, clock), close: async () => undefined }), {
  skip: !redis,
});

describe.skipIf(!redis)('RedisRateLimiter on Redis time', () => {
  it('shares one window between limiters (instances) and lets its keys expire with the window', async () => {
    const first = new RedisRateLimiter(redis!, prefix);
    const second = new RedisRateLimiter(redis!, prefix);
    const decisions = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? first : second).check('post:shared', 1, 60_000, true)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(1);
    const ttl = await redis!.pTTL(`${prefix}rate:post:shared`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});

/** The test Redis, in the suites that run only with one. */
function live(): NonNullable<typeof redis> {
  if (!redis) throw new Error('no test Redis');
  return redis;
}

describe.skipIf(!redis)('RedisRateLimiter batches the checks of one turn', () => {
  it('sends the checks that arrive together as one script call, and decides them in order as one call each would', async () => {
    const limiter = new RedisRateLimiter(live(), prefix);
    const monitor = live().duplicate();
    monitor.on('error', () => undefined);
    await monitor.connect();
    const calls: string[] = [];
    const sentinel = `${prefix}batch-end`;
    let sawSentinel: () => void = () => undefined;
    const seen = new Promise<void>((resolve) => (sawSentinel = resolve));
    await monitor.monitor((line) => {
      if (line.includes(sentinel)) sawSentinel();
      else if (line.includes(`${prefix}rate:batch-`) && /"(evalsha|eval)"/i.test(line)) calls.push(line);
    });
    try {
      // Two buckets interleaved, limit 3 each: the first three of each are admitted, in order.
      const decisions = await Promise.all(Array.from({ length: 10 }, (_, i) => limiter.check(`batch-${i % 2}`, 3, 60_000, true)));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, true, false, false, false, false]);
      expect(decisions.map((d) => d.remaining)).toEqual([2, 2, 1, 1, 0, 0, 0, 0, 0, 0]);
      expect(decisions.filter((d) => d.admission).length).toBe(6);
      // A check that does not consume sees the window as the batch left it.
      const peek = await limiter.check('batch-0', 3, 60_000, false);
      expect(peek).toMatchObject({ allowed: false, remaining: 0 });
      expect(peek.resetSeconds).toBeGreaterThanOrEqual(59);
      await live().get(sentinel);
      await seen;
      // The ten of the first turn went as one call; the peek as a second.
      expect(calls).toHaveLength(2);
      expect(await live().zCard(`${prefix}rate:batch-0`)).toBe(3);
    } finally {
      monitor.destroy();
    }
  });

  it('fails every check of a batch when Redis refuses it, and the next batch works', async () => {
    const limiter = new RedisRateLimiter(live(), prefix);
    // A bucket holding a string makes the script fail (WRONGTYPE): each check of its batch is rejected, none hangs.
    await live().set(`${prefix}rate:batch-bad`, 'not a sorted set');
    const failing = await Promise.allSettled([limiter.check('batch-bad', 1, 60_000, true), limiter.check('batch-fine', 1, 60_000, true)]);
    expect(failing.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((failing[0] as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
    await expect(limiter.check('batch-good', 1, 60_000, true)).resolves.toMatchObject({ allowed: true });
  });
});
