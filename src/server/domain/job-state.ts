import { LIMITS } from '@agent-tts/contract/limits.js';
import type { JobRecord, SynthesisEstimator, UsageRepository } from '../ports/index.js';
import type { Principal } from './auth.js';
import { FILE_EXPIRED_MESSAGE, SYNTHESIS_FAILED_MESSAGE } from './job-messages.js';
import type { LiveProgress } from './job-runner.js';
import { minutesToCentiminutes, usageMonth } from './usage.js';

/**
 * A job as a client sees it at `now` (docs/api-rules.md#job-statuses): the instant it was judged at,
 * which its audio URL's expiry counts from, and what its answer says.
 */
export type JobState = { job: JobRecord; now: number } & (
  | { kind: 'completed'; usedCentiminutes: number; limitCentiminutes: number }
  | { kind: 'processing'; retryAfterSeconds: number; progressPercent: number }
  | { kind: 'failed'; code: 'TTS_PROVIDER_ERROR' | 'INTERNAL_ERROR'; message: string }
  | { kind: 'expired'; message: string }
);

/**
 * The rule of a legacy job's expiry (docs/api-rules.md#audio-urls): its audio is gone from
 * `legacyExpiresAt` on, whatever its status. Jobs made by this API have no such date.
 */
export function isLegacyExpired(job: Pick<JobRecord, 'legacyExpiresAt'>, now: number): boolean {
  return job.legacyExpiresAt !== undefined && job.legacyExpiresAt <= now;
}

/** Progress of the jobs that run in this process (absent for an API process without workers). */
export interface LiveProgressSource {
  get(jobId: string): LiveProgress | undefined;
}

export interface JobStateDeps {
  store: UsageRepository;
  estimator: SynthesisEstimator;
  live?: LiveProgressSource;
}

/** Judges a job's state. It only reads: deleting the audio of an expired legacy job is JobService's. */
export class JobStates {
  constructor(private readonly deps: JobStateDeps) {}

  /** The job as its owner sees it at `now`. */
  async at(principal: Principal, job: JobRecord, now: number): Promise<JobState> {
    if (isLegacyExpired(job, now)) return { kind: 'expired', job, now, message: FILE_EXPIRED_MESSAGE };
    if (job.status === 'processing') {
      return { kind: 'processing', job, now, retryAfterSeconds: this.retryAfterSeconds(job), progressPercent: this.progressPercent(job) };
    }
    if (job.status === 'failed') {
      return { kind: 'failed', job, now, code: job.errorCode ?? 'INTERNAL_ERROR', message: job.errorMessage ?? SYNTHESIS_FAILED_MESSAGE };
    }
    const usage = await this.deps.store.getUsage(job.accountId, usageMonth(now));
    return {
      kind: 'completed',
      job,
      now,
      usedCentiminutes: usage.usedCentiminutes,
      limitCentiminutes: minutesToCentiminutes(principal.plan.monthlyMinutes),
    };
  }

  /** An honest estimate of the seconds left, from live progress when this process runs the job. */
  private retryAfterSeconds(job: JobRecord): number {
    const live = this.deps.live?.get(job.id);
    let remaining: number;
    if (live && live.fraction > 0.02 && live.elapsedMs > 200) {
      remaining = ((live.elapsedMs / live.fraction) * (1 - live.fraction)) / 1000;
    } else {
      remaining = this.deps.estimator.estimateWallSeconds(job.text, job.speed) * (1 - (live?.fraction ?? job.progress));
    }
    return Math.min(LIMITS.retryAfterMaxSeconds, Math.max(LIMITS.retryAfterMinSeconds, Math.ceil(remaining)));
  }

  private progressPercent(job: JobRecord): number {
    const fraction = this.deps.live?.get(job.id)?.fraction ?? job.progress;
    return Math.round(Math.min(1, Math.max(0, fraction)) * 1000) / 10;
  }
}
