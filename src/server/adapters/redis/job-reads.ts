import type { JobRecord, JobRepository } from '../../ports/index.js';
import type { RedisAccess } from './access.js';
import { type Hash, isEmpty } from './hashes.js';

const JOB_NUMBERS = [
  'speed',
  'createdAt',
  'deleteAfter',
  'reservedCentiminutes',
  'chargedCentiminutes',
  'progress',
  'completedAt',
  'processingTimeMs',
  'durationSeconds',
  'fileSizeBytes',
  'legacyExpiresAt',
] as const;
const JOB_STRINGS = [
  'id',
  'accountId',
  'keyPublicId',
  'status',
  'text',
  'voice',
  'language',
  'usageMonth',
  'errorCode',
  'errorMessage',
  'idempotencyKey',
  'timestamps',
] as const;

function toJob(hash: Hash): JobRecord | undefined {
  if (isEmpty(hash) || hash.id === undefined) return undefined;
  const job: Record<string, unknown> = {};
  for (const name of JOB_STRINGS) if (hash[name] !== undefined) job[name] = hash[name];
  for (const name of JOB_NUMBERS) if (hash[name] !== undefined) job[name] = Number(hash[name]);
  return job as unknown as JobRecord;
}

/** What is read of jobs: a record, the processing ones, an account's recent ones; and a status alone. */
export interface RedisJobReads extends Pick<JobRepository, 'getJob' | 'listProcessingJobIds' | 'listRecentJobs'> {
  /** A job's status alone (not part of the port): waits poll it without fetching the whole text. */
  jobStatus(id: string): Promise<JobRecord['status'] | undefined>;
}

/** Reads of the job records (a hash each) and of the indexes of processing jobs and of each account's jobs. */
export function redisJobReads(redis: RedisAccess): RedisJobReads {
  const { client, keys } = redis;
  return {
    async getJob(id) {
      return redis.guard('getJob', async () => {
        // Only ended jobs are kept decoded: a running one changes with every progress write.
        return redis.record(keys.job(id), toJob, (job) => job !== undefined && job.status !== 'processing');
      });
    },

    async jobStatus(id) {
      return redis.guard('jobStatus', async () => {
        await redis.invalidationsIn();
        return ((await client.hGet(keys.job(id), 'status')) ?? undefined) as JobRecord['status'] | undefined;
      });
    },

    async listProcessingJobIds() {
      return redis.guard('listProcessingJobIds', async () => {
        return client.zRange(keys.processingJobs(), 0, -1);
      });
    },

    async listRecentJobs(accountId, limit) {
      return redis.guard('listRecentJobs', async () => {
        const index = keys.accountJobs(accountId);
        const jobs: JobRecord[] = [];
        // Ids of jobs deleted since (retention) are dropped from the index as they are met.
        for (let offset = 0; jobs.length < limit; offset += limit) {
          const ids = await client.zRange(index, '+inf', '-inf', { BY: 'SCORE', REV: true, LIMIT: { offset, count: limit } });
          if (ids.length === 0) break;
          const gone: string[] = [];
          for (const id of ids) {
            const job = toJob(await redis.hash(keys.job(id)));
            if (job) jobs.push(job);
            else gone.push(id);
          }
          if (gone.length > 0) {
            await client.zRem(index, gone);
            offset -= gone.length;
          }
        }
        return jobs.slice(0, limit);
      });
    },
  };
}
