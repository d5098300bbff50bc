import { parseRateLimit, parseRateLimitPolicy, type RateLimitState } from '../../src/contract/ratelimit-headers.js';
import { must, mustAnswer, mustError, mustRetryAfter, mustStatus } from '../assertions.js';
import { type Exchange, describe, header } from '../exchange.js';
import { RuleFailure } from '../outcome.js';
import { postLimited } from '../rate-limit-scenarios.js';
import type { RuleContext } from '../rule-context.js';
import { SHORT_TEXT, newIdempotencyKey, submitAndFollow } from '../scenarios.js';
import { getsSince, sentWith } from './rate-limit.js';
import { endOf, startOf } from './exchange-times.js';

/**
 * The figures of the rate-limit headers held to what the suite itself did with a key: RateLimit's
 * remaining count and reset time across the GETs of one window, and the Retry-After of a 429.
 */

function stateOf(exchange: Exchange, policy: 'post' | 'get'): RateLimitState {
  const value = header(exchange, 'ratelimit');
  must(value !== undefined, `${describe(exchange)}: no RateLimit header to read`);
  let states: RateLimitState[];
  try {
    states = parseRateLimit(value);
  } catch (error) {
    throw new RuleFailure(`${describe(exchange)}: RateLimit "${value}" does not parse (${(error as Error).message})`);
  }
  const state = states.find((s) => s.name === policy);
  must(state, `${describe(exchange)}: RateLimit "${value}" has no "${policy}" member`);
  return state;
}

function quotaOf(exchange: Exchange, policy: 'post' | 'get', fallback: number): number {
  try {
    return parseRateLimitPolicy(header(exchange, 'ratelimit-policy') ?? '').find((p) => p.name === policy)?.quota ?? fallback;
  } catch {
    return fallback;
  }
}

/**
 * A job on a key of the rule's own, then GETs of it in one window until the 429: RateLimit's `r` must
 * fall by one with each admitted GET and `t` never grow while the window's requests stay counted; the
 * 429 reports r=0 and a Retry-After no longer than what is left of the window since the first of
 * these GETs. The job's own POST reports the quota it used.
 */
export async function rateLimitFiguresAgree(ctx: RuleContext): Promise<void> {
  const { getLimit, postLimit, rateWindowSeconds } = ctx.settings;
  const windowMs = rateWindowSeconds * 1000;
  const key = await ctx.leaseKey({ fresh: 'post' });
  const job = await submitAndFollow(ctx, key, { text: SHORT_TEXT }, newIdempotencyKey(), 'a job to GET');
  const { jobId } = job;
  must(jobId, `${describe(job.post)}: no job_id to GET`);
  const postState = stateOf(job.post, 'post');
  const postQuota = quotaOf(job.post, 'post', postLimit);
  must(
    postState.remaining <= postQuota - 1,
    `${describe(job.post)}: this POST created a job, yet RateLimit says r=${postState.remaining} of q=${postQuota} remain: the request itself is not counted`,
  );

  const gets: Exchange[] = [];
  let limited: Exchange | undefined;
  let earlier = 0;
  await ctx.steady(async () => {
    // GETs of this key still counted (the job's polls), by the deployment's time; one near the window's
    // edge may have left it already, so those are not counted (fewer earlier GETs only loosens the bound).
    // A GET refused as malformed (400) takes nothing either (fewer again).
    earlier = getsSince(ctx, key, ctx.time.now() - windowMs + 2_000, (e) => startOf(ctx, e)).counted;
    // Up to the limit and one more whatever `earlier` says: an earlier GET that leaves the window
    // meanwhile gives a place back.
    for (let i = 0; i <= getLimit; i++) {
      const exchange = await ctx.getJob(key, jobId, { throttle: false, label: `GET number ${earlier + i + 1} of the window, for its RateLimit` });
      if (exchange.response?.status === 429) {
        limited = exchange;
        break;
      }
      mustStatus(exchange, 200);
      gets.push(exchange);
    }
  });
  const [firstGet] = gets;
  must(firstGet, 'no GET of the window was admitted');
  const quota = quotaOf(firstGet, 'get', getLimit);
  mustCountDown(ctx, key, gets, limited, { quota, earlier, windowMs });
  must(limited, `${gets.length + earlier} GETs within ${rateWindowSeconds} s were all admitted; the limit is ${getLimit}`);
  const retryAfter = mustRetryAfter(limited);
  const limitedState = stateOf(limited, 'get');
  must(limitedState.remaining === 0, `${describe(limited)}: a 429 with RateLimit r=${limitedState.remaining}, not 0`);
  // The first GET of these is counted until a window after it at the latest.
  const leftOfWindow = Math.ceil((endOf(ctx, firstGet) + windowMs - startOf(ctx, limited)) / 1000);
  must(
    retryAfter <= leftOfWindow + 1,
    `${describe(limited)}: Retry-After ${retryAfter} s, but the first GET of this window (${describe(firstGet)}) leaves it within ${leftOfWindow} s: no longer wait is needed`,
  );
}

/**
 * RateLimit's `r` over the GETs of one window: it falls by one with each admitted GET and `t` never
 * grows, except where the window moved on (a fixed window restarting: `r` rises) or where one of the
 * key's earlier GETs left a sliding window between two of these (`r` stays, once for each of them).
 */
function mustCountDown(
  ctx: RuleContext,
  key: string,
  gets: Exchange[],
  limited: Exchange | undefined,
  { quota, earlier, windowMs }: { quota: number; earlier: number; windowMs: number },
): void {
  // GETs of this key admitted before these (the job's polls): in a sliding window, one of them leaving
  // it frees the place the next GET takes, and r then stays where it was, once for each of them.
  const before = ctx
    .allExchanges()
    .filter((e) => e.request.method === 'GET' && sentWith(key)(e) && !gets.includes(e) && e !== limited && e.response?.status === 200);
  const leftBetween = (from: Exchange, to: Exchange) => {
    const index = before.findIndex((e) => startOf(ctx, e) + windowMs >= startOf(ctx, from) - 1_000 && startOf(ctx, e) + windowMs <= endOf(ctx, to) + 1_000);
    return index < 0 ? undefined : before.splice(index, 1)[0];
  };
  let previous: { exchange: Exchange; state: RateLimitState } | undefined;
  for (const exchange of gets) {
    const state = stateOf(exchange, 'get');
    const left = previous && state.remaining === previous.state.remaining ? leftBetween(previous.exchange, exchange) : undefined;
    if (!previous) {
      must(
        state.remaining <= quota - 1 - earlier,
        `${describe(exchange)}: RateLimit r=${state.remaining}, but this key had made ${earlier + 1} GETs in the window (its own included) of q=${quota}: at most ${quota - 1 - earlier} can remain`,
      );
    } else if (state.remaining > previous.state.remaining) {
      // The window moved on (a fixed window restarting): the counts begin again.
      ctx.note(`${describe(exchange)}: r rose from ${previous.state.remaining} to ${state.remaining}; counting again from there`);
    } else if (left) {
      ctx.note(`${describe(exchange)}: r stayed at ${state.remaining}: an earlier GET of this key (${describe(left)}) left the window meanwhile`);
    } else {
      must(
        state.remaining === previous.state.remaining - 1,
        `${describe(exchange)}: RateLimit r=${state.remaining} after r=${previous.state.remaining} on the GET before it (${describe(previous.exchange)}): each admitted GET must count once`,
      );
      const [t0, t1] = [previous.state.resetSeconds, state.resetSeconds];
      must(
        t0 === undefined || t1 === undefined || t1 <= t0,
        `${describe(exchange)}: RateLimit t=${t1} after t=${t0} on the GET before it: the window's oldest request does not leave it later`,
      );
    }
    previous = { exchange, state };
  }
}

/** The POST 429 of the shared scenario: Retry-After no longer than what is left of the first POST's window. */
export async function postRetryAfterWithinWindow(ctx: RuleContext): Promise<void> {
  const { first, limited } = await postLimited(ctx);
  mustStatus(first, 200, 202);
  mustAnswer(limited);
  mustError(limited, 'RATE_LIMITED');
  const retryAfter = mustRetryAfter(limited);
  const leftOfWindow = Math.ceil((endOf(ctx, first) + ctx.settings.rateWindowSeconds * 1000 - startOf(ctx, limited)) / 1000);
  must(
    retryAfter <= leftOfWindow + 1,
    `${describe(limited)}: Retry-After ${retryAfter} s, but the POST that used the window's quota (${describe(first)}) leaves it within ${leftOfWindow} s`,
  );
}
