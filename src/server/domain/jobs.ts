import { randomUUID } from 'node:crypto';
import type { TtsRequestBody } from '@agent-tts/contract/schemas.js';
import {
  type AudioStorage,
  type Clock,
  type IdempotencyRepository,
  type JobQueue,
  type JobRecord,
  type JobRepository,
  type RateLimiter,
  StoreUnavailableError,
  type SynthesisEstimator,
  systemClock,
  type UsageRepository,
} from '../ports/index.js';
import type { Principal } from './auth.js';
import { ANSWER_UNWANTED_MESSAGE, ClientClosedError } from './errors.js';
import { JOB_NOT_FOUND_MESSAGE, usageExhaustedMessage } from './job-messages.js';
import { isLegacyExpired, type JobState, JobStates, type LiveProgressSource } from './job-state.js';
import { type BucketReport, type RateLimited, type RateLimitSettings, RateLimits } from './rate-limits.js';
import type { SpeechRequests } from './speech-request.js';
import { minutesToCentiminutes, secondsToCentiminutes, usageMonth } from './usage.js';

export interface JobServiceDeps {
  store: IdempotencyRepository & JobRepository & UsageRepository;
  queue: JobQueue;
  limiter: RateLimiter;
  audio: AudioStorage;
  estimator: SynthesisEstimator;
  requests: SpeechRequests;
  rateLimits: RateLimitSettings;
  live?: LiveProgressSource;
  /** Job timestamps, retention and the usage month (default: the system clock). */
  clock?: Clock;
}

/**
 * Told once a request's bucket is decided (and, for a submission, whether it replays a job), before
 * the rest of the call runs: every answer from there on, a failure included, reports them.
 */
type OnDecided = (decided: { bucket: BucketReport; replayed: boolean }) => void;

export interface SubmitOptions {
  /** The client's request: aborted when it goes away. */
  signal: AbortSignal;
  /** Aborted when the server shuts down: the inline wait then answers with what there is. */
  shutdown: AbortSignal;
  /** How long a new job is waited for before the answer is its processing state. */
  inlineWaitMs: number;
  onDecided?: OnDecided;
}

interface UsageExceeded {
  kind: 'usage_exceeded';
  message: string;
  usedMinutes: number;
  limitMinutes: number;
}

export type SubmitOutcome = { kind: 'job'; state: JobState; replayed: boolean } | RateLimited | UsageExceeded;

export type PollOutcome = { kind: 'job'; state: JobState } | { kind: 'not_found'; message: string } | RateLimited;

/** A submission once it is admitted or refused, before its inline wait. */
type Admission = { bucket: BucketReport; result: { kind: 'job'; job: JobRecord; replayed: boolean } | RateLimited | UsageExceeded };

/** A claim never bound to a job (its holder died) is taken over after this long. */
const STALE_CLAIM_MS = 30_000;
const CLAIM_POLL_MS = 20;
const DAY_MS = 86_400_000;

/** Best-effort clean-up that the answer does not wait for. */
const inBackground = (work: Promise<unknown>) => void work.catch(() => undefined);

/**
 * Submission and lookup of jobs, one call per request. A submission is checked in a fixed order after
 * authentication (docs/api-rules.md#order-of-checks): the request itself → idempotent replay → rate
 * limit → usage → new job. A rejected or replayed request consumes no POST quota.
 */
export class JobService {
  /** The keys' buckets, which authentication reports too. */
  readonly rateLimits: RateLimits;
  private readonly states: JobStates;

  constructor(private readonly deps: JobServiceDeps) {
    this.rateLimits = new RateLimits(deps.limiter, deps.rateLimits);
    this.states = new JobStates(deps);
  }

  /** The time of the deployment's clock (the sandbox's test clock, or the system's). */
  now(): number {
    return (this.deps.clock ?? systemClock).now();
  }

  /** The deployment's rules for a submission's voice, speed and language (its voice catalog among them). */
  get requests(): SpeechRequests {
    return this.deps.requests;
  }

  /** A submission: admitted (or refused), then, for a new job, waited for inline; the job's state then. */
  async submitAndWait(principal: Principal, body: TtsRequestBody, idempotencyKey: string | undefined, options: SubmitOptions): Promise<SubmitOutcome> {
    const { bucket, result } = await this.admit(principal, body, idempotencyKey, options.signal);
    options.onDecided?.({ bucket, replayed: result.kind === 'job' && result.replayed });
    if (result.kind !== 'job') return result;
    const job = result.replayed ? result.job : await this.waitInline(result.job, options);
    return { kind: 'job', replayed: result.replayed, state: await this.stateNow(principal, job) };
  }

  /** A poll: takes a place in the key's GET bucket, then looks the job up for the caller's account. */
  async poll(principal: Principal, jobId: string, options: { onDecided?: OnDecided } = {}): Promise<PollOutcome> {
    const bucket = await this.rateLimits.take('get', principal.key.publicId);
    if (!bucket.decision.allowed) {
      options.onDecided?.({ bucket, replayed: false });
      return this.rateLimits.refusal(bucket);
    }
    const job = await this.deps.store.getJob(jobId);
    options.onDecided?.({ bucket, replayed: false });
    // Unknown ids and other accounts' jobs look the same.
    if (job?.accountId !== principal.account.id) return { kind: 'not_found', message: JOB_NOT_FOUND_MESSAGE };
    return { kind: 'job', state: await this.stateNow(principal, job) };
  }

  private async admit(principal: Principal, body: TtsRequestBody, idem: string | undefined, signal: AbortSignal): Promise<Admission> {
    const { store, queue, estimator } = this.deps;
    const { account, key, plan } = principal;
    const request = this.deps.requests.resolve(body);
    const jobId = randomUUID();

    if (idem !== undefined) {
      const replayed = await this.claimIdempotencyKey(account.id, idem, jobId, signal);
      if (replayed) return { bucket: await this.rateLimits.peek('post', key.publicId), result: { kind: 'job', job: replayed, replayed: true } };
    }
    const release = () => (idem === undefined ? Promise.resolve() : store.releaseIdempotencyKey(account.id, idem, jobId));

    let bucket: BucketReport;
    try {
      bucket = await this.rateLimits.take('post', key.publicId);
    } catch (error) {
      // The store failed: the answer is the error now, not after a clean-up that may wait as long.
      inBackground(release());
      throw error;
    }
    if (!bucket.decision.allowed) {
      await release();
      return { bucket, result: this.rateLimits.refusal(bucket) };
    }

    const now = this.now();
    const estimateSeconds = estimator.estimateAudioSeconds(request.text, request.speed, request.language);
    const job: JobRecord = {
      id: jobId,
      accountId: account.id,
      keyPublicId: key.publicId,
      status: 'processing',
      ...request,
      createdAt: now,
      deleteAfter: now + plan.retentionDays * DAY_MS,
      reservedCentiminutes: Math.max(1, secondsToCentiminutes(estimateSeconds)),
      usageMonth: usageMonth(now),
      progress: 0,
      idempotencyKey: idem,
    };
    // A request refused after its admission (usage exhausted, or the store failed) gives its place
    // back: a rejected request consumes no POST quota. The refusal is the answer whatever happens to
    // the refund (the place then frees with the window).
    const giveBack = () => Promise.all([release(), this.rateLimits.refund(bucket, key.publicId).catch(() => undefined)]);
    let created;
    try {
      created = await store.createJob(job, minutesToCentiminutes(plan.monthlyMinutes));
    } catch (error) {
      // Unknown whether the job was made (its answer may be what was lost): the claim stays if it was
      // bound, so a retry with the same Idempotency-Key finds the job; if it was not made, the store
      // guarantees it never will be (the Redis store's fence).
      inBackground(giveBack());
      throw error;
    }
    if (created.kind === 'usage_exceeded') {
      await giveBack();
      const usedMinutes = created.usedCentiminutes / 100;
      const limitMinutes = plan.monthlyMinutes;
      const result: UsageExceeded = { kind: 'usage_exceeded', message: usageExhaustedMessage(usedMinutes, limitMinutes), usedMinutes, limitMinutes };
      return { bucket: await this.rateLimits.peek('post', key.publicId), result };
    }
    await queue.enqueue(jobId);
    return { bucket, result: { kind: 'job', job, replayed: false } };
  }

  /**
   * Claims the Idempotency-Key for `jobId` first, so concurrent requests with one key all end up on
   * one job: undefined once claimed, or the job the key already names (a replay). A holder that died
   * is taken over after STALE_CLAIM_MS, so this wait is bounded. Claims are stamped and judged in real
   * time (systemClock, not the injected clock): a claim goes stale when its holder has been silent
   * that long, however a test clock moves; the wait is measured on the monotonic clock.
   */
  private async claimIdempotencyKey(accountId: string, idem: string, jobId: string, signal: AbortSignal): Promise<JobRecord | undefined> {
    const { store } = this.deps;
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

  /**
   * Waits up to `inlineWaitMs` for a new job to finish; returns its record as it then stands. The job
   * exists by now: if the store stops answering during the wait, the answer is the job as it was made
   * (the client polls it later), not an error that would invite a second submission. The wait also
   * ends at shutdown (the answer is then what there is) and when the client goes away: its job goes
   * on, and the request is the client's doing, ClientClosedError (499).
   */
  private async waitInline(job: JobRecord, { signal, shutdown, inlineWaitMs }: SubmitOptions): Promise<JobRecord> {
    const waited = await waitUntilEither(shutdown, signal, (either) =>
      this.waitForFinish(job.id, inlineWaitMs, either).catch((error: unknown) => {
        if (error instanceof StoreUnavailableError) return undefined;
        throw error;
      }),
    );
    if (signal.aborted && !shutdown.aborted) throw new ClientClosedError(ANSWER_UNWANTED_MESSAGE, { job_id: job.id });
    return waited ?? job;
  }

  private async waitForFinish(jobId: string, ms: number, signal: AbortSignal): Promise<JobRecord | undefined> {
    const finished = this.deps.queue.waitForFinish(jobId, ms, signal);
    const job = await this.deps.store.getJob(jobId);
    if (job?.status !== 'processing') return job;
    await finished;
    return this.deps.store.getJob(jobId);
  }

  /** The job's state now. Its one command: a legacy job found past its expiry loses its audio first. */
  private async stateNow(principal: Principal, job: JobRecord): Promise<JobState> {
    const now = this.now();
    if (isLegacyExpired(job, now)) await this.deleteExpiredLegacyAudio(job);
    return this.states.at(principal, job, now);
  }

  /** Deletes the audio of a legacy job past its expiry (docs/api-rules.md#audio-urls). */
  private deleteExpiredLegacyAudio(job: JobRecord): Promise<void> {
    return this.deps.audio.delete(job.id);
  }
}

/**
 * Runs `wait` with a signal that fires when either signal does. Made per call and its listeners
 * removed afterwards: the shutdown signal lives as long as the process and must not collect one
 * listener per request.
 */
async function waitUntilEither<T>(a: AbortSignal, b: AbortSignal, wait: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const either = new AbortController();
  const fire = () => either.abort();
  if (a.aborted || b.aborted) fire();
  a.addEventListener('abort', fire, { once: true });
  b.addEventListener('abort', fire, { once: true });
  try {
    return await wait(either.signal);
  } finally {
    a.removeEventListener('abort', fire);
    b.removeEventListener('abort', fire);
  }
}
