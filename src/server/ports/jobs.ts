// Jobs, the Idempotency-Keys that bind requests to them, and the usage they reserve and charge.

type StoredJobStatus = 'processing' | 'completed' | 'failed';

export interface JobRecord {
  id: string;
  accountId: string;
  keyPublicId: string;
  status: StoredJobStatus;
  text: string;
  voice: string;
  language: string;
  speed: number;
  /** `word` when the submission asked for word timings and captions (an extension beyond the base API). */
  timestamps?: 'word';
  createdAt: number;
  /** When the record and its audio are deleted (the plan's retention). */
  deleteAfter: number;
  /** Usage reserved at submission, in hundredths of a minute. */
  reservedCentiminutes: number;
  /** Usage settled on completion, in hundredths of a minute. */
  chargedCentiminutes?: number;
  /** Calendar month (UTC, `YYYY-MM`) the usage belongs to. */
  usageMonth: string;
  progress: number;
  completedAt?: number;
  processingTimeMs?: number;
  durationSeconds?: number;
  fileSizeBytes?: number;
  errorCode?: 'TTS_PROVIDER_ERROR' | 'INTERNAL_ERROR';
  errorMessage?: string;
  idempotencyKey?: string;
  /** Legacy jobs only: when their audio is (or was) deleted. */
  legacyExpiresAt?: number;
}

export interface UsageFigures {
  /** Settled plus reserved, in hundredths of a minute. */
  usedCentiminutes: number;
}

export type ClaimResult =
  | { kind: 'claimed' }
  | { kind: 'existing'; jobId: string }
  /** Another request holds the key and has not created its job yet. */
  | { kind: 'pending' };

export type CreateJobResult = { kind: 'created' } | { kind: 'usage_exceeded'; usedCentiminutes: number; limitCentiminutes: number };

/** Idempotency-Keys: a request claims its key before its job exists, and releases it when it fails. */
export interface IdempotencyRepository {
  /**
   * Claims an Idempotency-Key for an account. A claim that never got its job (its holder crashed)
   * is taken over after `staleAfterMs`.
   */
  claimIdempotencyKey(accountId: string, key: string, jobId: string, now: number, staleAfterMs: number): Promise<ClaimResult>;
  releaseIdempotencyKey(accountId: string, key: string, jobId: string): Promise<void>;
}

/** The outcome of a job, settled once by whoever ran it. */
export interface JobCompletion {
  durationSeconds: number;
  fileSizeBytes: number;
  completedAt: number;
  processingTimeMs: number;
  chargedCentiminutes: number;
}

/** A job that could not be synthesized. */
export interface JobFailure {
  code: 'TTS_PROVIDER_ERROR' | 'INTERNAL_ERROR';
  message: string;
  completedAt: number;
}

/** Jobs through their life: created with their usage reserved, run, settled, listed, expired. */
export interface JobRepository {
  /** Atomically: checks and reserves usage for the month, inserts the job, binds its Idempotency-Key. */
  createJob(job: JobRecord, limitCentiminutes: number): Promise<CreateJobResult>;
  getJob(id: string): Promise<JobRecord | undefined>;
  /** Raises a processing job's progress; never lowers it (a run started again, or a late write, keeps what was shown). */
  updateProgress(id: string, progress: number): Promise<void>;
  /** Settles usage (reserved → charged) and marks the job completed; no-op unless processing. */
  completeJob(id: string, result: JobCompletion): Promise<boolean>;
  /** Releases the reservation and marks the job failed; no-op unless processing. */
  failJob(id: string, error: JobFailure): Promise<boolean>;
  listProcessingJobIds(): Promise<string[]>;
  /** The account's most recent jobs, newest first. */
  listRecentJobs(accountId: string, limit: number): Promise<JobRecord[]>;
  /**
   * Deletes up to `limit` jobs whose retention has passed; returns their ids so their audio can be
   * deleted. `accounts` limits it to the jobs of some accounts (the sandbox, whose test clocks each
   * judge the jobs of their own accounts).
   */
  deleteExpiredJobs(now: number, limit: number, accounts?: AccountFilter): Promise<string[]>;
  /** Legacy import (FILE_EXPIRED path). */
  importLegacyJob(job: JobRecord): Promise<void>;
}

/** Monthly usage per account: reserved and charged by jobs, read for quotas, set by administration. */
export interface UsageRepository {
  getUsage(accountId: string, month: string): Promise<UsageFigures>;
  /** Sets settled usage (administration and seeding). */
  setUsage(accountId: string, month: string, usedCentiminutes: number): Promise<void>;
}

/** Which accounts' jobs a deletion considers: those named, or with `except`, every other account's. */
interface AccountFilter {
  ids: readonly string[];
  except?: boolean;
}
