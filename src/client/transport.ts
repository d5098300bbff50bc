import { systemClock, type ClientClock } from './clock.js';
import { AgentTtsError } from './errors.js';
import { abortError, backoffDelayMs, type RetryPolicy } from './retry.js';
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
  /**
   * The call's deadline on `clock` (its `timeoutMs`): no wait is begun that would end after it (the
   * error that asked for the wait is thrown at once, a 429 as RATE_LIMITED with its Retry-After), and an
   * attempt gets at most the time left plus DEADLINE_GRACE_MS (1 s, for an answer to a request already
   * sent); one that runs out
   * then is `timedOut()`, not a transport failure.
   */
  deadline?: number;
  timedOut?: (cause: unknown) => AgentTtsError;
}

/** What an attempt begun near its call's deadline gets beyond it, so that a request already sent can be answered. */
const DEADLINE_GRACE_MS = 1000;

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

/** The error codes in a transport failure's chain of causes (undici's ECONNREFUSED is two causes down). */
function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as Error & { cause?: unknown }).cause;
  }
  return codes;
}

/** A loopback host: this machine (127.0.0.0/8, ::1, localhost). */
function isLoopback(target: string): boolean {
  let host: string;
  try {
    host = new URL(target).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * A connection this machine refused: nothing listens at that port, and a retry a second later will not
 * change that, so it is reported at once, not retried (docs/clients.md#connection-refused). A refusal
 * from another host may be a restart behind a load balancer and is retried as any transport failure.
 */
function refusedOnLoopback(error: unknown, target: string): boolean {
  return causeCodes(error).includes('ECONNREFUSED') && isLoopback(target);
}

/**
 * In a browser, fetch rejects with a bare TypeError ("Failed to fetch", "Load failed", "NetworkError
 * when attempting to fetch resource.") both when the service cannot be reached and when the browser
 * refuses its answer under CORS: the page cannot tell which, so the message names both.
 */
function browserHint(error: unknown): string {
  const location = (globalThis as { document?: unknown; location?: { origin?: unknown } }).document === undefined ? undefined : globalThis.location;
  if (location === undefined || !(error instanceof TypeError)) return '';
  const origin = typeof location.origin === 'string' && location.origin !== 'null' ? location.origin : 'this page';
  return (
    ` (in a browser this is also how a CORS refusal looks: the service must allow the origin ${origin} in its CORS settings, ` +
    'CORS_ORIGINS or CORS_PREVIEW_PATTERN on the reference server; the browser console says which)'
  );
}

/**
 * Runs `attempt` under the retry rules of docs/api-rules.md#idempotency:
 * - a transport failure (no answer, connection dropped, attempt timed out) is retried with the same key,
 *   except a connection refused on this machine (loopback), which is reported at once;
 * - a retryable error answer that names no failed job (429 after its Retry-After, 503 and other 5xx) is
 *   retried with the same key (the retry may be a replay of a job the answer did not reach us about);
 * - a job that failed (502/500 naming `details.job_id`, or asking for a new Idempotency-Key) is never
 *   retried: it is the caller's answer, thrown carrying a fresh key in `retryIdempotencyKey`;
 * - any other error is returned to the caller at once, carrying the key to reuse if the caller retries.
 * Waits between attempts follow the policy (jitter, Retry-After), end early when `signal` aborts, and are
 * not begun when they would pass `deadline` (docs/clients.md#failure-policy).
 */
export async function withRetries<T>(ctx: RetryContext, attempt: AttemptFn<T>): Promise<T> {
  const clock = ctx.clock ?? systemClock;
  let key = ctx.idempotencyKey;
  for (let n = 1; ; n++) {
    if (ctx.signal?.aborted) throw abortError(ctx.signal);
    const left = ctx.deadline === undefined ? Number.POSITIVE_INFINITY : Math.max(0, ctx.deadline - clock.now()) + DEADLINE_GRACE_MS;
    const limitMs = Math.min(ctx.attemptTimeoutMs, left);
    const timeout = AbortSignal.timeout(limitMs);
    const attemptSignal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
    let error: AgentTtsError;
    let refused = false;
    try {
      return await attempt(attemptSignal, key);
    } catch (caught) {
      if (ctx.signal?.aborted) throw abortError(ctx.signal);
      if (caught instanceof AgentTtsError) {
        error = caught;
      } else if (timeout.aborted && limitMs < ctx.attemptTimeoutMs && ctx.timedOut) {
        // The request may have been acted on (a POST may have made its job): the same key finds it.
        const timedOut = ctx.timedOut(caught);
        timedOut.retryIdempotencyKey = key;
        timedOut.attempts = n;
        throw timedOut;
      } else {
        refused = !timeout.aborted && refusedOnLoopback(caught, ctx.target);
        const why = timeout.aborted
          ? `no answer within ${Math.round(ctx.attemptTimeoutMs / 1000)} s`
          : refused
            ? `${describeCause(caught)}: nothing is listening there (not retried)`
            : `${describeCause(caught)}${browserHint(caught)}`;
        error = new AgentTtsError({ code: 'NETWORK_ERROR', message: `Could not reach ${ctx.target}: ${why}`, cause: caught });
      }
    }
    if (key !== undefined && error.needsNewIdempotencyKey && ctx.newIdempotencyKey) key = ctx.newIdempotencyKey();
    error.retryIdempotencyKey = key;
    error.attempts = n;
    if (!error.retryable || error.jobFailed || refused || n >= ctx.policy.maxAttempts) throw error;
    if (error.retryAfterSeconds !== undefined && error.retryAfterSeconds * 1000 > ctx.policy.maxRetryAfterMs) throw error;
    const delayMs = backoffDelayMs(ctx.policy, n, error.retryAfterSeconds);
    // A wait that would end after the deadline is not begun: the error that asked for it is the answer.
    if (ctx.deadline !== undefined && clock.now() + delayMs > ctx.deadline) throw error;
    ctx.onRetry?.({ attempt: n, delayMs, error, idempotencyKey: key, method: ctx.method });
    try {
      await clock.sleep(delayMs, ctx.signal);
    } catch (caught) {
      if (ctx.signal?.aborted) throw abortError(ctx.signal);
      throw caught;
    }
  }
}
