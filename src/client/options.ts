/** The options of the client and of its calls, and what its calls answer with. */
import type { ClientClock } from './clock.js';
import type { PollOptions } from './poll.js';
import type { RetryPolicy } from './retry.js';
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
  signal?: AbortSignal;
  /** Overrides the client's onRetry for this call. */
  onRetry?: (event: RetryEvent) => void;
  /** Overrides the client's clock for this call's waits (the MCP server uses it to report progress during a wait). */
  clock?: ClientClock;
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
}

export interface SpeakOptions extends SubmitOptions, Omit<PollOptions, 'startedAt' | 'initialDelayMs'> {
  /**
   * How many times a job that fails after acceptance is resubmitted with a fresh key, when its error
   * asks for one (docs/api-rules.md#idempotency rule 5). Default 1.
   */
  maxResubmits?: number;
}

export interface AudioDownload {
  body: ReadableStream<Uint8Array>;
  contentType: string | null;
  /** From Content-Length, when the server sent it. */
  sizeBytes?: number;
}
