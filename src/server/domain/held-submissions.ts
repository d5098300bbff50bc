import { type IdempotencyRepository, type JobRecord, type JobRepository, systemClock } from '../ports/index.js';
import type { Principal } from './auth.js';
import { ANSWER_UNWANTED_MESSAGE, ClientClosedError } from './errors.js';
import type { JobState } from './job-state.js';
import type { BucketReport, RateLimited } from './rate-limits.js';

/** A claim never bound to a job (its holder died) is taken over after this long. */
const STALE_CLAIM_MS = 30_000;
const CLAIM_POLL_MS = 20;

/**
 * A submission whose headers have been judged (no replay, a place taken in the key's POST bucket)
 * while its body is still unread. It ends one of two ways: `admitHeld` makes its job, or `giveBack`
 * frees its Idempotency-Key and its place (a request refused for its body takes no POST quota).
 */
export interface HeldSubmission {
  readonly principal: Principal;
  readonly jobId: string;
  readonly idempotencyKey: string | undefined;
  readonly bucket: BucketReport;
  /** Set once the submission was taken over by `admitHeld` or given back. */
  settled: boolean;
}

/** What the headers alone decide: a replay, a refusal by the rate limit, or a held place. */
export type Reservation = { bucket: BucketReport } & ({ kind: 'held'; held: HeldSubmission } | { kind: 'job'; state: JobState; replayed: true } | RateLimited);

/**
 * Claims the Idempotency-Key for `jobId` first, so concurrent requests with one key all end up on
 * one job: undefined once claimed, or the job the key already names (a replay). A holder that died
 * is taken over after STALE_CLAIM_MS, so this wait is bounded. Claims are stamped and judged in real
 * time (systemClock, not the injected clock): a claim goes stale when its holder has been silent
 * that long, however a test clock moves; the wait is measured on the monotonic clock.
 */
export async function claimIdempotencyKey(
  store: Pick<IdempotencyRepository, 'claimIdempotencyKey'> & Pick<JobRepository, 'getJob'>,
  accountId: string,
  idem: string,
  jobId: string,
  signal: AbortSignal,
): Promise<JobRecord | undefined> {
  const giveUpAt = performance.now() + STALE_CLAIM_MS + 5_000;
  for (;;) {
    const claim = await store.claimIdempotencyKey(accountId, idem, jobId, systemClock.now(), STALE_CLAIM_MS);
    if (claim.kind === 'claimed') return undefined;
    if (claim.kind === 'existing') {
      const job = await store.getJob(claim.jobId);
      if (job) return job;
    }
    if (signal.aborted) throw new ClientClosedError(ANSWER_UNWANTED_MESSAGE);
    if (performance.now() > giveUpAt) throw new Error(`Idempotency-Key claim of account ${accountId} did not settle`);
    await new Promise((r) => setTimeout(r, CLAIM_POLL_MS));
  }
}

/** Releases the submission's claim of its Idempotency-Key, if it has one (nothing bound to a job is released). */
export function releaseClaim(
  store: Pick<IdempotencyRepository, 'releaseIdempotencyKey'>,
  principal: Principal,
  idem: string | undefined,
  jobId: string,
): Promise<void> {
  return idem === undefined ? Promise.resolve() : store.releaseIdempotencyKey(principal.account.id, idem, jobId);
}
