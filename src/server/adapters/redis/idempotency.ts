import type { IdempotencyRepository } from '../../ports/index.js';
import type { RedisAccess } from './access.js';
import { RedisUnavailableError, fenceAt } from './client.js';
import { CLAIM_IDEMPOTENCY_KEY, RELEASE_IDEMPOTENCY_KEY } from './scripts.js';

/**
 * Idempotency-Key claims in Redis: a hash each (the job it is for, when, whether bound to that job).
 * An unbound claim expires on its own; createJob binds it to its job for the life of the job.
 */
export function redisIdempotency(redis: RedisAccess): IdempotencyRepository {
  const { client, keys } = redis;
  return {
    async claimIdempotencyKey(accountId, key, jobId, now, staleAfterMs) {
      return redis.guard('claimIdempotencyKey', async () => {
        const reply = (await CLAIM_IDEMPOTENCY_KEY.run(
          client,
          [keys.idempotency(accountId, key)],
          // An unbound claim expires on its own well after it went stale, so abandoned claims do not pile up.
          [jobId, now, staleAfterMs, Math.max(60_000, staleAfterMs * 4), keys.jobPrefix(), fenceAt(client)],
        )) as string[];
        // Run after its caller gave up (Redis froze with it unread): it claimed nothing, and no one waits for this.
        if (reply[0] === 'late') throw new RedisUnavailableError('Redis ran the Idempotency-Key claim after its caller had given up; nothing was claimed');
        if (reply[0] === 'claimed') return { kind: 'claimed' };
        if (reply[0] === 'existing' && reply[1] !== undefined) return { kind: 'existing', jobId: reply[1] };
        return { kind: 'pending' };
      });
    },

    async releaseIdempotencyKey(accountId, key, jobId) {
      return redis.guard('releaseIdempotencyKey', async () => {
        await RELEASE_IDEMPOTENCY_KEY.run(client, [keys.idempotency(accountId, key)], [jobId]);
      });
    },
  };
}
