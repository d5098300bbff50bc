/** A call's deadline (`timeoutMs`), and when a failed job may be resubmitted within it (docs/clients.md#failure-policy). */
import type { ClientClock } from './clock.js';
import { AgentTtsError, type RateLimitInfo } from './errors.js';
import type { CallOptions } from './options.js';
import { backoffDelayMs, type RetryPolicy } from './retry.js';

/** A call's options with its deadline on its clock (from `timeoutMs`), as the retry loop takes them. */
export type Bounded = CallOptions & { deadline?: number; timedOut?: (cause: unknown) => AgentTtsError };

/** The deadline of a call given `timeoutMs`, measured from `startedAt` on `clock`; none without it. */
export function bounded(options: CallOptions, clock: ClientClock, what: string, startedAt = clock.now()): Bounded {
  const timeoutMs = options.timeoutMs;
  if (timeoutMs === undefined) return options;
  return {
    ...options,
    deadline: startedAt + timeoutMs,
    timedOut: (cause) =>
      new AgentTtsError({ code: 'TIMEOUT', message: `${what} had no answer within the call's timeout of ${Math.round(timeoutMs / 100) / 10} s`, cause }),
  };
}

/**
 * How long to wait before resubmitting a failed job: a backoff, or, when the last POST answer said its
 * bucket was empty (RateLimit r=0), until it refills; undefined when that is longer than the client
 * sits out a Retry-After (the failure is then the answer, and no POST is spent on a certain 429).
 */
export function resubmitDelayMs(policy: RetryPolicy, postBucket: RateLimitInfo | undefined): number | undefined {
  if (postBucket && postBucket.policy.name === 'post' && postBucket.state.remaining <= 0) {
    if (postBucket.state.resetSeconds === undefined) return undefined;
    const waitMs = postBucket.state.resetSeconds * 1000 + 1000;
    return waitMs > policy.maxRetryAfterMs ? undefined : waitMs;
  }
  return backoffDelayMs(policy, 1, undefined);
}
