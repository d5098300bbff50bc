import type { JobRepository } from '../../ports/index.js';
import type { RedisAccess } from './access.js';
import { pairs } from './hashes.js';
import { DELETE_EXPIRED_JOB, SETTLE_JOB } from './scripts.js';

/** A job's immutable ledger coordinates: the usage hash it reserved in, and its Idempotency-Key claim. */
interface Ledger {
  accountId: string;
  usageMonth: string;
  idempotencyKey?: string;
}

/** Reads the job's ledger coordinates, so a script can name every key it writes. */
async function ledgerOf(redis: RedisAccess, id: string): Promise<Ledger | undefined> {
  const [accountId, usageMonth, idempotencyKey] = await redis.client.hmGet(redis.keys.job(id), ['accountId', 'usageMonth', 'idempotencyKey']);
  if (!accountId || !usageMonth) return undefined;
  return { accountId, usageMonth, idempotencyKey: idempotencyKey ?? undefined };
}

/** Ends a processing job with `fields`: its reservation leaves the usage ledger and `charged` enters it. */
async function settle(redis: RedisAccess, id: string, charged: number, fields: Record<string, unknown>): Promise<boolean> {
  const { client, keys } = redis;
  const ledger = await ledgerOf(redis, id);
  if (!ledger) return false;
  const settled = await SETTLE_JOB.run(
    client,
    [keys.job(id), keys.usage(ledger.accountId, ledger.usageMonth), keys.processingJobs()],
    [id, charged, ...pairs(fields)],
  );
  return settled === 1;
}

/** The end of a job: settled once by whoever ran it, or deleted when its retention has passed. */
export function redisJobSettlement(redis: RedisAccess): Pick<JobRepository, 'completeJob' | 'failJob' | 'deleteExpiredJobs'> {
  const { client, keys } = redis;
  return {
    async completeJob(id, r) {
      return redis.guard('completeJob', async () => {
        return settle(redis, id, r.chargedCentiminutes, {
          status: 'completed',
          // The text is only needed to synthesize; a completed record does not keep it.
          text: '',
          progress: 1,
          durationSeconds: r.durationSeconds,
          fileSizeBytes: r.fileSizeBytes,
          completedAt: r.completedAt,
          processingTimeMs: r.processingTimeMs,
          chargedCentiminutes: r.chargedCentiminutes,
        });
      });
    },

    async failJob(id, e) {
      return redis.guard('failJob', async () => {
        return settle(redis, id, 0, {
          status: 'failed',
          text: '',
          errorCode: e.code,
          errorMessage: e.message,
          completedAt: e.completedAt,
          chargedCentiminutes: 0,
        });
      });
    },

    async deleteExpiredJobs(now, limit, accounts) {
      return redis.guard('deleteExpiredJobs', async () => {
        const deleted: string[] = [];
        // Without `accounts`, one page of the expiry index; with it, pages until `limit` jobs of those
        // accounts are deleted or the expired jobs run out (the ones passed over stay, so the offset skips them).
        for (let offset = 0; deleted.length < limit; ) {
          const ids = await client.zRangeByScore(keys.jobExpiry(), '-inf', now, { LIMIT: { offset, count: limit } });
          for (const id of ids) {
            if (deleted.length >= limit) break;
            const ledger = await ledgerOf(redis, id);
            if (accounts && !(ledger !== undefined && accounts.ids.includes(ledger.accountId) !== (accounts.except ?? false))) {
              offset++;
              continue;
            }
            const claimKey = ledger?.idempotencyKey !== undefined ? keys.idempotency(ledger.accountId, ledger.idempotencyKey) : keys.idempotency('-', '');
            const usageKey = ledger ? keys.usage(ledger.accountId, ledger.usageMonth) : keys.usage('-', '-');
            const removed = await DELETE_EXPIRED_JOB.run(client, [keys.job(id), keys.jobExpiry(), keys.processingJobs(), usageKey, claimKey], [id]);
            if (removed === 1) deleted.push(id);
            // The account's index of recent jobs forgets it too (listRecentJobs also drops ids it cannot find).
            if (ledger) await client.zRem(keys.accountJobs(ledger.accountId), id);
          }
          if (!accounts || ids.length < limit) break;
        }
        return deleted;
      });
    },
  };
}
