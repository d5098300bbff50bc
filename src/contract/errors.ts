/** The error table of docs/api-rules.md#errors, as data: code → HTTP status, condition and suggested action. */
export const ERROR_TABLE = {
  INVALID_KEY: {
    status: 401,
    condition: 'Bad, expired or revoked API key',
    action: 'Check the key or create a new one.',
  },
  INACTIVE_SUBSCRIPTION: {
    status: 403,
    condition: 'Subscription not active',
    action: 'Reactivate it on the billing page.',
  },
  NO_API_ACCESS: {
    status: 403,
    condition: 'Plan does not include API access',
    action: 'Check the plan or contact support.',
  },
  RATE_LIMITED: {
    status: 429,
    condition: 'Too many requests (POST 1 per minute, GET 30 per minute)',
    action: 'Wait the number of seconds in the Retry-After response header.',
  },
  USAGE_LIMIT_EXCEEDED: {
    status: 403,
    condition: 'Monthly TTS minutes exhausted',
    action: 'Upgrade the plan or wait for the reset.',
  },
  INVALID_REQUEST: {
    status: 400,
    condition: 'Missing or invalid fields',
    action: 'Correct the request body.',
  },
  TEXT_TOO_LONG: {
    status: 400,
    condition: 'Text exceeds 500,000 characters',
    action: 'Split the text into smaller chunks.',
  },
  NOT_FOUND: {
    status: 404,
    condition: "Unknown job id or another user's job",
    action: 'Check the job id.',
  },
  FILE_EXPIRED: {
    status: 200,
    condition: 'Legacy: persisted audio deleted',
    action: 'Submit a new request.',
  },
  TTS_PROVIDER_ERROR: {
    status: 502,
    condition: 'Upstream TTS service error',
    action: 'Retry with backoff.',
  },
  INTERNAL_ERROR: {
    status: 500,
    condition: 'Server error',
    action: 'Retry with backoff.',
  },
} as const satisfies Record<string, { status: number; condition: string; action: string }>;

export type ErrorCode = keyof typeof ERROR_TABLE;
export const ERROR_CODES = Object.keys(ERROR_TABLE) as [ErrorCode, ...ErrorCode[]];

export function suggestedAction(code: string): string | undefined {
  return Object.hasOwn(ERROR_TABLE, code) ? ERROR_TABLE[code as ErrorCode].action : undefined;
}

/**
 * Spec §4.7 rule 5: when a job was accepted but failed downstream, the error message tells the client
 * to retry with a fresh Idempotency-Key. Clients look for this phrase (case-insensitive).
 */
export const NEW_IDEMPOTENCY_KEY_PHRASE = 'new Idempotency-Key';

export function asksForNewIdempotencyKey(message: string): boolean {
  return message.toLowerCase().includes(NEW_IDEMPOTENCY_KEY_PHRASE.toLowerCase());
}

/**
 * The answer to an audio URL that is not valid (tampered, expired, or its audio deleted): 404
 * NOT_FOUND, the table's status for that code, with this message. The signed URL is a capability; an
 * invalid capability names no resource, and every such URL answers alike, so the URL reveals nothing.
 * The remedy is the same for all: GET the job again for a fresh audio_url (or learn it is gone).
 */
export const AUDIO_URL_INVALID_MESSAGE = 'This audio URL is not valid or has expired. GET the job again for a fresh audio_url.';

/** Seconds a client is told to wait (Retry-After) when the deployment's audio store cannot be reached. */
export const AUDIO_STORE_RETRY_AFTER_SECONDS = 5;

/** The message of the audio route's 503: the object store keeping the audio cannot be reached (docs/api-rules.md#audio-urls). */
export const AUDIO_STORE_UNREACHABLE_MESSAGE = `The audio store cannot be reached at the moment. Retry in ${AUDIO_STORE_RETRY_AFTER_SECONDS} seconds (Retry-After).`;
