import { AgentTtsError } from './errors.js';

/** How the client retries: bounded attempts, exponential backoff with full jitter, Retry-After respected. */
export interface RetryPolicy {
  /** Attempts per request, the first included. 1 disables retries. */
  maxAttempts: number;
  /** First backoff ceiling; it doubles each attempt. */
  baseDelayMs: number;
  /** Ceiling of the exponential backoff. */
  maxDelayMs: number;
  /**
   * The longest Retry-After the client will sit out. A longer one (a POST bucket of 1 per minute can
   * ask for up to 60 s) is reported to the caller instead of waited for.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 90_000,
};

export function resolveRetryPolicy(overrides: Partial<RetryPolicy> | undefined): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError(`retry.maxAttempts must be an integer of at least 1, got ${policy.maxAttempts}`);
  }
  return policy;
}

/**
 * Delay before attempt `attempt + 1` (attempt counts from 1). Without Retry-After: full jitter over
 * an exponentially growing ceiling, so many clients failing together do not retry together. With
 * Retry-After: never earlier than the service asked, plus up to a second of jitter for the same reason.
 */
export function backoffDelayMs(policy: RetryPolicy, attempt: number, retryAfterSeconds: number | undefined, random: () => number = Math.random): number {
  if (retryAfterSeconds !== undefined) {
    return retryAfterSeconds * 1000 + Math.floor(random() * 1000);
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * What a call rejects with when the caller's AbortSignal ends it: an AgentTtsError the signal gave as
 * its reason as it is; otherwise TIMEOUT for a signal that timed out (`AbortSignal.timeout`) and
 * ABORTED for any other, the signal's reason kept as `cause`. Never a raw DOMException.
 */
export function abortError(signal: AbortSignal): AgentTtsError {
  const reason: unknown = signal.reason;
  if (reason instanceof AgentTtsError) return reason;
  const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
  const why = reason instanceof Error && reason.message ? `: ${reason.message}` : '';
  return new AgentTtsError({
    code: timedOut ? 'TIMEOUT' : 'ABORTED',
    message: timedOut ? `The call's AbortSignal timed out${why}` : `The call was aborted by its AbortSignal${why}`,
    cause: reason,
  });
}

/** The reason a signal was aborted, as a throwable (DOMException AbortError when none was given). */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Waits `ms`, rejecting with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
