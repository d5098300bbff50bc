/**
 * Ports of the reference server: what the domain needs from the outside world. The embedded default
 * implements them with SQLite, an in-process rate limiter and queue and the local disk; the distributed
 * mode with Redis and BullMQ. One contract test suite per port runs against every adapter.
 */
import type { PlanId, SubscriptionStatus } from '@agent-tts/contract/plans.js';

/**
 * The time every time-dependent rule reads (rate-limit windows, audio URL expiry, retention, the usage
 * month, job timestamps), in milliseconds since the epoch. The server runs on `systemClock`; the sandbox
 * injects a test clock it can move. Real-time waits (the inline wait, idempotency claims, timeouts) do not use it.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface Account {
  id: string;
  name: string;
  plan: PlanId;
  subscription: SubscriptionStatus;
  createdAt: number;
}

export interface ApiKeyRecord {
  publicId: string;
  accountId: string;
  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  secretHash: string;
  name: string;
  createdAt: number;
  lastUsedAt?: number;
  callCount: number;
  revokedAt?: number;
}

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

/** A dashboard session: only the SHA-256 of its id is stored. */
export interface SessionRecord {
  idHash: string;
  accountId: string;
  createdAt: number;
  expiresAt: number;
}

/** A one-time sign-in token: only its SHA-256 is stored. */
export interface SignInTokenRecord {
  tokenHash: string;
  accountId: string;
  expiresAt: number;
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

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window admits another request (≥ 1 when refused). */
  resetSeconds: number;
  /** Present when this check took a place: hand it to `refund` to give the place back. */
  admission?: string;
}

export interface RateLimiter {
  /** Takes one request from the bucket when `consume` is true; otherwise only reports it. */
  check(bucket: string, limit: number, windowMs: number, consume: boolean): Promise<RateLimitDecision>;
  /**
   * Gives back the place an admission took, for a request that turned out to be refused for another
   * reason (a rejected request consumes no quota). A no-op once the admission has left the window.
   */
  refund(bucket: string, admission: string): Promise<void>;
  close(): Promise<void>;
}

/** An inclusive byte range of a stored file. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A job's audio being written: nothing shows under the job's key until `commit`. */
export interface AudioWriter {
  /** Appends bytes in order; resolves once they are accepted (back-pressure for the encoder). */
  write(bytes: Uint8Array): Promise<void>;
  /** Makes what was written the job's audio (replacing any), at once for every reader. */
  commit(): Promise<{ size: number }>;
  /** Discards what was written; the job's committed audio, if any, is untouched. Safe to call twice. */
  abort(): Promise<void>;
}

/** The audio storage's backend cannot be reached (an object store down): retry later. */
export class AudioStorageUnavailableError extends Error {
  override readonly name = 'AudioStorageUnavailableError';
}

/**
 * Audio files addressed by job id, never by path, so that a backend is one adapter: a local directory
 * (default) or an object store. Partial writes of a job are kept apart from finished audio, so a dead
 * run's leftovers can be found without listing every stored file.
 */
export interface AudioStorage {
  /** Starts writing a job's audio from a stream of encoded bytes. */
  createWriter(jobId: string): Promise<AudioWriter>;
  /** Stores a finished file (e.g. an imported recording) as a job's audio. */
  putFile(jobId: string, path: string): Promise<{ size: number }>;
  stat(jobId: string): Promise<{ size: number } | undefined>;
  /** The job's audio, whole or one byte range (already checked against `stat`); undefined when absent. */
  open(jobId: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined>;
  delete(jobId: string): Promise<void>;
  /** Deletes the audio of several jobs, as `delete` does each, in as few backend requests as it allows (the retention sweep). */
  deleteMany(jobIds: readonly string[]): Promise<void>;
  /**
   * Removes partial writes of this job left by interrupted runs: those untouched for `olderThanMs`
   * (default: the adapter's own notion of stale, since another run may still be writing).
   */
  removeLeftovers(jobId: string, olderThanMs?: number): Promise<void>;
  /** Ids of jobs that have partial writes untouched for `olderThanMs` (default as above). */
  listLeftovers(olderThanMs?: number): Promise<string[]>;
  /** Throws when the backend cannot be used (readiness). */
  ping(): Promise<void>;
}

/** A local copy of one job's audio as it is made: a file only this process reads. */
export interface AudioSpoolFile {
  /** Where it is, for `AudioStorage.putFile` once `close` has resolved. */
  readonly path: string;
  /** Appends bytes in order. */
  write(bytes: Uint8Array): Promise<void>;
  /** Ends the writing (the file is complete). */
  close(): Promise<void>;
  /** Removes the file. Safe to call twice. */
  discard(): Promise<void>;
}

/**
 * Local files that keep a job's audio while it is streamed to an audio store that may fail (an
 * object store): when the store cannot be reached, the finished audio is saved from the copy once
 * the store answers again, instead of being synthesized again.
 */
export interface AudioSpool {
  create(jobId: string): Promise<AudioSpoolFile>;
}

export interface JobQueue {
  enqueue(jobId: string): Promise<void>;
  /** Resolves when the job reaches a final status or the time runs out (the caller reads the store). */
  waitForFinish(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
  /** Jobs by queue state, for metrics (cluster-wide for a shared queue). */
  stats?(): Promise<QueueStats>;
  /** Throws when the queue's backend is unreachable (readiness). */
  ping?(): Promise<void>;
}

export interface QueueStats {
  waiting: number;
  active: number;
  delayed?: number;
  failed?: number;
}
