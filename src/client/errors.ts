import { type RateLimitPolicy, type RateLimitState, readRateLimitHeaders } from '../contract/ratelimit-headers.js';
import { ERROR_TABLE, asksForNewIdempotencyKey, suggestedAction, type ErrorCode } from '../contract/errors.js';

/**
 * Codes the client itself raises when there is no error body from the service to report:
 * the service could not be reached, answered something that is not this API, the call's `timeoutMs`
 * (or its AbortSignal's timeout) ran out (TIMEOUT), its AbortSignal aborted it (ABORTED), or a
 * completed job has no word timings to download.
 */
export const CLIENT_ERROR_ACTIONS = {
  NETWORK_ERROR: 'Check the base URL and the network connection, then retry.',
  INVALID_RESPONSE: 'Check that the base URL points at the text-to-speech API.',
  TIMEOUT: 'The job may still finish: check it later with its job id.',
  ABORTED: 'The call was cancelled by its AbortSignal; a job it submitted may still finish: check it with its job id.',
  NO_TIMINGS: 'Submit the text with timestamps: "word" to have word timings and captions; a service that still answers without them does not offer them.',
} as const;

export type ClientErrorCode = keyof typeof CLIENT_ERROR_ACTIONS;
export type AgentTtsErrorCode = ErrorCode | ClientErrorCode;

/** A RateLimit-Policy / RateLimit pair as the service sent it: the named policy and its state. */
export interface RateLimitInfo {
  policy: RateLimitPolicy;
  state: RateLimitState;
}

export interface AgentTtsErrorInit {
  code: AgentTtsErrorCode;
  message: string;
  /** HTTP status of the answer that carried the error; undefined when there was no answer. */
  status?: number;
  requestId?: string;
  details?: Record<string, unknown>;
  jobId?: string;
  /** Seconds from the Retry-After header, when the service sent one. */
  retryAfterSeconds?: number;
  /** The RateLimit-Policy and RateLimit headers of the answer (draft-ietf-httpapi-ratelimit-headers-11), when valid. */
  rateLimit?: RateLimitInfo;
  /**
   * The Idempotency-Key to use if the caller retries the same logical request (docs/api-rules.md#idempotency): the key
   * just used, or a fresh one when the service asked for a new key. Undefined for requests without one.
   */
  retryIdempotencyKey?: string;
  attempts?: number;
  /** True when the answer came from an agent-tts sandbox (its `Agent-TTS-Sandbox: 1` header). */
  sandbox?: boolean;
  cause?: unknown;
}

function isServiceCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_TABLE, code);
}

/** Every failure the client reports: an error body of the service, or a client-side condition. */
export class AgentTtsError extends Error {
  override readonly name = 'AgentTtsError';
  readonly code: AgentTtsErrorCode;
  readonly status?: number;
  readonly requestId?: string;
  readonly details?: Record<string, unknown>;
  readonly jobId?: string;
  readonly retryAfterSeconds?: number;
  /** The bucket the answer reported: its policy ("post" or "get", quota, window) and what was left. */
  readonly rateLimit?: RateLimitInfo;
  /** Set by the retry loop: the key a caller should send if it retries this logical request (§4.7). */
  retryIdempotencyKey?: string;
  /** Set by the retry loop: how many attempts were made. */
  attempts?: number;
  /** True when the answer came from an agent-tts sandbox (its `Agent-TTS-Sandbox: 1` header), so advice can fit it. */
  readonly sandbox?: boolean;
  /** The API's suggested action for this code (§7), or the client's own for client-side codes. */
  readonly suggestedAction: string;

  constructor(init: AgentTtsErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.details = init.details;
    this.jobId = init.jobId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.rateLimit = init.rateLimit;
    this.retryIdempotencyKey = init.retryIdempotencyKey;
    this.attempts = init.attempts;
    this.sandbox = init.sandbox;
    this.suggestedAction = suggestedAction(init.code) ?? CLIENT_ERROR_ACTIONS[init.code as ClientErrorCode] ?? 'Retry later.';
  }

  /** True for codes the API tells clients to retry: rate limits, server and provider errors, transport failures. */
  get retryable(): boolean {
    if (this.code === 'NETWORK_ERROR' || this.code === 'RATE_LIMITED') return true;
    if (this.code === 'INTERNAL_ERROR' || this.code === 'TTS_PROVIDER_ERROR') return true;
    return this.status !== undefined && (this.status === 429 || this.status >= 500);
  }

  /**
   * A job that failed: the service accepted it and its synthesis failed (a 502 or 500 naming
   * `details.job_id`, a message asking for a new Idempotency-Key, or a polled job whose status is
   * `failed`). That is the caller's answer: the client never retries it by itself (docs/clients.md#failure-policy).
   */
  get jobFailed(): boolean {
    if (this.code !== 'TTS_PROVIDER_ERROR' && this.code !== 'INTERNAL_ERROR') return false;
    return typeof this.details?.job_id === 'string' || this.status === 200 || this.needsNewIdempotencyKey;
  }

  /**
   * The HTTP status the API's error table gives this code (502 for TTS_PROVIDER_ERROR…), whatever the
   * answer that carried it (a polled job's failure comes in a 200); undefined for the client's own codes.
   */
  get tableStatus(): number | undefined {
    return isServiceCode(this.code) ? ERROR_TABLE[this.code].status : undefined;
  }

  /** Spec §4.7 rule 5: the job was accepted but failed downstream, so a retry needs a fresh key. */
  get needsNewIdempotencyKey(): boolean {
    return isServiceCode(this.code) && asksForNewIdempotencyKey(this.message);
  }

  /** A plain object for logs and `--json` output. */
  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      status: this.status,
      request_id: this.requestId,
      suggested_action: this.suggestedAction,
      details: this.details,
      job_id: this.jobId,
      retry_after_seconds: this.retryAfterSeconds,
    };
  }
}

export function isAgentTtsError(value: unknown): value is AgentTtsError {
  return value instanceof AgentTtsError;
}

interface ErrorBodyLike {
  error?: { code?: unknown; message?: unknown; details?: unknown };
  meta?: { request_id?: unknown };
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Parses a Retry-After header given in seconds (the form this API uses); dates are read too. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * Builds the error for a non-2xx answer. A body that is not this API's error shape (a proxy's HTML
 * page, say) becomes INVALID_RESPONSE, still carrying the HTTP status so 5xx stays retryable.
 */
export function errorFromResponse(response: Response, body: unknown, extra: Partial<AgentTtsErrorInit> = {}): AgentTtsError {
  const obj = asObject(body) as ErrorBodyLike | undefined;
  const headerRequestId = response.headers.get('x-request-id') ?? undefined;
  const rateLimit = readRateLimitHeaders((name) => response.headers.get(name));
  // Retry-After is authoritative; a 429 without it still says when its bucket refills (RateLimit t=).
  const retryAfterSeconds =
    parseRetryAfter(response.headers.get('retry-after')) ??
    (response.status === 429 && rateLimit?.state.resetSeconds ? rateLimit.state.resetSeconds : undefined);
  const code = obj?.error?.code;
  const message = obj?.error?.message;
  const requestId = typeof obj?.meta?.request_id === 'string' ? obj.meta.request_id : headerRequestId;
  const sandbox = response.headers.get('agent-tts-sandbox') === '1' ? true : undefined;
  if (typeof code === 'string' && isServiceCode(code) && typeof message === 'string') {
    const details = asObject(obj?.error?.details);
    const jobId = details?.job_id;
    return new AgentTtsError({
      code,
      message,
      status: response.status,
      requestId,
      details,
      ...(typeof jobId === 'string' ? { jobId } : {}),
      retryAfterSeconds,
      rateLimit,
      sandbox,
      ...extra,
    });
  }
  return new AgentTtsError({
    code: 'INVALID_RESPONSE',
    message: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} without an API error body from ${stripQuery(response.url)}`,
    status: response.status,
    requestId,
    retryAfterSeconds,
    rateLimit,
    sandbox,
    ...extra,
  });
}

/**
 * The error for a 404 on a route every deployment serves (the submit route, the voice catalog): the
 * URL points at another server or path, so "check the job id" would mislead. Not retried.
 */
export function notThisApi(response: Response, body: unknown, base: string, route: string, what: string): AgentTtsError {
  return new AgentTtsError({
    code: 'INVALID_RESPONSE',
    message: `${base} does not serve ${what} (${response.status} on ${route})`,
    status: response.status,
    requestId: errorFromResponse(response, body).requestId,
  });
}

/** Drops the query of a URL: signed audio URLs carry their capability there. */
export function stripQuery(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
