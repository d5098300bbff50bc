/** The options of the client and of its calls, the check of its URLs, and what its calls answer with. */
import type { ClientClock } from './clock.js';
import type { PollOptions } from './poll.js';
import type { RetryPolicy } from './retry.js';
import type { ResponseInfo } from './response.js';
import type { CompletedJob, ProcessingJob, RetryEvent } from './types.js';

export interface AgentTtsClientOptions {
  /** Service origin (a path prefix is kept). Default http://127.0.0.1:8080. */
  baseUrl?: string;
  /** `tts_<public_id>_<secret>`; sent only as `Authorization: Bearer`, never to audio or catalog URLs. */
  apiKey?: string;
  /** Origin of the public voice catalog, for `listVoices`. */
  voicesUrl?: string;
  retry?: Partial<RetryPolicy>;
  /** Limit of each API request attempt; one that runs out is a transport failure and is retried. Default 120 s. */
  requestTimeoutMs?: number;
  /** Limit of each audio download attempt, body included (a long text makes a large file). Default 30 min. */
  downloadTimeoutMs?: number;
  /** User-Agent to send; null sends none (browsers manage that header themselves). */
  userAgent?: string | null;
  /** Told before every automatic retry. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * Headers of your own sent with every API request (submitting, getting and polling a job; not with the
   * signed audio and caption URLs nor to the voice catalog). Against the mock this chooses an example:
   * `{ Prefer: 'code=202, example=processing' }` (mock/README.md lists them); a call's `headers` add to
   * these. Authorization, Idempotency-Key and Content-Type are the client's (`apiKey`, `idempotencyKey`):
   * naming them here is a TypeError.
   */
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
  /**
   * What the client waits in and measures with: the waits between polls, before retries (Retry-After
   * included) and before a resubmission, and a poll's elapsed time and timeout. Default `systemClock`
   * (real time). A test passes one that moves a test clock instead of waiting, e.g. the sandbox's
   * `sandbox.clock.client`. The per-request limits above stay in real time.
   */
  clock?: ClientClock;
}

export interface CallOptions {
  /**
   * Ends the call: it rejects with AgentTtsError ABORTED (TIMEOUT when the signal timed out, as
   * `AbortSignal.timeout` does), never a raw DOMException.
   */
  signal?: AbortSignal;
  /**
   * The call's whole time, on its clock: Retry-After waits, retries and the requests (and for `speak`
   * and `poll` the polls; default 30 minutes there, none elsewhere). A wait that would pass it is not
   * begun: the error that asked for it is thrown at once (a 429 as RATE_LIMITED with its
   * `retryAfterSeconds`); a request still unanswered then rejects with TIMEOUT.
   */
  timeoutMs?: number;
  /** Overrides the client's onRetry for this call. */
  onRetry?: (event: RetryEvent) => void;
  /** Overrides the client's clock for this call's waits (the MCP server uses it to report progress during a wait). */
  clock?: ClientClock;
  /**
   * Headers of your own for this call's API requests, over the client's `headers` (same rules): e.g.
   * `{ Prefer: 'code=200, example=completed_with_timings' }` on a poll of the mock.
   */
  headers?: Record<string, string>;
}

export interface SubmitOptions extends CallOptions {
  /**
   * Key of this logical request. Default: a fresh random UUID. Pass `error.retryIdempotencyKey` of a
   * previous failure to retry that request without a second job or charge (docs/api-rules.md#idempotency).
   */
  idempotencyKey?: string;
}

export interface SubmitResult {
  job: CompletedJob | ProcessingJob;
  /** The key the accepted request was sent with (it changes if the service asked for a new one). */
  idempotencyKey: string;
  /** True when the service answered with the existing job of an already used key. */
  replayed: boolean;
  /** The answer's request id, status and POST rate-limit state (RateLimit headers). */
  response: ResponseInfo;
}

export interface SpeakOptions extends SubmitOptions, Omit<PollOptions, 'startedAt' | 'initialDelayMs'> {
  /**
   * How many times a job that failed (502/500 naming `details.job_id`, or polled as `failed`) is
   * resubmitted with a fresh Idempotency-Key, as a new job (docs/clients.md#failure-policy). Default 0:
   * the failure is the answer. A resubmission waits out a POST bucket the last answer said was empty
   * (RateLimit r=0) when that fits in `timeoutMs` and the retry policy's `maxRetryAfterMs`, and is not
   * made otherwise (the failure is then thrown): it never sends a POST it knows will be refused.
   */
  maxResubmits?: number;
}

export interface AudioDownload {
  body: ReadableStream<Uint8Array>;
  contentType: string | null;
  /** From Content-Length, when the server sent it. */
  sizeBytes?: number;
}

/** An absolute http(s) URL without trailing slashes; anything else fails here, not as a network error on first use. */
export function checkUrl(value: string, option: string): string {
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol;
  } catch {
    // not an absolute URL
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new TypeError(`${option} must be an absolute http:// or https:// URL, got ${JSON.stringify(value)}`);
  }
  return value.replace(/\/+$/, '');
}

/** Headers the client sets itself; the `headers` options may not name them. */
const OWN_HEADERS = ['authorization', 'idempotency-key', 'content-type', 'content-length'];

/** The `headers` option checked: a TypeError names a header the client sets itself. */
export function ownHeaders(headers: Record<string, string> | undefined, option: string): Record<string, string> {
  for (const name of Object.keys(headers ?? {})) {
    if (OWN_HEADERS.includes(name.toLowerCase())) {
      throw new TypeError(`${option} may not set ${name}: the client sets it (apiKey for Authorization, idempotencyKey for Idempotency-Key)`);
    }
  }
  return headers ?? {};
}
