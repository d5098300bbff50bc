import type { UsageRepository } from '../../ports/index.js';
import type { RedisAccess } from './access.js';

/**
 * The usage ledger in Redis: a hash per account and month with its settled and reserved hundredths
 * of a minute; the job scripts reserve, settle and release, this reads and sets.
 */
export function redisUsage(redis: RedisAccess): UsageRepository {
  const { client, keys } = redis;
  return {
    async getUsage(accountId, month) {
      return redis.guard('getUsage', async () => {
        const key = keys.usage(accountId, month);
        const used = await redis.cached(key, async () => {
          const [settled, reserved] = await client.hmGet(key, ['settled', 'reserved']);
          return Number(settled ?? 0) + Number(reserved ?? 0);
        });
        return { usedCentiminutes: used };
      });
    },

    async setUsage(accountId, month, usedCentiminutes) {
      return redis.guard('setUsage', async () => {
        await client.hSet(keys.usage(accountId, month), 'settled', String(usedCentiminutes));
      });
    },
  };
}
