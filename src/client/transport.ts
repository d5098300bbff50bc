import { systemClock, type ClientClock } from './clock.js';
import { AgentTtsError } from './errors.js';
import { abortReason, backoffDelayMs, type RetryPolicy } from './retry.js';
import type { RetryEvent } from './types.js';

export interface RetryContext {
  policy: RetryPolicy;
  method: 'GET' | 'POST';
  /** What is being reached, for transport error messages (never a signed URL's query). */
  target: string;
  signal?: AbortSignal;
  /** Per-attempt limit; an attempt that runs out counts as a transport failure. */
  attemptTimeoutMs: number;
  onRetry?: (event: RetryEvent) => void;
  /** POST only: the key of the first attempt. */
  idempotencyKey?: string;
  newIdempotencyKey?: () => string;
  /** What the waits between attempts are slept on. Default real time. */
  clock?: ClientClock;
}

/** One attempt: resolves with the result, or throws AgentTtsError for an answer that is an error. */
export type AttemptFn<T> = (signal: AbortSignal, idempotencyKey: string | undefined) => Promise<T>;

function describeCause(error: unknown): string {
  // undici reports "fetch failed" and keeps the useful part (ECONNREFUSED, socket hang up) in `cause`.
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    if (current.message && !parts.includes(current.message)) parts.push(current.message);
    current = (current as Error & { cause?: unknown }).cause;
  }
  return parts.join(': ') || String(error);
}

/**
 * Runs `attempt` under the retry rules of docs/api-rules.md#idempotency:
 * - a transport failure (no answer, connection dropped, attempt timed out) is retried with the same key;
 * - a retryable error answer (429, 5xx, INTERNAL_ERROR, TTS_PROVIDER_ERROR) is retried with the same key,
 *   unless its message asks for a new Idempotency-Key, in which case a fresh key is generated first;
 * - any other error is returned to the caller at once, carrying the key to reuse if the caller retries.
 * Waits between attempts follow the policy (jitter, Retry-After) and end early when `signal` aborts.
 */
export async function withRetries<T>(ctx: RetryContext, attempt: AttemptFn<T>): Promise<T> {
  let key = ctx.idempotencyKey;
  for (let n = 1; ; n++) {
    if (ctx.signal?.aborted) throw abortReason(ctx.signal);
    const timeout = AbortSignal.timeout(ctx.attemptTimeoutMs);
    const attemptSignal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
    let error: AgentTtsError;
    try {
      return await attempt(attemptSignal, key);
    } catch (caught) {
      if (ctx.signal?.aborted) throw abortReason(ctx.signal);
      if (caught instanceof AgentTtsError) {
        error = caught;
      } else {
        const why = timeout.aborted ? `no answer within ${Math.round(ctx.attemptTimeoutMs / 1000)} s` : describeCause(caught);
        error = new AgentTtsError({ code: 'NETWORK_ERROR', message: `Could not reach ${ctx.target}: ${why}`, cause: caught });
      }
    }
    if (key !== undefined && error.needsNewIdempotencyKey && ctx.newIdempotencyKey) key = ctx.newIdempotencyKey();
    error.retryIdempotencyKey = key;
    error.attempts = n;
    if (!error.retryable || n >= ctx.policy.maxAttempts) throw error;
    if (error.retryAfterSeconds !== undefined && error.retryAfterSeconds * 1000 > ctx.policy.maxRetryAfterMs) throw error;
    const delayMs = backoffDelayMs(ctx.policy, n, error.retryAfterSeconds);
    ctx.onRetry?.({ attempt: n, delayMs, error, idempotencyKey: key, method: ctx.method });
    await (ctx.clock ?? systemClock).sleep(delayMs, ctx.signal);
  }
}
