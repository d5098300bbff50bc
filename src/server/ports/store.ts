import type { AccountRepository, KeyRepository } from './accounts.js';
import type { IdempotencyRepository, JobRepository, UsageRepository } from './jobs.js';
import type { SessionRepository } from './sessions.js';

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

/** The connection under the repositories: whether the backend answers, and closing it. */
export interface StoreConnection {
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The persistent state, one repository per aggregate (accounts.ts, jobs.ts, sessions.ts). One backend
 * holds them all, because `createJob` checks the month's usage, inserts the job and binds its
 * Idempotency-Key in one atomic step; so each store adapter implements every repository over one
 * connection, and each domain service names only the repositories it uses.
 */
export type Store = AccountRepository & KeyRepository & IdempotencyRepository & JobRepository & UsageRepository & SessionRepository & StoreConnection;
