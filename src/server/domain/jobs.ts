import { randomUUID } from 'node:crypto';
import { LIMITS } from '@agent-tts/contract/limits.js';
import type { TtsRequestBody } from '@agent-tts/contract/schemas.js';
import {
  type AudioStorage,
  type Clock,
  type IdempotencyRepository,
  type JobQueue,
  type JobRecord,
  type JobRepository,
  type RateLimitDecision,
  type RateLimiter,
  type SynthesisEstimator,
  systemClock,
  type UsageRepository,
} from '../ports/index.js';
import type { Principal } from './auth.js';
import { ANSWER_UNWANTED_MESSAGE, ClientClosedError } from './errors.js';
import type { LiveProgress } from './job-runner.js';
import type { SpeechRequests } from './speech-request.js';
import { minutesToCentiminutes, secondsToCentiminutes, usageMonth } from './usage.js';

export type BucketKind = 'post' | 'get';

export interface RateLimitSettings {
  post: number;
  get: number;
  windowMs: number;
}

export type SubmitOutcome =
  | { kind: 'job'; job: JobRecord; replayed: boolean; postBucket: RateLimitDecision }
  | { kind: 'rate_limited'; postBucket: RateLimitDecision }
  | { kind: 'usage_exceeded'; usedCentiminutes: number; limitCentiminutes: number; postBucket: RateLimitDecision };

export type PollOutcome =
  | { kind: 'job'; job: JobRecord; getBucket: RateLimitDecision }
  | { kind: 'not_found'; getBucket: RateLimitDecision }
  | { kind: 'rate_limited'; getBucket: RateLimitDecision };

/** A job as a client sees it now (docs/api-rules.md#job-statuses). */
export type JobState =
  | { kind: 'completed'; job: JobRecord; usedCentiminutes: number; limitCentiminutes: number }
  | { kind: 'processing'; job: JobRecord; retryAfterSeconds: number; progressPercent: number }
  | { kind: 'failed'; job: JobRecord; code: 'TTS_PROVIDER_ERROR' | 'INTERNAL_ERROR'; message: string }
  | { kind: 'expired'; job: JobRecord };

/** Progress of the jobs that run in this process (absent for an API process without workers). */
interface LiveProgressSource {
  get(jobId: string): LiveProgress | undefined;
}

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

/** A claim never bound to a job (its holder died) is taken over after this long. */
const STALE_CLAIM_MS = 30_000;
const CLAIM_POLL_MS = 20;
const DAY_MS = 86_400_000;

const bucketName = (kind: BucketKind, publicId: string) => `${kind}:${publicId}`;

/** Best-effort clean-up that the answer does not wait for. */
const inBackground = (work: Promise<unknown>) => void work.catch(() => undefined);

/**
 * Submission and lookup of jobs. A submission is checked in a fixed order after authentication
 * (docs/api-rules.md#order-of-checks): the request itself → idempotent replay → rate limit → usage →
 * new job. A rejected or replayed request consumes no POST quota.
 */
export class JobService {
  constructor(private readonly deps: JobServiceDeps) {}

  /** The time of the deployment's clock (the sandbox's test clock, or the system's). */
  now(): number {
    return (this.deps.clock ?? systemClock).now();
  }

  get rateLimits(): RateLimitSettings {
    return this.deps.rateLimits;
  }

  /** The deployment's rules for a submission's voice, speed and language (its voice catalog among them). */
  get requests(): SpeechRequests {
    return this.deps.requests;
  }

  /** The key's bucket of this kind as it stands, taking nothing. */
  peekBucket(kind: BucketKind, publicId: string): Promise<RateLimitDecision> {
    const { windowMs } = this.deps.rateLimits;
    return this.deps.limiter.check(bucketName(kind, publicId), this.deps.rateLimits[kind], windowMs, false);
  }

  async submit(principal: Principal, body: TtsRequestBody, idempotencyKey: string | undefined, signal?: AbortSignal): Promise<SubmitOutcome> {
    const { store, limiter, queue, estimator, rateLimits } = this.deps;
    const { account, key, plan } = principal;
    const request = this.deps.requests.resolve(body);
    const jobId = randomUUID();
    const idem = idempotencyKey;

    if (idem !== undefined) {
      // Claim the key first, so concurrent requests with one key all end up on one job. A holder that
      // died is taken over after STALE_CLAIM_MS, so this wait is bounded. Claims are stamped and judged
      // in real time (systemClock, not the injected clock): a claim goes stale when its holder has been
      // silent that long, however a test clock moves; the wait is measured on the monotonic clock.
      const giveUpAt = performance.now() + STALE_CLAIM_MS + 5_000;
      for (;;) {
        const claim = await store.claimIdempotencyKey(account.id, idem, jobId, systemClock.now(), STALE_CLAIM_MS);
        if (claim.kind === 'claimed') break;
        if (claim.kind === 'existing') {
          const job = await store.getJob(claim.jobId);
          if (job) return { kind: 'job', job, replayed: true, postBucket: await this.peekBucket('post', key.publicId) };
        }
        if (signal?.aborted) throw new ClientClosedError(ANSWER_UNWANTED_MESSAGE);
        if (performance.now() > giveUpAt) throw new Error(`Idempotency-Key claim of account ${account.id} did not settle`);
        await new Promise((r) => setTimeout(r, CLAIM_POLL_MS));
      }
    }
    const release = () => (idem === undefined ? Promise.resolve() : store.releaseIdempotencyKey(account.id, idem, jobId));

    const postBucket = bucketName('post', key.publicId);
    let bucket: RateLimitDecision;
    try {
      bucket = await limiter.check(postBucket, rateLimits.post, rateLimits.windowMs, true);
    } catch (error) {
      // The store failed: the answer is the error now, not after a clean-up that may wait as long.
      inBackground(release());
      throw error;
    }
    if (!bucket.allowed) {
      await release();
      return { kind: 'rate_limited', postBucket: bucket };
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
    const giveBack = async () => {
      const refund = bucket.admission === undefined ? undefined : limiter.refund(postBucket, bucket.admission);
      await Promise.all([release(), refund?.catch(() => undefined)]);
    };
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
      return {
        kind: 'usage_exceeded',
        usedCentiminutes: created.usedCentiminutes,
        limitCentiminutes: created.limitCentiminutes,
        postBucket: await this.peekBucket('post', key.publicId),
      };
    }
    await queue.enqueue(jobId);
    return { kind: 'job', job, replayed: false, postBucket: bucket };
  }

  /** Waits up to `ms` for the job to finish; returns its record as it then stands. */
  async waitInline(jobId: string, ms: number, signal?: AbortSignal): Promise<JobRecord | undefined> {
    const finished = this.deps.queue.waitForFinish(jobId, ms, signal);
    const job = await this.deps.store.getJob(jobId);
    if (job?.status !== 'processing') return job;
    await finished;
    return this.deps.store.getJob(jobId);
  }

  /** A poll: takes a place in the key's GET bucket, then looks the job up for the caller's account. */
  async poll(principal: Principal, jobId: string): Promise<PollOutcome> {
    const { get, windowMs } = this.deps.rateLimits;
    const bucket = await this.deps.limiter.check(bucketName('get', principal.key.publicId), get, windowMs, true);
    if (!bucket.allowed) return { kind: 'rate_limited', getBucket: bucket };
    const job = await this.get(principal.account.id, jobId);
    return job ? { kind: 'job', job, getBucket: bucket } : { kind: 'not_found', getBucket: bucket };
  }

  /** A job of this account, or undefined (unknown ids and other accounts' jobs look the same). */
  async get(accountId: string, jobId: string): Promise<JobRecord | undefined> {
    const job = await this.deps.store.getJob(jobId);
    return job && job.accountId === accountId ? job : undefined;
  }

  /** The job as its owner sees it at `now`. A legacy job past its expiry loses its audio here. */
  async state(principal: Principal, job: JobRecord, now: number): Promise<JobState> {
    if (job.legacyExpiresAt !== undefined && job.legacyExpiresAt <= now) {
      await this.deps.audio.delete(job.id);
      return { kind: 'expired', job };
    }
    if (job.status === 'processing') {
      return { kind: 'processing', job, retryAfterSeconds: this.retryAfterSeconds(job), progressPercent: this.progressPercent(job) };
    }
    if (job.status === 'failed') {
      return { kind: 'failed', job, code: job.errorCode ?? 'INTERNAL_ERROR', message: job.errorMessage ?? 'Synthesis failed.' };
    }
    const usage = await this.deps.store.getUsage(job.accountId, usageMonth(now));
    return {
      kind: 'completed',
      job,
      usedCentiminutes: usage.usedCentiminutes,
      limitCentiminutes: minutesToCentiminutes(principal.plan.monthlyMinutes),
    };
  }

  /** An honest estimate of the seconds left, from live progress when this process runs the job. */
  retryAfterSeconds(job: JobRecord): number {
    const live = this.deps.live?.get(job.id);
    let remaining: number;
    if (live && live.fraction > 0.02 && live.elapsedMs > 200) {
      remaining = ((live.elapsedMs / live.fraction) * (1 - live.fraction)) / 1000;
    } else {
      remaining = this.deps.estimator.estimateWallSeconds(job.text, job.speed) * (1 - (live?.fraction ?? job.progress));
    }
    return Math.min(LIMITS.retryAfterMaxSeconds, Math.max(LIMITS.retryAfterMinSeconds, Math.ceil(remaining)));
  }

  progressPercent(job: JobRecord): number {
    const fraction = this.deps.live?.get(job.id)?.fraction ?? job.progress;
    return Math.round(Math.min(1, Math.max(0, fraction)) * 1000) / 10;
  }
}
