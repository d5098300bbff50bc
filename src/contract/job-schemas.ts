/** A job as the API reports it, in each of its four statuses, with the audio and billing of a completed one. */
import { z } from '@hono/zod-openapi';
import { ErrorCodeSchema, Meta } from './envelope-schemas.js';
import { LANGUAGE_TAG_PATTERN, uuid } from './schema-primitives.js';
import { Timings } from './timing-schemas.js';

export const Audio = z
  .object({
    duration_seconds: z.number().min(0).optional().openapi({ description: 'Duration of the audio, from its samples.' }),
    format: z
      .string()
      .regex(/^[a-z0-9]+$/)
      .max(16)
      .openapi({ description: 'Audio format.', example: 'mp3' }),
    voice: z
      .string()
      .regex(/^[a-z0-9_]+$/)
      .max(64)
      .openapi({ description: 'Voice id used.' }),
    speed: z.number().openapi({ description: 'Speed used.' }),
    language: z
      .string()
      .regex(LANGUAGE_TAG_PATTERN)
      .max(16)
      .optional()
      .openapi({ description: 'Language spoken: the §4.5 code for st_* voices, or the language of a Kokoro voice id (BCP 47).' }),
    expires_at: z.string().datetime().max(64).optional().openapi({ description: 'Legacy jobs only; omitted for new API jobs.' }),
    file_size_bytes: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .openapi({ format: 'int64', description: 'Legacy jobs only; omitted for new API jobs.' }),
  })
  .openapi('Audio', { description: 'Present in every completed response.' });

export const Billing = z
  .object({
    mode: z
      .string()
      .regex(/^[a-z_]+$/)
      .max(32)
      .openapi({ description: 'Billing mode; `subscription` for plan-based accounts.', example: 'subscription' }),
    estimated_cost_cents: z.number().min(0).openapi({ description: 'Is 0 in subscription mode.' }),
    monthly_minutes_used: z.number().min(0).openapi({ description: 'Minutes used this calendar month (UTC), this job included.' }),
    monthly_minutes_limit: z.number().min(0),
    monthly_minutes_remaining: z.number().min(0),
  })
  .openapi('Billing', { description: 'Present in every completed response. Minutes = audio seconds / 60, two decimals.' });

const jobId = uuid().openapi({ description: 'Identifies the job.' });

export const CompletedJob = z
  .object({
    success: z.literal(true),
    status: z.literal('completed'),
    job_id: jobId,
    audio_url: z.string().url().max(4096).openapi({
      description:
        'Absolute, signed, temporary URL of the audio (valid about 1 hour); download it right after completion. Each GET of the job issues a fresh one.',
    }),
    audio: Audio,
    timings: Timings.optional(),
    billing: Billing,
    meta: Meta,
  })
  .openapi('CompletedJob', { description: 'Audio is ready.' });

export const ProcessingJob = z
  .object({
    success: z.literal(true),
    status: z.literal('processing'),
    job_id: jobId,
    status_url: z
      .string()
      .regex(/^\/v1\/agent-tts\?id=[0-9a-f-]{36}$/)
      .max(64)
      .openapi({ description: 'Path to poll, `/v1/agent-tts?id=<job_id>`, resolved against the service origin.' }),
    retry_after_seconds: z
      .number()
      .int()
      .min(1)
      .max(30)
      .openapi({ format: 'int32', description: 'Seconds to wait before polling again: an estimate from the job’s progress, 1 to 30.' }),
    progress_percent: z.number().min(0).max(100).optional().openapi({ description: 'Share of the text synthesized so far, where the server knows it.' }),
    stream_url: z.string().url().max(4096).optional().openapi({
      description:
        'Extension (docs/api-rules.md#streaming-audio): absolute, signed, temporary URL (the expiry of `audio_url`) that serves the audio while it is made, chunk by chunk, ending with exactly the bytes `audio_url` serves once the job is completed. Each answer issues a fresh one.',
    }),
    meta: Meta,
  })
  .openapi('ProcessingJob', { description: 'Still generating.' });

const JobError = z
  .object({
    code: ErrorCodeSchema,
    message: z.string().regex(/\S/).max(2048),
  })
  .openapi('JobError');

export const FailedJob = z
  .object({
    success: z.literal(false),
    status: z.literal('failed'),
    job_id: jobId,
    error: JobError,
    meta: Meta,
  })
  .openapi('FailedJob', {
    description: 'Generation failed (HTTP 200 on GET). The error is TTS_PROVIDER_ERROR or INTERNAL_ERROR; retry with a new Idempotency-Key.',
  });

export const ExpiredJob = z
  .object({
    success: z.literal(false),
    status: z.literal('expired'),
    job_id: jobId,
    error: JobError,
    meta: Meta,
  })
  .openapi('ExpiredJob', {
    description: 'Legacy only: the persisted audio file was deleted. HTTP 200 with error code FILE_EXPIRED.',
  });

export const JobStatus = z
  .discriminatedUnion('status', [CompletedJob, ProcessingJob, FailedJob, ExpiredJob])
  .openapi('JobStatus', { description: 'A job in any of its four statuses (docs/api-rules.md#job-statuses).' });

export type CompletedJobBody = z.infer<typeof CompletedJob>;
export type ProcessingJobBody = z.infer<typeof ProcessingJob>;
export type FailedJobBody = z.infer<typeof FailedJob>;
export type ExpiredJobBody = z.infer<typeof ExpiredJob>;
export type JobStatusBody = z.infer<typeof JobStatus>;
