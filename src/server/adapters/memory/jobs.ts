import type { ClaimResult, IdempotencyRepository, JobRecord, JobRepository, UsageRepository } from '../../ports/index.js';
import { byTwo, claimName, copy, type MemoryState, settleUsage, usageName } from './state.js';

/**
 * Idempotency-Keys claimed before their jobs exist. Each method runs to its end without awaiting, so
 * it is atomic in this process as SQLite's transactions are.
 */
export function memoryIdempotency(state: MemoryState): IdempotencyRepository {
  return {
    async claimIdempotencyKey(accountId, key, jobId, now, staleAfterMs): Promise<ClaimResult> {
      const name = claimName(accountId, key);
      const claim = state.claims.get(name);
      if (!claim) {
        state.claims.set(name, { jobId, claimedAt: now, bound: false });
        return { kind: 'claimed' };
      }
      if (claim.bound) return { kind: 'existing', jobId: claim.jobId };
      if (now - claim.claimedAt > staleAfterMs) {
        state.claims.set(name, { jobId, claimedAt: now, bound: false });
        return { kind: 'claimed' };
      }
      return { kind: 'pending' };
    },

    async releaseIdempotencyKey(accountId, key, jobId) {
      const name = claimName(accountId, key);
      const claim = state.claims.get(name);
      if (claim && claim.jobId === jobId && !claim.bound) state.claims.delete(name);
    },
  };
}

/** Monthly usage: settled plus reserved; administration sets the settled part. */
export function memoryUsage(state: MemoryState): UsageRepository {
  return {
    async getUsage(accountId, month) {
      const row = state.usage.get(usageName(accountId, month));
      return { usedCentiminutes: row ? row.settled + row.reserved : 0 };
    },

    async setUsage(accountId, month, usedCentiminutes) {
      const name = usageName(accountId, month);
      const row = state.usage.get(name);
      if (row) row.settled = usedCentiminutes;
      else state.usage.set(name, { settled: usedCentiminutes, reserved: 0 });
    },
  };
}

/** The end of a slice of at most `limit` items; a negative limit is none, as SQLite's LIMIT -1. */
const upTo = (limit: number): number | undefined => (limit < 0 ? undefined : limit);

function insertJob(state: MemoryState, job: JobRecord): void {
  if (state.jobs.has(job.id)) throw new Error(`A job with id ${job.id} already exists.`);
  state.jobs.set(job.id, copy(job));
}

/** The job if it is still processing, to be settled; undefined otherwise. */
function processing(state: MemoryState, id: string): JobRecord | undefined {
  const job = state.jobs.get(id);
  return job?.status === 'processing' ? job : undefined;
}

/** A job's life: created with its usage reserved and its key bound in one step; its progress raised; settled once. */
function jobLife(state: MemoryState): Pick<JobRepository, 'createJob' | 'updateProgress' | 'completeJob' | 'failJob'> {
  return {
    async createJob(job, limitCentiminutes) {
      const name = usageName(job.accountId, job.usageMonth);
      const row = state.usage.get(name) ?? { settled: 0, reserved: 0 };
      state.usage.set(name, row);
      const used = row.settled + row.reserved;
      if (used + job.reservedCentiminutes > limitCentiminutes) return { kind: 'usage_exceeded', usedCentiminutes: used, limitCentiminutes };
      insertJob(state, job);
      row.reserved += job.reservedCentiminutes;
      if (job.idempotencyKey !== undefined) {
        const claim = state.claims.get(claimName(job.accountId, job.idempotencyKey));
        if (claim?.jobId === job.id) claim.bound = true;
      }
      return { kind: 'created' };
    },

    async updateProgress(id, progress) {
      const job = processing(state, id);
      if (job) job.progress = Math.max(job.progress, progress);
    },

    async completeJob(id, r) {
      const job = processing(state, id);
      if (!job) return false;
      Object.assign(job, {
        status: 'completed',
        text: '',
        progress: 1,
        durationSeconds: r.durationSeconds,
        fileSizeBytes: r.fileSizeBytes,
        completedAt: r.completedAt,
        processingTimeMs: r.processingTimeMs,
        chargedCentiminutes: r.chargedCentiminutes,
      });
      settleUsage(state, job.accountId, job.usageMonth, job.reservedCentiminutes, r.chargedCentiminutes);
      return true;
    },

    async failJob(id, e) {
      const job = processing(state, id);
      if (!job) return false;
      Object.assign(job, { status: 'failed', text: '', errorCode: e.code, errorMessage: e.message, completedAt: e.completedAt, chargedCentiminutes: 0 });
      settleUsage(state, job.accountId, job.usageMonth, job.reservedCentiminutes, 0);
      return true;
    },
  };
}

/** Reads of jobs, each a copy. */
function jobReads(state: MemoryState): Pick<JobRepository, 'getJob' | 'listProcessingJobIds' | 'listRecentJobs'> {
  return {
    async getJob(id) {
      const job = state.jobs.get(id);
      return job && copy(job);
    },

    async listProcessingJobIds() {
      const running = [...state.jobs.values()].filter((j) => j.status === 'processing');
      // A stable sort: jobs created in the same millisecond keep the order they were created in.
      return running.sort((a, b) => a.createdAt - b.createdAt).map((j) => j.id);
    },

    async listRecentJobs(accountId, limit) {
      const own = [...state.jobs.values()].filter((j) => j.accountId === accountId);
      return own
        .sort(
          byTwo(
            (j) => j.createdAt,
            (j) => j.id,
          ),
        )
        .reverse()
        .slice(0, upTo(limit))
        .map(copy);
    },
  };
}

/** Jobs past their retention deleted (with their claims, and the reservation of one still processing); legacy jobs imported. */
function jobRetention(state: MemoryState): Pick<JobRepository, 'deleteExpiredJobs' | 'importLegacyJob'> {
  return {
    async deleteExpiredJobs(now, limit, accounts) {
      const named = accounts && new Set(accounts.ids);
      const considered = (j: JobRecord) => !named || named.has(j.accountId) !== (accounts?.except ?? false);
      const expired = [...state.jobs.values()].filter((j) => j.deleteAfter <= now && considered(j));
      const batch = expired.sort((a, b) => a.deleteAfter - b.deleteAfter).slice(0, upTo(limit));
      for (const job of batch) {
        // A job deleted while still processing gives its reservation back.
        if (job.status === 'processing') settleUsage(state, job.accountId, job.usageMonth, job.reservedCentiminutes, 0);
        if (job.idempotencyKey !== undefined) {
          const name = claimName(job.accountId, job.idempotencyKey);
          if (state.claims.get(name)?.jobId === job.id) state.claims.delete(name);
        }
        state.jobs.delete(job.id);
      }
      return batch.map((j) => j.id);
    },

    async importLegacyJob(job) {
      insertJob(state, job);
    },
  };
}

/** Jobs with their usage and Idempotency-Keys changed in the same step. */
export function memoryJobs(state: MemoryState): JobRepository {
  return { ...jobLife(state), ...jobReads(state), ...jobRetention(state) };
}
