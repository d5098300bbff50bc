import { BILLING_MODE } from '../../contract/plans.js';
import type { Principal } from '../domain/auth.js';
import type { JobService } from '../domain/jobs.js';
import type { AudioUrlSigner } from '../domain/signing.js';
import { centiminutesToMinutes, minutesToCentiminutes, usageMonth } from '../domain/usage.js';
import type { JobRecord, Store } from '../ports.js';

export type JobView =
  | { kind: 'completed'; body: Record<string, unknown>; processingTimeMs?: number }
  | { kind: 'processing'; body: Record<string, unknown> }
  | { kind: 'failed'; body: Record<string, unknown>; code: 'TTS_PROVIDER_ERROR' | 'INTERNAL_ERROR'; message: string }
  | { kind: 'expired'; body: Record<string, unknown> };

export interface ViewDeps {
  store: Store;
  jobs: JobService;
  signer: AudioUrlSigner;
  publicBaseUrl: string;
}

/** The body of a job in its current status (without `meta`, which the sender adds). */
export async function jobView(deps: ViewDeps, principal: Principal, job: JobRecord, now: number): Promise<JobView> {
  const legacyExpired = job.legacyExpiresAt !== undefined && job.legacyExpiresAt <= now;
  if (legacyExpired) {
    return {
      kind: 'expired',
      body: {
        success: false,
        status: 'expired',
        job_id: job.id,
        error: { code: 'FILE_EXPIRED', message: 'The audio file of this job was deleted. Submit a new request.' },
      },
    };
  }
  if (job.status === 'processing') {
    return {
      kind: 'processing',
      body: {
        success: true,
        status: 'processing',
        job_id: job.id,
        status_url: `/v1/agent-tts?id=${job.id}`,
        retry_after_seconds: deps.jobs.retryAfterSeconds(job),
        progress_percent: deps.jobs.progressPercent(job),
      },
    };
  }
  if (job.status === 'failed') {
    const code = job.errorCode ?? 'INTERNAL_ERROR';
    const message = job.errorMessage ?? 'Synthesis failed.';
    return { kind: 'failed', code, message, body: { success: false, status: 'failed', job_id: job.id, error: { code, message } } };
  }
  const usage = await deps.store.getUsage(job.accountId, usageMonth(now));
  const limit = minutesToCentiminutes(principal.plan.monthlyMinutes);
  const audio: Record<string, unknown> = {
    duration_seconds: job.durationSeconds,
    format: 'mp3',
    voice: job.voice,
    speed: job.speed,
    language: job.language,
  };
  if (job.legacyExpiresAt !== undefined) {
    audio.expires_at = new Date(job.legacyExpiresAt).toISOString();
    if (job.fileSizeBytes !== undefined) audio.file_size_bytes = job.fileSizeBytes;
  }
  return {
    kind: 'completed',
    processingTimeMs: job.processingTimeMs,
    body: {
      success: true,
      status: 'completed',
      job_id: job.id,
      audio_url: deps.signer.sign(deps.publicBaseUrl, job.id, now),
      audio,
      billing: {
        mode: BILLING_MODE,
        estimated_cost_cents: 0,
        monthly_minutes_used: centiminutesToMinutes(usage.usedCentiminutes),
        monthly_minutes_limit: centiminutesToMinutes(limit),
        monthly_minutes_remaining: centiminutesToMinutes(Math.max(0, limit - usage.usedCentiminutes)),
      },
    },
  };
}
