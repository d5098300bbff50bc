import { must, mustError, mustHeader, mustJson, mustRetryAfter, mustStatus } from '../assertions.js';
import { type Exchange, describe, header } from '../exchange.js';
import { preferExample } from '../mock-requests.js';
import { RuleFailure } from '../outcome.js';
import { RATELIMIT_DRAFT, type RateLimitPolicy, type RateLimitState, parseRateLimit, parseRateLimitPolicy } from '../../src/contract/ratelimit-headers.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { postLimited, rateLimitRecovery } from '../rate-limit-scenarios.js';
import { SHORT_TEXT, completedBody, inlineJob, newIdempotencyKey, submitAndFollow } from '../scenarios.js';

const STATEFUL = 'a mock keeps no request counts';

/** Sent by this run with this key as Bearer credential. */
export const sentWith = (key: string) => (e: Exchange) => e.request.headers.authorization === `Bearer ${key}`;

/**
 * This key's GETs sent since `since` (the deployment's time of `startOf`): `all` of them, and `counted`,
 * those every deployment counts: not one refused as malformed (400, which takes nothing:
 * docs/api-rules.md#rate-limits) nor by the limit itself (429). Other rules may use the key shortly
 * before (the fixtures' first key serves many probes), so the window may hold either count.
 */
export function getsSince(ctx: RuleContext, key: string, since: number, startOf: (e: Exchange) => number): { all: number; counted: number } {
  const gets = ctx.allExchanges().filter((e) => e.request.method === 'GET' && sentWith(key)(e) && startOf(e) >= since);
  return { all: gets.length, counted: gets.filter((e) => e.response?.status !== 400 && e.response?.status !== 429).length };
}

/**
 * RateLimit-Policy and RateLimit as draft-ietf-httpapi-ratelimit-headers-11 has them: Structured
 * Field Lists, parsed strictly. The RateLimit member names a policy of RateLimit-Policy ("post" for
 * POST, "get" for GET), with the quota and window of docs/api-rules.md#limits and a remaining count within the quota.
 */
function mustPolicy(exchange: Exchange, name: 'post' | 'get', limit: number, windowSeconds: number): void {
  const policyValue = mustHeader(exchange, 'ratelimit-policy');
  const stateValue = mustHeader(exchange, 'ratelimit');
  const at = describe(exchange);
  let policies: RateLimitPolicy[];
  let states: RateLimitState[];
  try {
    policies = parseRateLimitPolicy(policyValue);
  } catch (error) {
    throw new RuleFailure(
      `${at}: RateLimit-Policy "${policyValue}" is not a ${RATELIMIT_DRAFT} policy list (${(error as Error).message}); expected e.g. "${name}";q=${limit};w=${windowSeconds}`,
    );
  }
  try {
    states = parseRateLimit(stateValue);
  } catch (error) {
    throw new RuleFailure(
      `${at}: RateLimit "${stateValue}" is not a ${RATELIMIT_DRAFT} field (${(error as Error).message}); expected e.g. "${name}";r=0;t=${windowSeconds}`,
    );
  }
  const policy = policies.find((p) => p.name === name);
  must(policy, `${at}: RateLimit-Policy "${policyValue}" has no policy "${name}" for this ${name.toUpperCase()}`);
  must(
    policy.quota === limit && policy.windowSeconds === windowSeconds,
    `${at}: policy "${name}" is q=${policy.quota};w=${policy.windowSeconds}, not the ${limit} per ${windowSeconds} s of docs/api-rules.md#limits`,
  );
  const [state] = states;
  must(state && states.length === 1, `${at}: RateLimit "${stateValue}" has ${states.length} members; one per answer, for its policy`);
  must(state.name === name, `${at}: RateLimit names the policy "${state.name}", not "${name}"`);
  must(state.remaining <= limit, `${at}: RateLimit r=${state.remaining} exceeds the quota ${limit}`);
  must(
    state.resetSeconds !== undefined && state.resetSeconds <= windowSeconds,
    `${at}: RateLimit t=${state.resetSeconds} is missing or longer than the window ${windowSeconds}`,
  );
}

async function getUntilLimited(ctx: RuleContext): Promise<void> {
  const { getLimit, rateWindowSeconds } = ctx.settings;
  const key = await ctx.leaseKey({ fresh: 'post' });
  const job = await submitAndFollow(ctx, key, { text: SHORT_TEXT }, newIdempotencyKey(), 'a job to GET');
  const { jobId } = job;
  must(jobId, `${describe(job.post)}: no job_id to GET`);
  let admitted = 0;
  let earlier = { all: 0, counted: 0 };
  let limited: Exchange | undefined;
  // Every GET of the loop in one window: on a test clock no other rule's wait may move it meanwhile.
  await ctx.steady(async () => {
    // GETs of this key the deployment may still count (the job's polls), by the deployment's time.
    earlier = getsSince(ctx, key, ctx.time.now() - rateWindowSeconds * 1000, (e) => ctx.time.at(Date.parse(e.startedAt)));
    for (let i = earlier.counted; i <= getLimit; i++) {
      const exchange = await ctx.getJob(key, jobId, { throttle: false, label: `GET number ${i + 1} of the window` });
      if (exchange.response?.status === 429) {
        limited = exchange;
        break;
      }
      mustStatus(exchange, 200);
      admitted++;
    }
  });
  must(limited, `${admitted + earlier.counted} GETs within ${rateWindowSeconds} s were all admitted; the limit is ${getLimit}`);
  must(admitted + earlier.all >= getLimit, `429 after only ${admitted + earlier.all} GETs within the window; the limit is ${getLimit}`);
  mustError(limited, 'RATE_LIMITED');
  mustRetryAfter(limited);
}

export const rateLimitRules: Rule[] = [
  {
    id: 'rate-limit.post',
    title: 'A second POST on one key inside the window is refused with 429 RATE_LIMITED and Retry-After in whole seconds ≥ 1',
    section: '§7, §8',
    basis: { kind: 'api' },
    covers: { codes: ['RATE_LIMITED'], statuses: [429] },
    async full(ctx) {
      const { first, limited } = await postLimited(ctx);
      mustStatus(first, 200, 202);
      mustError(limited, 'RATE_LIMITED');
      const retryAfter = mustRetryAfter(limited);
      // The refusal's own headers agree: nothing remains of the "post" policy until Retry-After.
      mustPolicy(limited, 'post', ctx.settings.postLimit, ctx.settings.rateWindowSeconds);
      const [state] = parseRateLimit(mustHeader(limited, 'ratelimit'));
      must(state, `${describe(limited)}: RateLimit names no policy state`);
      must(state.remaining === 0, `${describe(limited)}: a 429 with RateLimit r=${state.remaining}, not 0`);
      must(
        state.resetSeconds === undefined || Math.abs(state.resetSeconds - retryAfter) <= 1,
        `${describe(limited)}: RateLimit t=${state.resetSeconds} disagrees with Retry-After ${retryAfter}`,
      );
    },
    async mock(ctx) {
      // Prism fabricates header values from their schemas, so only the body is the document's.
      mustError(await preferExample(ctx, 'submit', 429, 'rate_limited'), 'RATE_LIMITED');
      mustError(await preferExample(ctx, 'get', 429, 'rate_limited'), 'RATE_LIMITED');
    },
  },
  {
    id: 'rate-limit.separate-buckets',
    title: 'POST and GET use separate buckets: with POST exhausted, a GET on the same key still succeeds',
    section: '§8',
    basis: { kind: 'api' },
    mockSkip: STATEFUL,
    async full(ctx) {
      const { limited, get } = await postLimited(ctx);
      mustStatus(limited, 429);
      must(get, 'the first POST created no job to GET');
      mustStatus(get, 200);
      must(mustJson(get).success !== undefined, `${describe(get)}: not a job body`);
    },
  },
  {
    id: 'rate-limit.get',
    title: 'GET is limited to 30 per minute per key: the 31st inside the window gets 429 with Retry-After',
    section: '§7, §8',
    basis: { kind: 'api' },
    covers: { codes: ['RATE_LIMITED'], statuses: [429] },
    mockSkip: STATEFUL,
    full: getUntilLimited,
  },
  {
    id: 'rate-limit.retry-after-honest',
    title: 'After waiting Retry-After seconds, the refused POST is admitted',
    section: '§7 RATE_LIMITED suggested action, §8',
    basis: { kind: 'api' },
    mockSkip: STATEFUL,
    async full(ctx) {
      const { limited, waitedSeconds, retry } = await rateLimitRecovery(ctx);
      mustStatus(retry.post, 200, 202);
      must(
        header(retry.post, 'idempotent-replayed') !== 'true',
        `${describe(retry.post)}: answered as a replay, but its Idempotency-Key had only been refused`,
      );
      must(mustJson(retry.post).job_id !== mustJson(limited.first).job_id, `${describe(retry.post)}: answered with the window's first job`);
      ctx.note(`waited ${waitedSeconds} s (Retry-After)`);
    },
  },
  {
    id: 'rate-limit.headers',
    title:
      'Authenticated answers carry RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers-11) for their bucket: "post";q=1;w=60 and "get";q=30;w=60',
    section: '§8 (headers decided in the OpenAPI document)',
    basis: { kind: 'document', decision: 'rate-limits' },
    mockSkip: 'Prism fabricates header values from their schemas',
    async full(ctx) {
      const job = await inlineJob(ctx);
      const body = completedBody(job);
      mustPolicy(job.post, 'post', ctx.settings.postLimit, ctx.settings.rateWindowSeconds);
      const get = await ctx.getJob(job.key, body.job_id, { label: 'GET for its rate-limit headers' });
      mustStatus(get, 200);
      mustPolicy(get, 'get', ctx.settings.getLimit, ctx.settings.rateWindowSeconds);
      const notFound = await ctx.getJob(job.key, '00000000-0000-4000-8000-000000000000', { label: 'an error answer, authenticated' });
      mustStatus(notFound, 404);
      mustPolicy(notFound, 'get', ctx.settings.getLimit, ctx.settings.rateWindowSeconds);
    },
  },
];
