import { ERROR_TABLE, type ErrorCode } from './errors.js';
import { API_VERSION, LIMITS } from './limits.js';
import { rateLimitedMessage, speedMessage } from './messages.js';
import { buildCues } from './captions.js';
import type { ErrorBodyT } from './envelope-schemas.js';
import type { CompletedJobBody, ExpiredJobBody, FailedJobBody, ProcessingJobBody } from './job-schemas.js';
import type { WordTimingsFileBody } from './timing-schemas.js';

/**
 * Named examples for every response and job state. The mock (Prism) serves them, selected with
 * `Prefer: code=<status>, example=<name>`; tests validate each against its schema.
 */
const JOB_ID = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
/** The origin of the examples' signed file URLs (the mock moves them to its own: mock/own-origin.ts). */
export const EXAMPLE_ORIGIN = 'https://tts.example.com';
const meta = (requestId: string) => ({ request_id: requestId, api_version: API_VERSION }) as const;

export const completedJobExample: CompletedJobBody = {
  success: true,
  status: 'completed',
  job_id: JOB_ID,
  audio_url: `${EXAMPLE_ORIGIN}/v1/audio/${JOB_ID}.mp3?expires=1775000000&sig=Jm3cV0Hk8G5wq0n1d3bXb1Cq7h9o0W5YtI2m4Yk1aZ0`,
  audio: { duration_seconds: 2.35, format: 'mp3', voice: 'af_heart', speed: 1.2, language: 'en-US' },
  billing: {
    mode: 'subscription',
    estimated_cost_cents: 0,
    monthly_minutes_used: 12.41,
    monthly_minutes_limit: 600,
    monthly_minutes_remaining: 587.59,
  },
  meta: { request_id: '0b6f9a52-1d1e-4c47-9a55-2f1f0b0d6a11', processing_time_ms: 184, api_version: API_VERSION },
};

const SIGNED_QUERY = '?expires=1775000000&sig=Q2v1p8x0cJ9mT3kL6wR4yB7nH5dF2sA0zE8uG1iO4qW';

/** A job submitted with `timestamps: "word"`: the base answer, plus `timings` (an extension beyond the base API). */
export const completedJobWithTimingsExample: CompletedJobBody = {
  ...completedJobExample,
  timings: {
    granularity: 'word',
    json_url: `${EXAMPLE_ORIGIN}/v1/captions/${JOB_ID}.json${SIGNED_QUERY}`,
    vtt_url: `${EXAMPLE_ORIGIN}/v1/captions/${JOB_ID}.vtt${SIGNED_QUERY}`,
    srt_url: `${EXAMPLE_ORIGIN}/v1/captions/${JOB_ID}.srt${SIGNED_QUERY}`,
  },
};

/** The text the timings example was made from (the document's example text). */
export const TIMINGS_EXAMPLE_TEXT = 'Hello from agent-tts.';
const exampleWords = [
  { word: 'Hello', start: 0.05, end: 0.412, text_start: 0, text_end: 5, utf16_start: 0, utf16_end: 5 },
  { word: 'from', start: 0.412, end: 0.655, text_start: 6, text_end: 10, utf16_start: 6, utf16_end: 10 },
  { word: 'agent', start: 0.655, end: 1.071, text_start: 11, text_end: 16, utf16_start: 11, utf16_end: 16 },
  { word: 'tts', start: 1.071, end: 2.093, text_start: 17, text_end: 20, utf16_start: 17, utf16_end: 20 },
];

export const wordTimingsFileExample: WordTimingsFileBody = {
  job_id: JOB_ID,
  granularity: 'word',
  duration_seconds: 2.35,
  words: exampleWords,
  cues: buildCues(TIMINGS_EXAMPLE_TEXT, exampleWords),
};

export const processingJobExample: ProcessingJobBody = {
  success: true,
  status: 'processing',
  job_id: JOB_ID,
  status_url: `/v1/agent-tts?id=${JOB_ID}`,
  retry_after_seconds: 5,
  progress_percent: 40,
  // The streaming extension (docs/api-rules.md#streaming-audio): a deployment without it leaves this out.
  stream_url: `${EXAMPLE_ORIGIN}/v1/stream/${JOB_ID}.mp3?expires=1775000000&sig=Vb7nK2xQ9mT4cR1wP8yL5dH3fJ6sA0zE2uG9iO1qW4e`,
  meta: meta('5d2a0c3b-8f41-4f0e-9b7a-6c1d2e3f4a5b'),
};

export const failedJobExample: FailedJobBody = {
  success: false,
  status: 'failed',
  job_id: JOB_ID,
  error: {
    code: 'TTS_PROVIDER_ERROR',
    message: 'The speech engine failed on this job. Retry with backoff, using a new Idempotency-Key.',
  },
  meta: meta('7e3b1d4c-2a5f-4b6e-8c9d-0e1f2a3b4c5d'),
};

export const expiredJobExample: ExpiredJobBody = {
  success: false,
  status: 'expired',
  job_id: JOB_ID,
  error: { code: 'FILE_EXPIRED', message: 'The audio file of this job was deleted. Submit a new request.' },
  meta: meta('9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'),
};

const errorMessages: Record<ErrorCode, string> = {
  INVALID_KEY: 'The API key is missing, malformed, unknown or revoked. Check the key or create a new one.',
  INACTIVE_SUBSCRIPTION: 'The subscription of this account is not active. Reactivate it on the billing page.',
  NO_API_ACCESS: 'The plan of this account does not include API access. Check the plan or contact support.',
  // Each operation's 429 names its own policy and wait (src/contract/routes.ts); this is POST's.
  RATE_LIMITED: rateLimitedMessage('POST', LIMITS.postPerMinute, LIMITS.rateWindowSeconds, 42),
  USAGE_LIMIT_EXCEEDED: 'Monthly TTS minutes exhausted: 30 of 30 used. Upgrade the plan or wait for the reset.',
  // The words the reference server uses for the same mistake (src/contract/messages.ts).
  INVALID_REQUEST: speedMessage(9),
  TEXT_TOO_LONG: 'text has 500001 characters; the limit is 500000. Split the text into smaller chunks.',
  NOT_FOUND: 'No job with this id for this account. Check the job id.',
  FILE_EXPIRED: 'The audio file of this job was deleted. Submit a new request.',
  TTS_PROVIDER_ERROR: 'The speech engine failed on this job. Retry with backoff, using a new Idempotency-Key.',
  INTERNAL_ERROR: 'Internal server error. Retry with backoff.',
};

export function errorExample(code: ErrorCode, requestId = 'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f', message = errorMessages[code]): ErrorBodyT {
  const body: ErrorBodyT = {
    success: false,
    error: { code, message },
    meta: meta(requestId),
  };
  if (code === 'USAGE_LIMIT_EXCEEDED') {
    body.error.details = { limit: 30, used: 30, tier: 'free', upgrade_url: 'https://tts.example.com/billing' };
  }
  return body;
}

/**
 * `{ invalid_key: { summary, value } }` style named examples for the given codes; `messages` gives an
 * operation its own wording of a code (a GET has no speed to get wrong).
 */
export function errorExamples(codes: readonly ErrorCode[], messages: Partial<Record<ErrorCode, string>> = {}) {
  return Object.fromEntries(
    codes.map((code) => [code.toLowerCase(), { summary: `${code}: ${ERROR_TABLE[code].condition}`, value: errorExample(code, undefined, messages[code]) }]),
  );
}
