import { randomUUID } from 'node:crypto';
import { LIMITS } from '../../contract/limits.js';
import type { Synthesizer } from '../../synth/index.js';
import type { Config } from '../config.js';
import type { JobQueue, JobRecord, RateLimitDecision, RateLimiter, Store } from '../ports.js';
import type { Principal } from './auth.js';
import type { JobRunner } from './job-runner.js';
import { minutesToCentiminutes, secondsToCentiminutes, usageMonth } from './usage.js';

export interface SubmitInput {
  text: string;
  voice: string;
  language: string;
  speed: number;
  idempotencyKey?: string;
}

export type SubmitOutcome =
  | { kind: 'job'; job: JobRecord; replayed: boolean; postBucket: RateLimitDecision }
  | { kind: 'rate_limited'; postBucket: RateLimitDecision }
  | { kind: 'usage_exceeded'; usedCentiminutes: number; limitCentiminutes: number; postBucket: RateLimitDecision };

/** A claim never bound to a job (its holder died) is taken over after this long. */
const STALE_CLAIM_MS = 30_000;
const CLAIM_POLL_MS = 20;
const DAY_MS = 86_400_000;

export const postBucket = (publicId: string) => `post:${publicId}`;
export const getBucket = (publicId: string) => `get:${publicId}`;

/**
 * Submission and lookup of jobs, in the order DESIGN.md fixes: idempotent replay → rate limit →
 * usage → new job. A rejected or replayed request consumes no POST quota.
 */
export class JobService {
  constructor(
    private readonly store: Store,
    private readonly queue: JobQueue,
    private readonly limiter: RateLimiter,
    private readonly synth: Synthesizer,
    private readonly config: Config,
    private readonly runner?: JobRunner,
  ) {}

  peekPostBucket(publicId: string): Promise<RateLimitDecision> {
    const { post, windowMs } = this.config.rateLimits;
    return this.limiter.check(postBucket(publicId), post, windowMs, false);
  }

  async submit(principal: Principal, input: SubmitInput, signal?: AbortSignal): Promise<SubmitOutcome> {
    const { account, key, plan } = principal;
    const { post, windowMs } = this.config.rateLimits;
    const jobId = randomUUID();
    const idem = input.idempotencyKey;

    if (idem !== undefined) {
      // Claim the key first, so concurrent requests with one key all end up on one job. A holder that
      // died is taken over after STALE_CLAIM_MS, so this wait is bounded.
      const giveUpAt = Date.now() + STALE_CLAIM_MS + 5_000;
      for (;;) {
        const claim = await this.store.claimIdempotencyKey(account.id, idem, jobId, Date.now(), STALE_CLAIM_MS);
        if (claim.kind === 'claimed') break;
        if (claim.kind === 'existing') {
          const job = await this.store.getJob(claim.jobId);
          if (job) return { kind: 'job', job, replayed: true, postBucket: await this.peekPostBucket(key.publicId) };
        }
        if (signal?.aborted) throw new Error('request aborted');
        if (Date.now() > giveUpAt) throw new Error(`Idempotency-Key claim of account ${account.id} did not settle`);
        await new Promise((r) => setTimeout(r, CLAIM_POLL_MS));
      }
    }
    const release = () => (idem === undefined ? Promise.resolve() : this.store.releaseIdempotencyKey(account.id, idem, jobId));

    let bucket: RateLimitDecision;
    try {
      bucket = await this.limiter.check(postBucket(key.publicId), post, windowMs, true);
    } catch (error) {
      await release();
      throw error;
    }
    if (!bucket.allowed) {
      await release();
      return { kind: 'rate_limited', postBucket: bucket };
    }

    const now = Date.now();
    const estimateSeconds = this.synth.estimateAudioSeconds(input.text, input.speed, input.language);
    const job: JobRecord = {
      id: jobId,
      accountId: account.id,
      keyPublicId: key.publicId,
      status: 'processing',
      text: input.text,
      voice: input.voice,
      language: input.language,
      speed: input.speed,
      createdAt: now,
      deleteAfter: now + plan.retentionDays * DAY_MS,
      reservedCentiminutes: Math.max(1, secondsToCentiminutes(estimateSeconds)),
      usageMonth: usageMonth(now),
      progress: 0,
      idempotencyKey: idem,
    };
    // A request refused after its admission (usage exhausted, or the store failed) gives its place
    // back: a rejected request consumes no POST quota.
    // The refusal is the answer whatever happens to the refund (the place then frees with the window).
    const giveBack = async () => {
      const refund = bucket.admission === undefined ? undefined : this.limiter.refund(postBucket(key.publicId), bucket.admission);
      await Promise.all([release(), refund?.catch(() => undefined)]);
    };
    let created;
    try {
      created = await this.store.createJob(job, minutesToCentiminutes(plan.monthlyMinutes));
    } catch (error) {
      await giveBack();
      throw error;
    }
    if (created.kind === 'usage_exceeded') {
      await giveBack();
      return {
        kind: 'usage_exceeded',
        usedCentiminutes: created.usedCentiminutes,
        limitCentiminutes: created.limitCentiminutes,
        postBucket: await this.peekPostBucket(key.publicId),
      };
    }
    await this.queue.enqueue(jobId);
    return { kind: 'job', job, replayed: false, postBucket: bucket };
  }

  /** Waits up to `ms` for the job to finish; returns its record as it then stands. */
  async waitInline(jobId: string, ms: number, signal?: AbortSignal): Promise<JobRecord | undefined> {
    const finished = this.queue.waitForFinish(jobId, ms, signal);
    const job = await this.store.getJob(jobId);
    if (!job || job.status !== 'processing') return job;
    await finished;
    return this.store.getJob(jobId);
  }

  /** A job of this account, or undefined (unknown ids and other accounts' jobs look the same). */
  async get(accountId: string, jobId: string): Promise<JobRecord | undefined> {
    const job = await this.store.getJob(jobId);
    return job && job.accountId === accountId ? job : undefined;
  }

  /** An honest estimate of the seconds left, from live progress when this process runs the job. */
  retryAfterSeconds(job: JobRecord): number {
    const live = this.runner?.live.get(job.id);
    let remaining: number;
    if (live && live.fraction > 0.02 && live.elapsedMs > 200) {
      remaining = ((live.elapsedMs / live.fraction) * (1 - live.fraction)) / 1000;
    } else {
      remaining = this.synth.estimateWallSeconds(job.text, job.speed) * (1 - (live?.fraction ?? job.progress));
    }
    return Math.min(LIMITS.retryAfterMaxSeconds, Math.max(LIMITS.retryAfterMinSeconds, Math.ceil(remaining)));
  }

  progressPercent(job: JobRecord): number {
    const fraction = this.runner?.live.get(job.id)?.fraction ?? job.progress;
    return Math.round(Math.min(1, Math.max(0, fraction)) * 1000) / 10;
  }
}
