/**
 * The tables of the API's rules (docs/api-rules.md), transcribed by hand for the contract tests.
 *
 * Deliberately NOT derived from the contract modules (errors.ts, languages.ts, voices.ts, limits.ts):
 * a test that compares the contract with itself cannot fail. When the API changes, change this file
 * from the API text, then make the contract follow.
 */

/** §7 error table, in the API's order. */
export const SPEC_ERROR_TABLE = [
  { code: 'INVALID_KEY', status: 401, condition: 'Bad, expired or revoked API key', action: 'Check the key or create a new one.' },
  { code: 'INACTIVE_SUBSCRIPTION', status: 403, condition: 'Subscription not active', action: 'Reactivate it on the billing page.' },
  { code: 'NO_API_ACCESS', status: 403, condition: 'Plan does not include API access', action: 'Check the plan or contact support.' },
  {
    code: 'RATE_LIMITED',
    status: 429,
    condition: 'Too many requests (POST 1 per minute, GET 30 per minute)',
    action: 'Wait the number of seconds in the Retry-After response header.',
  },
  { code: 'USAGE_LIMIT_EXCEEDED', status: 403, condition: 'Monthly TTS minutes exhausted', action: 'Upgrade the plan or wait for the reset.' },
  { code: 'INVALID_REQUEST', status: 400, condition: 'Missing or invalid fields', action: 'Correct the request body.' },
  { code: 'TEXT_TOO_LONG', status: 400, condition: 'Text exceeds 500,000 characters', action: 'Split the text into smaller chunks.' },
  { code: 'NOT_FOUND', status: 404, condition: "Unknown job id or another user's job", action: 'Check the job id.' },
  { code: 'FILE_EXPIRED', status: 200, condition: 'Legacy: persisted audio deleted', action: 'Submit a new request.' },
  { code: 'TTS_PROVIDER_ERROR', status: 502, condition: 'Upstream TTS service error', action: 'Retry with backoff.' },
  { code: 'INTERNAL_ERROR', status: 500, condition: 'Server error', action: 'Retry with backoff.' },
] as const;

/** §4.5 Supertonic language codes (31). */
export const SPEC_LANGUAGE_CODES = [
  'en',
  'ar',
  'bg',
  'hr',
  'cs',
  'da',
  'nl',
  'et',
  'fi',
  'fr',
  'de',
  'el',
  'hi',
  'hu',
  'id',
  'it',
  'ja',
  'ko',
  'lv',
  'lt',
  'pl',
  'pt',
  'ro',
  'ru',
  'sk',
  'sl',
  'es',
  'sv',
  'tr',
  'uk',
  'vi',
] as const;

/** §4.4 curated voices. */
export const SPEC_CURATED_VOICES = [
  'st_f1',
  'st_f2',
  'st_f3',
  'st_f4',
  'st_f5',
  'st_m1',
  'st_m2',
  'st_m3',
  'st_m4',
  'st_m5',
  'af_heart',
  'af_bella',
  'af_nicole',
  'af_sarah',
  'af_alloy',
  'am_michael',
  'am_adam',
  'am_echo',
  'bf_emma',
  'bm_george',
  'ef_sofia',
  'em_diego',
  'ff_claire',
  'fm_antoine',
  'hf_priya',
  'hm_raj',
  'if_lucia',
  'im_marco',
  'jf_yuki',
  'jm_takeshi',
  'pf_ana',
  'pm_carlos',
  'zf_mei',
  'zm_chen',
] as const;

/** §4.1 request body defaults and constraints, §8 limits, §9 version label. */
export const SPEC_REQUEST = {
  textMinChars: 1,
  textMaxChars: 500_000,
  speedMin: 0.5,
  speedMax: 1.5,
  defaultVoice: 'af_heart',
  defaultSpeed: 1.2,
} as const;
export const SPEC_API_VERSION = '2026-04';

/**
 * §2.2 fields per body, with the API's type and presence. `type` is the JSON Schema type the API's
 * type maps to (string (UUID) → string + format uuid, string (URL) → string + format uri); `null`
 * where the API gives no type (legacy fields). `status` and `success` per body follow §3.1 and the
 * design decisions (failed and expired answer success:false).
 */
export type FieldSpec = { type: string | null; format?: string; required: boolean; const?: unknown };

export const SPEC_BODIES: Record<string, Record<string, FieldSpec>> = {
  CompletedJob: {
    success: { type: 'boolean', required: true, const: true },
    status: { type: 'string', required: true, const: 'completed' },
    job_id: { type: 'string', format: 'uuid', required: true },
    audio_url: { type: 'string', format: 'uri', required: true },
    audio: { type: 'object', required: true },
    billing: { type: 'object', required: true },
    meta: { type: 'object', required: true },
  },
  ProcessingJob: {
    success: { type: 'boolean', required: true, const: true },
    status: { type: 'string', required: true, const: 'processing' },
    job_id: { type: 'string', format: 'uuid', required: true },
    status_url: { type: 'string', required: true },
    retry_after_seconds: { type: 'integer', required: true },
    meta: { type: 'object', required: true },
  },
  FailedJob: {
    success: { type: 'boolean', required: true, const: false },
    status: { type: 'string', required: true, const: 'failed' },
    job_id: { type: 'string', format: 'uuid', required: true },
    error: { type: 'object', required: true },
    meta: { type: 'object', required: true },
  },
  ExpiredJob: {
    success: { type: 'boolean', required: true, const: false },
    status: { type: 'string', required: true, const: 'expired' },
    job_id: { type: 'string', format: 'uuid', required: true },
    error: { type: 'object', required: true },
    meta: { type: 'object', required: true },
  },
  Audio: {
    duration_seconds: { type: 'number', required: false },
    format: { type: 'string', required: true },
    voice: { type: 'string', required: true },
    speed: { type: 'number', required: true },
    expires_at: { type: null, required: false },
    file_size_bytes: { type: null, required: false },
  },
  Billing: {
    mode: { type: 'string', required: true },
    estimated_cost_cents: { type: 'number', required: true },
    monthly_minutes_used: { type: 'number', required: true },
    monthly_minutes_limit: { type: 'number', required: true },
    monthly_minutes_remaining: { type: 'number', required: true },
  },
  Meta: {
    request_id: { type: 'string', format: 'uuid', required: true },
    processing_time_ms: { type: 'integer', required: false },
    api_version: { type: 'string', required: true, const: SPEC_API_VERSION },
  },
  /** §7 error body. */
  ErrorBody: {
    success: { type: 'boolean', required: true, const: false },
    error: { type: 'object', required: true },
    meta: { type: 'object', required: true },
  },
  ErrorObject: {
    code: { type: 'string', required: true },
    message: { type: 'string', required: true },
    details: { type: 'object', required: false },
  },
};
