import { randomUUID } from 'node:crypto';
import type { TtsRequestBody } from '@agent-tts/contract/request-schemas.js';
import {
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
import type { AudioStorage } from './job-files.js';
import type { Principal } from './auth.js';
import { ANSWER_UNWANTED_MESSAGE, ClientClosedError } from './errors.js';
import { claimIdempotencyKey, type HeldSubmission, type Reservation, releaseClaim } from './held-submissions.js';
import { JOB_NOT_FOUND_MESSAGE, usageExhaustedMessage } from './job-messages.js';
import { isLegacyExpired, type JobState, JobStates, type LiveProgressSource } from './job-state.js';
import { type BucketKind, type BucketReport, type RateLimited, type RateLimitSettings, RateLimits } from './rate-limits.js';
import type { SpeechRequest, SpeechRequests } from './speech-request.js';
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

export interface SubmitOptions {
  /** The client's request: aborted when it goes away. */
  signal: AbortSignal;
  /** Aborted when the server shuts down: the inline wait then answers with what there is. */
  shutdown: AbortSignal;
  /** How long a new job is waited for before the answer is its processing state. */
  inlineWaitMs: number;
}

interface UsageExceeded {
  kind: 'usage_exceeded';
  message: string;
  usedMinutes: number;
  limitMinutes: number;
}

type SubmitOutcome = { kind: 'job'; state: JobState; replayed: boolean } | RateLimited | UsageExceeded;

export type FoundJob = { kind: 'job'; state: JobState } | { kind: 'not_found'; message: string };

export type PollOutcome = FoundJob | RateLimited;

type Submitted = SubmitOutcome & { bucket: BucketReport };

/**
 * A held submission once its body was judged, before its inline wait: the bucket its answer reports
 * from here on (a failure included), and its new job or the refusal for usage.
 */
export type Admission = { bucket: BucketReport; result: { kind: 'job'; job: JobRecord } | UsageExceeded };

/** A poll's place in the key's GET bucket: the bucket its answer reports from here on, and the refusal when it got none. */
export type PollAdmission = { bucket: BucketReport; refused?: RateLimited };

const DAY_MS = 86_400_000;

/** Best-effort clean-up that the answer does not wait for. */
const inBackground = (work: Promise<unknown>) => void work.catch(() => undefined);

/**
 * Submission and lookup of jobs. A submission is checked in a fixed order after authentication
 * (docs/api-rules.md#order-of-checks): idempotent replay and rate limit, decided from the headers
 * alone (`reserve`), before its body is read; then the body, then usage and the new job
 * (`admitHeld`, then `waitFor`). A rejected or replayed request consumes no POST quota.
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
  private now(): number {
    return (this.deps.clock ?? systemClock).now();
  }

  /** The deployment's rules for a submission's voice, speed and language (its voice catalog among them). */
  get requests(): SpeechRequests {
    return this.deps.requests;
  }

  /** A submission whose body is already read, `reserve` to `waitFor`, and the bucket its answer reports (the domain's tests use it). */
  async submitAndWait(principal: Principal, body: TtsRequestBody, idem: string | undefined, options: SubmitOptions): Promise<Submitted> {
    const reservation = await this.reserve(principal, idem, options.signal);
    if (reservation.kind !== 'held') return reservation;
    const { held } = reservation;
    try {
      const { bucket, result } = await this.admitHeld(held, body);
      return { ...(result.kind === 'job' ? await this.waitFor(held, result.job, options) : result), bucket };
    } catch (error) {
      await this.giveBack(held);
      throw error;
    }
  }

  /** A poll: `admitPoll`, then `findJob` (the domain's tests use it). */
  async poll(principal: Principal, jobId: string): Promise<PollOutcome> {
    const { refused } = await this.admitPoll(principal);
    return refused ?? this.findJob(principal, jobId);
  }

  /** A poll's first step: a place in the key's GET bucket. */
  async admitPoll(principal: Principal): Promise<PollAdmission> {
    const bucket = await this.rateLimits.take('get', principal.key.publicId);
    return bucket.decision.allowed ? { bucket } : { bucket, refused: this.rateLimits.refusal(bucket) };
  }

  /** A poll's second step, once admitted: the job of the caller's account. */
  async findJob(principal: Principal, jobId: string): Promise<FoundJob> {
    const job = await this.deps.store.getJob(jobId);
    // Unknown ids and other accounts' jobs look the same.
    if (job?.accountId !== principal.account.id) return { kind: 'not_found', message: JOB_NOT_FOUND_MESSAGE };
    return { kind: 'job', state: await this.stateNow(principal, job) };
  }

  /** The key's bucket as it stands (taking nothing), for a refusal before the request took a place; undefined when the limiter cannot say. */
  bucketOf(principal: Principal, kind: BucketKind): Promise<BucketReport | undefined> {
    return this.rateLimits.peek(kind, principal.key.publicId).catch(() => undefined);
  }

  /**
   * What a submission's headers decide, before its body is read: a replay of the job its
   * Idempotency-Key already names (taking no place), a refusal by the key's POST bucket (the key's
   * claim released), or a held submission with its claim and its place.
   */
  async reserve(principal: Principal, idem: string | undefined, signal: AbortSignal): Promise<Reservation> {
    const { key, account } = principal;
    const jobId = randomUUID();
    if (idem !== undefined) {
      const replayed = await claimIdempotencyKey(this.deps.store, account.id, idem, jobId, signal);
      if (replayed) {
        const bucket = await this.rateLimits.peek('post', key.publicId);
        return { bucket, kind: 'job', replayed: true, state: await this.stateNow(principal, replayed) };
      }
    }
    let bucket: BucketReport;
    try {
      bucket = await this.rateLimits.take('post', key.publicId);
    } catch (error) {
      // The store failed: the answer is the error now, not after a clean-up that may wait as long.
      inBackground(releaseClaim(this.deps.store, principal, idem, jobId));
      throw error;
    }
    if (!bucket.decision.allowed) {
      await releaseClaim(this.deps.store, principal, idem, jobId);
      return { bucket, ...this.rateLimits.refusal(bucket) };
    }
    return { bucket, kind: 'held', held: { principal, jobId, idempotencyKey: idem, bucket, settled: false } };
  }

  /**
   * Gives a held submission's Idempotency-Key and place back (nothing once it was settled). The
   * refusal that calls it is the answer whatever happens to the refund (the place then frees with
   * the window). Returns the key's POST bucket as it then stands, which that answer reports
   * (undefined when it was settled, or the limiter cannot say).
   */
  async giveBack(held: HeldSubmission): Promise<BucketReport | undefined> {
    if (held.settled) return undefined;
    held.settled = true;
    const { principal, idempotencyKey, jobId, bucket } = held;
    await Promise.all([
      releaseClaim(this.deps.store, principal, idempotencyKey, jobId),
      this.rateLimits.refund(bucket, principal.key.publicId).catch(() => undefined),
    ]);
    return this.bucketOf(principal, 'post');
  }

  /** A new job's inline wait (up to `inlineWaitMs`), then its state. */
  async waitFor(held: HeldSubmission, job: JobRecord, options: SubmitOptions): Promise<{ kind: 'job'; state: JobState; replayed: false }> {
    const waited = await this.waitInline(job, options);
    return { kind: 'job', replayed: false, state: await this.stateNow(held.principal, waited) };
  }

  /** A held submission with its body: the deployment's rules for it, usage, the new job, queued. */
  async admitHeld(held: HeldSubmission, body: TtsRequestBody): Promise<Admission> {
    const { store, queue, estimator } = this.deps;
    const { principal, jobId, bucket } = held;
    const { account, key, plan } = principal;
    // A body the deployment's rules refuse throws with the submission still held: whoever holds it
    // gives it back (the route, or submitAndWait), and then answers with the bucket as it is after that.
    const request: SpeechRequest = this.deps.requests.resolve(body);
    held.settled = true;
    const giveBack = () => {
      held.settled = false;
      return this.giveBack(held);
    };

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
      idempotencyKey: held.idempotencyKey,
    };
    // A request refused after its admission (usage exhausted, or the store failed) gives its place
    // back: a rejected request consumes no POST quota.
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
      const [usedMinutes, limitMinutes] = [created.usedCentiminutes / 100, plan.monthlyMinutes];
      const result: UsageExceeded = { kind: 'usage_exceeded', message: usageExhaustedMessage(usedMinutes, limitMinutes), usedMinutes, limitMinutes };
      return { bucket: (await giveBack()) ?? bucket, result };
    }
    await queue.enqueue(jobId);
    return { bucket, result: { kind: 'job', job } };
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
