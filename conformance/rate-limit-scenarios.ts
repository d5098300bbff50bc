import { defined } from './defined.js';
import { type Exchange, jsonBody } from './exchange.js';
import { mustAnswer, must } from './assertions.js';
import type { Lease } from './key-pool.js';
import { type RuleContext, retryAfterOf } from './rule-context.js';
import { type FollowedJob, SHORT_TEXT, newIdempotencyKey, submitAndFollow } from './scenarios.js';

/**
 * The shared rate-limit scenarios: a key's POST bucket exhausted within one window, and what follows
 * once its Retry-After has passed. Like every scenario, each runs once per suite run.
 */

/**
 * The POST bucket exhausted: one job, then a second POST (new Idempotency-Key) at once, then a GET
 * on the same key. The key stays leased for rateLimitRecovery.
 */
export interface PostLimited {
  key: string;
  first: Exchange;
  limited: Exchange;
  get?: Exchange;
  retryIdempotencyKey: string;
  lease: Lease;
}

/** How many key pairs postLimited tries when the first POST's own answer takes half a window or more. */
const POST_PAIR_ATTEMPTS = 3;

export function postLimited(ctx: RuleContext): Promise<PostLimited> {
  return ctx.scenario('post-limited', async (s) => {
    let lease!: Lease;
    let key!: string;
    let retryIdempotencyKey!: string;
    let first!: Exchange;
    let limited!: Exchange;
    for (let attempt = 1; attempt <= POST_PAIR_ATTEMPTS; attempt++) {
      lease = await s.run.pool.lease({ fresh: 'post' });
      s.run.detachedLeases.push(lease);
      key = defined(lease.keys[0], 'the key of a one-key lease');
      retryIdempotencyKey = newIdempotencyKey();
      const started = performance.now();
      let gapMs = 0;
      // Both POSTs in one window: on a test clock no other rule's wait may move it between them.
      [first, limited] = await s.steady(
        async () => {
          const one = await s.post(key, { text: SHORT_TEXT }, { idempotencyKey: newIdempotencyKey(), label: 'first POST of the window' });
          gapMs = performance.now() - started;
          return [
            one,
            await s.post(key, { text: SHORT_TEXT }, { idempotencyKey: retryIdempotencyKey, throttle: false, label: 'second POST in the same window' }),
          ];
        },
        { key, bucket: 'post' },
      );
      // Measured, not guessed: when the first POST's answer (its inline wait) took half the window or
      // more, a second POST admitted may stand in a window of its own, so the pair proves nothing and is
      // tried again on another key. A quick pair admitted twice is the deployment's fault.
      const admitted = limited.response !== undefined && limited.response.status < 300;
      if (!admitted || gapMs < (s.settings.rateWindowSeconds * 1000) / 2 || attempt === POST_PAIR_ATTEMPTS) break;
      lease.release();
    }
    const firstJob = jsonBody(first)?.job_id;
    const get = typeof firstJob === 'string' ? await s.getJob(key, firstJob, { label: 'GET on the same key' }) : undefined;
    const result = { key, first, limited, get, retryIdempotencyKey, lease };
    // The recovery (wait out Retry-After, send again) costs a window; run it only for the rules that
    // judge it, and then always, since it is what gives the key back.
    if (RECOVERY_RULES.some((id) => s.run.runningRules.has(id))) queueMicrotask(() => void rateLimitRecovery(s.detached()).catch(() => undefined));
    else lease.release();
    return result;
  });
}

const RECOVERY_RULES = ['rate-limit.retry-after-honest', 'idempotency.retry-after-error'];

/** After Retry-After: the refused POST sent again with the same Idempotency-Key, then replayed. */
export function rateLimitRecovery(ctx: RuleContext): Promise<{ limited: PostLimited; waitedSeconds: number; retry: FollowedJob; replay: Exchange }> {
  return ctx.scenario('rate-limit-recovery', async (s) => {
    const limited = await postLimited(s);
    try {
      mustAnswer(limited.limited);
      must(limited.limited.response?.status === 429, `the second POST of the window was answered HTTP ${limited.limited.response?.status}, not 429`);
      const waitedSeconds = retryAfterOf(limited.limited) ?? s.settings.rateWindowSeconds;
      await s.time.sleep(waitedSeconds * 1000);
      const retry = await submitAndFollow(s, limited.key, { text: SHORT_TEXT }, limited.retryIdempotencyKey, 'same POST after Retry-After', false);
      const replay = await s.post(limited.key, { text: SHORT_TEXT }, { idempotencyKey: limited.retryIdempotencyKey, throttle: false, label: 'replay of it' });
      return { limited, waitedSeconds, retry, replay };
    } finally {
      limited.lease.release();
    }
  });
}
