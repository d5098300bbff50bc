import { API_PATH } from '@agent-tts/contract/limits.js';
import { BILLING_MODE } from '@agent-tts/contract/plans.js';
import type { CompletedJobBody, ExpiredJobBody, FailedJobBody, ProcessingJobBody } from '@agent-tts/contract/job-schemas.js';
import type { JobState } from '../domain/job-state.js';
import type { AudioUrlSigner } from '../domain/signing.js';
import { centiminutesToMinutes } from '../domain/usage.js';

type WithoutMeta<T> = Omit<T, 'meta'>;

export type JobBody =
  | { kind: 'completed'; body: WithoutMeta<CompletedJobBody> }
  | { kind: 'processing'; body: WithoutMeta<ProcessingJobBody> }
  | { kind: 'failed'; body: WithoutMeta<FailedJobBody> }
  | { kind: 'expired'; body: WithoutMeta<ExpiredJobBody> };

/**
 * The body of a job in its state, typed by the contract's schemas (`meta` is added by the route). Its
 * messages are the state's; a completed job's audio URL (and, when it asked for them, its caption URLs)
 * are signed at the instant the state was judged, as is a processing job's stream URL.
 */
export function jobBody(state: JobState, signer: AudioUrlSigner, publicBaseUrl: string): JobBody {
  const { job } = state;
  switch (state.kind) {
    case 'expired':
      return {
        kind: 'expired',
        body: {
          success: false,
          status: 'expired',
          job_id: job.id,
          error: { code: 'FILE_EXPIRED', message: state.message },
        },
      };
    case 'processing':
      return {
        kind: 'processing',
        body: {
          success: true,
          status: 'processing',
          job_id: job.id,
          status_url: `${API_PATH}?id=${job.id}`,
          retry_after_seconds: state.retryAfterSeconds,
          progress_percent: state.progressPercent,
          // An extension beyond the base API: the audio while it is made, signed like audio_url.
          stream_url: signer.signStream(publicBaseUrl, job.id, state.now),
        },
      };
    case 'failed':
      return { kind: 'failed', body: { success: false, status: 'failed', job_id: job.id, error: { code: state.code, message: state.message } } };
    case 'completed': {
      const { usedCentiminutes, limitCentiminutes } = state;
      const audio: CompletedJobBody['audio'] = {
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
        body: {
          success: true,
          status: 'completed',
          job_id: job.id,
          audio_url: signer.sign(publicBaseUrl, job.id, state.now),
          // An extension beyond the base API: only for a job that asked, signed at the same instant.
          ...(job.timestamps === 'word' ? { timings: signer.signTimings(publicBaseUrl, job.id, state.now) } : {}),
          audio,
          billing: {
            mode: BILLING_MODE,
            estimated_cost_cents: 0,
            monthly_minutes_used: centiminutesToMinutes(usedCentiminutes),
            monthly_minutes_limit: centiminutesToMinutes(limitCentiminutes),
            monthly_minutes_remaining: centiminutesToMinutes(Math.max(0, limitCentiminutes - usedCentiminutes)),
          },
        },
      };
    }
  }
}
