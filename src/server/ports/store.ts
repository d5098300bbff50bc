import type { Account, ApiKeyRecord } from './accounts.js';
import type { ClaimResult, CreateJobResult, JobRecord, UsageFigures } from './jobs.js';
import type { SessionRecord, SignInTokenRecord } from './sessions.js';

/**
 * The store's backend did not answer within its deadline, or is unreachable: the operation was given
 * up (and, for a write, either happened before the backend stopped answering or never will; see the
 * adapter). Answered as INTERNAL_ERROR; the client retries with backoff and the same Idempotency-Key.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';

  /** `timedOut`: the backend did not answer in time (rather than refusing the connection). */
  constructor(message: string, options?: { cause?: unknown; timedOut?: boolean }) {
    super(message, options);
    this.timedOut = options?.timedOut ?? false;
  }

  readonly timedOut: boolean;
}

/**
 * The persistent state of accounts, API keys, jobs (with their Idempotency-Keys and usage) and dashboard
 * sessions, as one interface that every store adapter implements whole; its records are defined per
 * aggregate beside it (accounts.ts, jobs.ts, sessions.ts).
 */
export interface Store {
  createAccount(account: Account): Promise<void>;
  getAccount(id: string): Promise<Account | undefined>;
  updateAccount(id: string, patch: Partial<Pick<Account, 'name' | 'plan' | 'subscription'>>): Promise<boolean>;
  listAccounts(): Promise<Account[]>;

  /** Atomically refuses (returns false) while the account already has an active key. */
  createKey(key: ApiKeyRecord): Promise<boolean>;
  getKey(publicId: string): Promise<ApiKeyRecord | undefined>;
  listKeys(accountId?: string): Promise<ApiKeyRecord[]>;
  renameKey(publicId: string, name: string): Promise<boolean>;
  revokeKey(publicId: string, at: number): Promise<boolean>;
  /** Adds calls and moves last-used forward (batched by the caller). */
  recordKeyUse(publicId: string, calls: number, lastUsedAt: number): Promise<void>;

  /**
   * Claims an Idempotency-Key for an account. A claim that never got its job (its holder crashed)
   * is taken over after `staleAfterMs`.
   */
  claimIdempotencyKey(accountId: string, key: string, jobId: string, now: number, staleAfterMs: number): Promise<ClaimResult>;
  releaseIdempotencyKey(accountId: string, key: string, jobId: string): Promise<void>;

  /** Atomically: checks and reserves usage for the month, inserts the job, binds its Idempotency-Key. */
  createJob(job: JobRecord, limitCentiminutes: number): Promise<CreateJobResult>;
  getJob(id: string): Promise<JobRecord | undefined>;
  /** Raises a processing job's progress; never lowers it (a run started again, or a late write, keeps what was shown). */
  updateProgress(id: string, progress: number): Promise<void>;
  /** Settles usage (reserved → charged) and marks the job completed; no-op unless processing. */
  completeJob(
    id: string,
    result: { durationSeconds: number; fileSizeBytes: number; completedAt: number; processingTimeMs: number; chargedCentiminutes: number },
  ): Promise<boolean>;
  /** Releases the reservation and marks the job failed; no-op unless processing. */
  failJob(id: string, error: { code: 'TTS_PROVIDER_ERROR' | 'INTERNAL_ERROR'; message: string; completedAt: number }): Promise<boolean>;
  listProcessingJobIds(): Promise<string[]>;
  /** Deletes jobs whose retention has passed; returns their ids so their audio can be deleted. */
  deleteExpiredJobs(now: number, limit: number): Promise<string[]>;
  /** Legacy import (FILE_EXPIRED path). */
  importLegacyJob(job: JobRecord): Promise<void>;

  /** The account's most recent jobs, newest first. */
  listRecentJobs(accountId: string, limit: number): Promise<JobRecord[]>;

  createSession(session: SessionRecord): Promise<void>;
  /** The session, unless absent or expired at `now`. */
  getSession(idHash: string, now: number): Promise<SessionRecord | undefined>;
  deleteSession(idHash: string): Promise<void>;
  createSignInToken(token: SignInTokenRecord): Promise<void>;
  /** Atomically takes the token (single use): its account, unless absent, already used or expired at `now`. */
  consumeSignInToken(tokenHash: string, now: number): Promise<string | undefined>;

  getUsage(accountId: string, month: string): Promise<UsageFigures>;
  /** Sets settled usage (administration and seeding). */
  setUsage(accountId: string, month: string, usedCentiminutes: number): Promise<void>;

  ping(): Promise<void>;
  close(): Promise<void>;
}
