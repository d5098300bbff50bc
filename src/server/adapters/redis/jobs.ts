import type { JobRepository } from '../../ports/index.js';
import type { RedisAccess } from './access.js';
import { RedisUnavailableError, fenceAt } from './client.js';
import { hashOf, pairs } from './hashes.js';
import { type RedisJobReads, redisJobReads } from './job-reads.js';
import { redisJobSettlement } from './job-settlement.js';
import { CREATE_JOB, UPDATE_PROGRESS } from './scripts.js';

/**
 * A job record outlives its retention by this much: the retention sweep deletes it (and its audio) on
 * time, and the Redis TTL only catches records the sweep never reached, so no job lingers forever.
 */
const JOB_RECORD_GRACE_MS = 3_600_000;
/** Past every representable date: legacy imports use MAX_SAFE_INTEGER for "never". */
const NEVER = 8.64e15;

/**
 * When Redis itself drops the record of a job whose retention ends at `deleteAfter` ('' = never): the
 * grace after the later of that and now, so the sweep (which also frees what the job holds) always
 * gets there first, even for a record written after its retention already ended.
 */
function recordExpiry(deleteAfter: number): string {
  const at = Math.max(deleteAfter, Date.now()) + JOB_RECORD_GRACE_MS;
  return at >= NEVER ? '' : String(Math.ceil(at));
}

/** The jobs of the Redis store: the port, and a job's status read alone (see RedisJobReads). */
export type RedisJobRepository = JobRepository & RedisJobReads;

/**
 * Jobs in Redis: a hash each, with a TTL at its plan's retention (plus a grace the sweep uses); its id
 * in the sorted set by expiry (how the sweep finds the audio to delete), in the processing index while
 * it runs, and in its account's index of recent jobs.
 */
export function redisJobs(redis: RedisAccess): RedisJobRepository {
  const { client, keys } = redis;
  return {
    ...redisJobReads(redis),
    ...redisJobSettlement(redis),

    async createJob(job, limitCentiminutes) {
      return redis.guard('createJob', async () => {
        const bind = job.idempotencyKey !== undefined;
        const reply = (await CREATE_JOB.run(
          client,
          [
            keys.usage(job.accountId, job.usageMonth),
            keys.job(job.id),
            keys.processingJobs(),
            keys.jobExpiry(),
            // Without an Idempotency-Key the script never touches this key.
            keys.idempotency(job.accountId, bind ? job.idempotencyKey! : ''),
          ],
          [
            limitCentiminutes,
            job.reservedCentiminutes,
            job.id,
            job.createdAt,
            job.deleteAfter,
            recordExpiry(job.deleteAfter),
            bind ? '1' : '0',
            fenceAt(client),
            ...pairs(job),
          ],
        )) as number[];
        if (reply[0] === 2) throw new RedisUnavailableError('Redis ran the job creation after its caller had given up; nothing was created');
        if (reply[0] === 1) {
          await client.zAdd(keys.accountJobs(job.accountId), { score: job.createdAt, value: job.id });
          return { kind: 'created' };
        }
        return { kind: 'usage_exceeded', usedCentiminutes: Number(reply[1]), limitCentiminutes };
      });
    },

    async updateProgress(id, progress) {
      return redis.guard('updateProgress', async () => {
        await UPDATE_PROGRESS.run(client, [keys.job(id)], [progress]);
      });
    },

    async importLegacyJob(job) {
      return redis.guard('importLegacyJob', async () => {
        const expireAt = recordExpiry(job.deleteAfter);
        const multi = client.multi().hSet(keys.job(job.id), hashOf(job)).zAdd(keys.accountJobs(job.accountId), { score: job.createdAt, value: job.id });
        if (expireAt !== '') multi.pExpireAt(keys.job(job.id), Number(expireAt)).zAdd(keys.jobExpiry(), { score: job.deleteAfter, value: job.id });
        await multi.exec();
      });
    },
  };
}
