import { z } from '@hono/zod-openapi';
import { ERROR_CODES } from './errors.js';
import { LANGUAGE_CODES } from './languages.js';
import { API_VERSION, IDEMPOTENCY_KEY_PATTERN, LIMITS, codePointLength } from './limits.js';
import { VOICE_PATTERN, DEFAULT_VOICE } from './voices.js';

/** zod issue `params.reason` for a text over the limit, so the server can answer TEXT_TOO_LONG. */
export const TEXT_TOO_LONG_REASON = 'TEXT_TOO_LONG';

/** A §4.5 code or a BCP 47 tag such as en-US, pt-BR. */
const LANGUAGE_TAG_PATTERN = /^[a-z]{2,3}(?:-[A-Z]{2})?$/;

const uuid = () => z.string().uuid().max(36);

export const Meta = z
  .object({
    request_id: uuid().openapi({ description: 'A fresh UUID for every response, errors included; also sent as X-Request-Id.' }),
    processing_time_ms: z
      .number()
      .int()
      .min(0)
      .max(86_400_000)
      .optional()
      .openapi({ format: 'int32', description: 'Present in completed responses to POST: milliseconds from receipt to completion.' }),
    api_version: z.literal(API_VERSION).openapi({ description: 'The version label (docs/api-rules.md#meta-and-versioning). Present in every response.' }),
  })
  .openapi('Meta', { description: 'Versioned metadata carried by every response.' });

export const ErrorCodeSchema = z.enum(ERROR_CODES).openapi('ErrorCode', {
  description: 'One of the codes of the error table (docs/api-rules.md#errors).',
});

export const UsageLimitDetails = z
  .object({
    limit: z.number().min(0).openapi({ description: 'Monthly TTS minutes of the plan.' }),
    used: z.number().min(0).openapi({ description: 'Minutes used (and reserved) this calendar month (UTC).' }),
    tier: z.string().max(64).openapi({ description: 'The plan, e.g. free, pro, ultimate.' }),
    upgrade_url: z.string().url().max(2048).openapi({ description: 'URL of the billing page.' }),
  })
  .openapi('UsageLimitDetails', { description: 'Details of USAGE_LIMIT_EXCEEDED.' });

export const ErrorObject = z
  .object({
    code: ErrorCodeSchema,
    message: z.string().regex(/\S/).max(2048).openapi({ description: 'Human-readable text.' }),
    details: z.record(z.string(), z.unknown()).optional().openapi({
      // UsageLimitDetails is not referenced by any schema, so it is not emitted as a component: name its
      // fields here rather than point at a component the document does not have.
      description:
        'Optional. For USAGE_LIMIT_EXCEEDED it holds limit (number, monthly TTS minutes of the plan), used (number, minutes used this calendar month, UTC), tier (string, the plan) and upgrade_url (string, URL of the billing page).',
    }),
  })
  .openapi('ErrorObject');

export const ErrorBody = z
  .object({
    success: z.literal(false),
    error: ErrorObject,
    meta: Meta,
  })
  .openapi('ErrorBody', {
    description:
      'Error body. The HTTP status follows the error table. (Named ErrorBody, not Error, so that generated clients do not shadow the built-in Error type.)',
  });

const VOICE_ID_DESCRIPTION =
  'Kokoro-style `<language letter><gender letter>_<name>` (language from the first letter: a en-US, b en-GB, e es, f fr, h hi, i it, j ja, p pt-BR, z zh; gender f or m), or Supertonic `st_f1`…`st_f5`, `st_m1`…`st_m5`. The id must also be one the deployment offers: a voice its voice catalog (`GET {voices_url}/api/v1/voices`) does not list, such as a typo of a listed id, is refused with 400 INVALID_REQUEST naming the closest listed ids, and nothing is synthesized or charged (docs/api-rules.md#voices-and-languages).';

export const VoiceId = z.string().regex(VOICE_PATTERN).max(35).openapi('VoiceId', {
  description: VOICE_ID_DESCRIPTION,
  example: 'af_heart',
});

export const LanguageCodeSchema = z.enum(LANGUAGE_CODES).openapi('LanguageCode', {
  description: 'A Supertonic language code (docs/api-rules.md#supertonic-language-codes).',
});

/**
 * A component rather than an inline property: openapi-typescript types a property that carries a
 * `default` as required (defaultNonNullable), which made `speed` mandatory in the generated client's
 * request type. Behind a $ref, as for voice, it stays optional.
 */
export const Speed = z
  .number()
  .min(LIMITS.speedMin)
  .max(LIMITS.speedMax)
  .openapi('Speed', { description: 'Speaking speed, 0.5 to 1.5; default 1.2.', default: LIMITS.speedDefault, example: 1.2 });

const textSchema = z
  .string()
  .superRefine((text, ctx) => {
    const length = codePointLength(text);
    if (length > LIMITS.textMaxChars) {
      ctx.addIssue({
        code: 'custom',
        message: `text has ${length} characters; the limit is ${LIMITS.textMaxChars}`,
        params: { reason: TEXT_TOO_LONG_REASON },
      });
    } else if (length < LIMITS.textMinChars || text.trim().length === 0) {
      ctx.addIssue({ code: 'custom', message: 'text must contain at least one non-blank character' });
    }
  })
  .openapi({
    description:
      'The text to speak: 1 to 500,000 characters counted as Unicode code points, not blank. Over the limit: TEXT_TOO_LONG; empty or blank: INVALID_REQUEST.',
    minLength: LIMITS.textMinChars,
    maxLength: LIMITS.textMaxChars,
    pattern: '\\S',
    example: 'Hello from agent-tts.',
  });

export const TtsRequest = z
  .object({
    text: textSchema,
    // zod-to-openapi copies this field metadata onto the registered VoiceId component, replacing its
    // description: repeat the pattern explanation so the document keeps it.
    voice: VoiceId.optional().openapi({ description: `${VOICE_ID_DESCRIPTION} Default ${DEFAULT_VOICE}.`, default: DEFAULT_VOICE }),
    speed: Speed.optional(),
    language: LanguageCodeSchema.optional().openapi({
      description:
        'Used for st_* voices (default en). Kokoro voices (all other ids) speak the language of their id and ignore this field; when given it must still be a listed code.',
    }),
  })
  .openapi('TtsRequest', {
    description: 'Unknown fields are ignored. A wrong Content-Type or malformed JSON is INVALID_REQUEST.',
  });

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

export const JobIdQuery = z.object({
  id: uuid().openapi({
    param: { name: 'id', in: 'query', required: true },
    description: 'The job_id (UUID). Missing or not a UUID: INVALID_REQUEST.',
    example: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  }),
});

export const IdempotencyKeyHeader = z
  .string()
  .regex(IDEMPOTENCY_KEY_PATTERN)
  .max(LIMITS.idempotencyKeyMaxLength)
  .openapi({ description: 'Client-provided key for safe retries: 1 to 255 printable ASCII characters.' });

export const AuthorizationHeader = z
  .string()
  .regex(/^Bearer \S+$/)
  .max(512)
  .openapi({ description: '`Bearer <API_KEY>`, the key in the form tts_<public_id>_<secret>.' });

/** The document's example Idempotency-Key (the API reference page replaces it with a fresh key on every submission). */
export const IDEMPOTENCY_KEY_EXAMPLE = '6c0f1f1e-7e0b-4f3a-9d7e-1b2c3d4e5f60';

export const PostHeaders = z.object({
  'idempotency-key': IdempotencyKeyHeader.optional().openapi({
    param: { name: 'idempotency-key', in: 'header', required: false },
    example: IDEMPOTENCY_KEY_EXAMPLE,
  }),
  'user-agent': z
    .string()
    .regex(/\S/)
    .max(512)
    .optional()
    .openapi({
      param: { name: 'user-agent', in: 'header', required: false },
      description: 'Recommended: app name and version.',
      example: 'my-app/1.0',
    }),
});

export const AudioPathParams = z.object({
  job_id: uuid().openapi({ param: { name: 'job_id', in: 'path', required: true }, example: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f' }),
});

export const AudioQuery = z.object({
  expires: z
    .string()
    .regex(/^\d{1,12}$/)
    .max(12)
    .openapi({
      param: { name: 'expires', in: 'query', required: true },
      description: 'Unix time (seconds) at which the URL stops working.',
      example: '1775000000',
    }),
  sig: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/)
    .max(43)
    .openapi({
      param: { name: 'sig', in: 'query', required: true },
      description: 'HMAC-SHA256 signature (base64url).',
      example: 'Jm3cV0Hk8G5wq0n1d3bXb1Cq7h9o0W5YtI2m4Yk1aZ0',
    }),
});

export const CatalogVoice = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9_]+$/)
      .max(64),
    name: z.string().regex(/\S/).max(128),
    gender: z.enum(['female', 'male']),
    languages: z.array(z.string().regex(LANGUAGE_TAG_PATTERN).max(16)).max(64).openapi({ description: 'Language tags the voice speaks.' }),
    family: z.enum(['kokoro', 'supertonic']),
    curated: z.boolean().openapi({ description: 'Listed among the curated voices of docs/api-rules.md#curated-voices.' }),
  })
  .openapi('CatalogVoice');

export const VoiceCatalog = z
  .object({
    voices: z.array(CatalogVoice).max(10_000),
    count: z.number().int().min(0).max(10_000).openapi({ format: 'int32' }),
  })
  .openapi('VoiceCatalog', { description: 'Every voice the deployment can speak.' });

export type TtsRequestBody = z.infer<typeof TtsRequest>;
export type MetaBody = z.infer<typeof Meta>;
export type ErrorBodyT = z.infer<typeof ErrorBody>;
export type CompletedJobBody = z.infer<typeof CompletedJob>;
export type ProcessingJobBody = z.infer<typeof ProcessingJob>;
export type FailedJobBody = z.infer<typeof FailedJob>;
export type ExpiredJobBody = z.infer<typeof ExpiredJob>;
export type JobStatusBody = z.infer<typeof JobStatus>;
export type CatalogVoiceBody = z.infer<typeof CatalogVoice>;
