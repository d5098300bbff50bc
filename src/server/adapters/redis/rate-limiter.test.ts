import { afterAll, describe, expect, it } from 'vitest';
import { deleteKeys, redisOrSkip, uniquePrefix } from '../../../../test/helpers/redis.js';
import { describeRateLimiterContract } from '../rate-limiter.contract.js';
import { RedisRateLimiter } from './rate-limiter.js';

const redis = await redisOrSkip('RedisRateLimiter contract');
const prefix = uniquePrefix('rate');

afterAll(async () => {
  if (!redis) return;
  await deleteKeys(redis, prefix);
  redis.destroy();
});

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
