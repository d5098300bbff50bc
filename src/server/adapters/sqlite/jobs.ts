import type { CreateJobResult, JobCompletion, JobFailure, JobRecord, JobRepository } from '../../ports/index.js';
import type { SqlDatabase } from '../sqlite-driver.js';
import { ReadCache, type Row, type SqliteConnection } from './connection.js';
import type { IdempotencyClaims } from './idempotency.js';
import { INSERT_JOB, jobParams, toJob } from './job-rows.js';
import type { UsageLedger } from './usage.js';

const EXPIRED = 'SELECT id, account_id, idempotency_key, status, reserved_cm, usage_month FROM jobs WHERE delete_after <= ?';

function jobStatements(prepare: SqliteConnection['prepare']) {
  return {
    insert: prepare(INSERT_JOB),
    get: prepare('SELECT * FROM jobs WHERE id = ?'),
    // Only ever raised: a run started again, or a write that arrives late, never lowers what was shown.
    progress: prepare("UPDATE jobs SET progress = MAX(progress, ?) WHERE id = ? AND status = 'processing'"),
    complete: prepare(
      `UPDATE jobs SET status = 'completed', text = '', progress = 1, duration_seconds = @duration_seconds,
         file_size_bytes = @file_size_bytes, completed_at = @completed_at, processing_time_ms = @processing_time_ms,
         charged_cm = @charged_cm
       WHERE id = @id AND status = 'processing'`,
    ),
    fail: prepare(
      `UPDATE jobs SET status = 'failed', text = '', error_code = @error_code, error_message = @error_message,
         completed_at = @completed_at, charged_cm = 0
       WHERE id = @id AND status = 'processing'`,
    ),
    processingIds: prepare("SELECT id FROM jobs WHERE status = 'processing' ORDER BY created_at"),
    expired: prepare(`${EXPIRED} LIMIT ?`),
    expiredOf: prepare(`${EXPIRED} AND account_id IN (SELECT value FROM json_each(?)) LIMIT ?`),
    expiredNotOf: prepare(`${EXPIRED} AND account_id NOT IN (SELECT value FROM json_each(?)) LIMIT ?`),
    delete: prepare('DELETE FROM jobs WHERE id = ?'),
    recent: prepare('SELECT * FROM jobs WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?'),
  };
}

type JobStatements = ReturnType<typeof jobStatements>;

/**
 * A job's life: created with its usage reserved and its Idempotency-Key bound, in one transaction; its
 * progress raised; settled once (completed or failed) in one transaction with its usage.
 */
function jobLife(
  db: SqlDatabase,
  stmts: JobStatements,
  ledger: UsageLedger,
  claims: IdempotencyClaims,
): Pick<JobRepository, 'createJob' | 'updateProgress' | 'completeJob' | 'failJob'> {
  /** Runs `settle` on the job's row, in a transaction, when the job is still processing. */
  const settleProcessing = (id: string, settle: (job: Row) => void): boolean =>
    db.immediate((): boolean => {
      const job = stmts.get.get(id) as Row | undefined;
      if (job?.status !== 'processing') return false;
      settle(job);
      return true;
    });

  return {
    async createJob(job, limitCentiminutes) {
      return db.immediate((): CreateJobResult => {
        ledger.ensure.run(job.accountId, job.usageMonth);
        const usage = ledger.get.get(job.accountId, job.usageMonth) as Row;
        const used = (usage.settled_cm as number) + (usage.reserved_cm as number);
        if (used + job.reservedCentiminutes > limitCentiminutes) {
          return { kind: 'usage_exceeded', usedCentiminutes: used, limitCentiminutes };
        }
        ledger.reserve.run(job.reservedCentiminutes, job.accountId, job.usageMonth);
        stmts.insert.run(jobParams(job));
        if (job.idempotencyKey !== undefined) claims.bind.run(job.accountId, job.idempotencyKey, job.id);
        return { kind: 'created' };
      });
    },

    async updateProgress(id, progress) {
      stmts.progress.run(progress, id);
    },

    async completeJob(id, r: JobCompletion) {
      return settleProcessing(id, (job) => {
        stmts.complete.run({
          id,
          duration_seconds: r.durationSeconds,
          file_size_bytes: r.fileSizeBytes,
          completed_at: r.completedAt,
          processing_time_ms: r.processingTimeMs,
          charged_cm: r.chargedCentiminutes,
        });
        ledger.settle.run(job.reserved_cm, r.chargedCentiminutes, job.account_id, job.usage_month);
      });
    },

    async failJob(id, e: JobFailure) {
      return settleProcessing(id, (job) => {
        stmts.fail.run({ id, error_code: e.code, error_message: e.message, completed_at: e.completedAt });
        ledger.settle.run(job.reserved_cm, 0, job.account_id, job.usage_month);
      });
    },
  };
}

/** Reads of jobs; a finished job is read through the cache (every poll reads one). */
function jobReads({ cache }: SqliteConnection, stmts: JobStatements): Pick<JobRepository, 'getJob' | 'listProcessingJobIds' | 'listRecentJobs'> {
  const jobs = cache.map<string, JobRecord>();
  return {
    async getJob(id) {
      cache.fresh();
      const cached = jobs.get(id);
      if (cached) return cached;
      const row = stmts.get.get(id) as Row | undefined;
      const job = row && toJob(row);
      // Only finished jobs: a running one changes with every progress update.
      if (job && job.status !== 'processing') ReadCache.remember(jobs, id, job);
      return job;
    },

    async listProcessingJobIds() {
      return (stmts.processingIds.all() as Row[]).map((r) => r.id as string);
    },

    async listRecentJobs(accountId, limit) {
      return (stmts.recent.all(accountId, limit) as Row[]).map(toJob);
    },
  };
}

/** Jobs past their retention deleted (with their claims, and the reservation of one still processing); legacy jobs imported. */
function jobRetention(
  db: SqlDatabase,
  stmts: JobStatements,
  ledger: UsageLedger,
  claims: IdempotencyClaims,
): Pick<JobRepository, 'deleteExpiredJobs' | 'importLegacyJob'> {
  return {
    async deleteExpiredJobs(now, limit, accounts) {
      return db.immediate((): string[] => {
        const rows = (
          accounts === undefined
            ? stmts.expired.all(now, limit)
            : (accounts.except ? stmts.expiredNotOf : stmts.expiredOf).all(now, JSON.stringify(accounts.ids), limit)
        ) as Row[];
        for (const r of rows) {
          // A job deleted while still processing gives its reservation back.
          if (r.status === 'processing') ledger.settle.run(r.reserved_cm, 0, r.account_id, r.usage_month);
          if (r.idempotency_key !== null) claims.deleteOf.run(r.account_id, r.idempotency_key, r.id);
          stmts.delete.run(r.id);
        }
        return rows.map((r) => r.id as string);
      });
    },

    async importLegacyJob(job) {
      stmts.insert.run(jobParams(job));
    },
  };
}

/** Jobs in the `jobs` table, their usage (`ledger`) and Idempotency-Keys (`claims`) changed in the same transactions. */
export function sqliteJobs(connection: SqliteConnection, ledger: UsageLedger, claims: IdempotencyClaims): JobRepository {
  const stmts = jobStatements(connection.prepare);
  return {
    ...jobLife(connection.db, stmts, ledger, claims),
    ...jobReads(connection, stmts),
    ...jobRetention(connection.db, stmts, ledger, claims),
  };
}
