import { must, mustError, mustHeader, mustJson, mustRetryAfter, mustStatus } from '../assertions.js';
import { type Exchange, describe, header } from '../exchange.js';
import { preferExample } from '../mock-requests.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { SHORT_TEXT, completedBody, inlineJob, newIdempotencyKey, postLimited, rateLimitRecovery, submitAndFollow } from '../scenarios.js';

const STATEFUL = 'a mock keeps no request counts';

/** Sent by this run with this key as Bearer credential. */
const sentWith = (key: string) => (e: Exchange) => e.request.headers.authorization === `Bearer ${key}`;

function mustPolicy(exchange: Exchange, limit: number, windowSeconds: number): void {
  const policy = mustHeader(exchange, 'ratelimit-policy');
  const state = mustHeader(exchange, 'ratelimit');
  must(/^\d+;w=\d+$/.test(policy), `${describe(exchange)}: RateLimit-Policy "${policy}" is not "<limit>;w=<seconds>"`);
  must(policy === `${limit};w=${windowSeconds}`, `${describe(exchange)}: RateLimit-Policy "${policy}" is not the ${limit} per ${windowSeconds} s of spec §8`);
  const match = /^limit=(\d+), remaining=(\d+), reset=(\d+)$/.exec(state);
  must(match, `${describe(exchange)}: RateLimit "${state}" is not "limit=<n>, remaining=<n>, reset=<seconds>"`);
  must(Number(match[1]) === limit && Number(match[2]) <= limit, `${describe(exchange)}: RateLimit "${state}" disagrees with the limit ${limit}`);
}

async function getUntilLimited(ctx: RuleContext): Promise<void> {
  const { getLimit, rateWindowSeconds } = ctx.settings;
  const [key] = await ctx.lease({ fresh: 'post' });
  const job = await submitAndFollow(ctx, key!, { text: SHORT_TEXT }, newIdempotencyKey(), 'a job to GET');
  must(job.jobId, `${describe(job.post)}: no job_id to GET`);
  const since = Date.now() - rateWindowSeconds * 1000;
  const earlier = ctx.allExchanges().filter((e) => e.request.method === 'GET' && sentWith(key!)(e) && Date.parse(e.startedAt) >= since).length;
  let admitted = 0;
  let limited: Exchange | undefined;
  for (let i = earlier; i <= getLimit; i++) {
    const exchange = await ctx.getJob(key!, job.jobId, { throttle: false, label: `GET number ${i + 1} of the window` });
    if (exchange.response?.status === 429) {
      limited = exchange;
      break;
    }
    mustStatus(exchange, 200);
    admitted++;
  }
  must(limited, `${admitted + earlier} GETs within ${rateWindowSeconds} s were all admitted; the limit is ${getLimit}`);
  must(admitted + earlier >= getLimit, `429 after only ${admitted + earlier} GETs within the window; the limit is ${getLimit}`);
  mustError(limited, 'RATE_LIMITED');
  mustRetryAfter(limited);
}

export const rateLimitRules: Rule[] = [
  {
    id: 'rate-limit.post',
    title: 'A second POST on one key inside the window is refused with 429 RATE_LIMITED and Retry-After in whole seconds ≥ 1',
    section: '§7, §8',
    covers: { codes: ['RATE_LIMITED'], statuses: [429] },
    async full(ctx) {
      const { first, limited } = await postLimited(ctx);
      mustStatus(first, 200, 202);
      mustError(limited, 'RATE_LIMITED');
      mustRetryAfter(limited);
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
    covers: { codes: ['RATE_LIMITED'], statuses: [429] },
    mockSkip: STATEFUL,
    full: getUntilLimited,
  },
  {
    id: 'rate-limit.retry-after-honest',
    title: 'After waiting Retry-After seconds, the refused POST is admitted',
    section: '§7 RATE_LIMITED suggested action, §8',
    mockSkip: STATEFUL,
    async full(ctx) {
      const { limited, waitedSeconds, retry } = await rateLimitRecovery(ctx);
      mustStatus(retry.post, 200, 202);
      must(header(retry.post, 'idempotent-replayed') !== 'true', `${describe(retry.post)}: answered as a replay, but its Idempotency-Key had only been refused`);
      must(mustJson(retry.post).job_id !== mustJson(limited.first).job_id, `${describe(retry.post)}: answered with the window's first job`);
      ctx.note(`waited ${waitedSeconds} s (Retry-After)`);
    },
  },
  {
    id: 'rate-limit.headers',
    title: 'Authenticated answers carry RateLimit-Policy and RateLimit for their bucket (POST 1;w=60, GET 30;w=60)',
    section: '§8 (headers decided in the OpenAPI document)',
    mockSkip: 'Prism fabricates header values from their schemas',
    async full(ctx) {
      const job = await inlineJob(ctx);
      const body = completedBody(job);
      mustPolicy(job.post, ctx.settings.postLimit, ctx.settings.rateWindowSeconds);
      const get = await ctx.getJob(job.key, body.job_id, { label: 'GET for its rate-limit headers' });
      mustStatus(get, 200);
      mustPolicy(get, ctx.settings.getLimit, ctx.settings.rateWindowSeconds);
      const notFound = await ctx.getJob(job.key, '00000000-0000-4000-8000-000000000000', { label: 'an error answer, authenticated' });
      mustStatus(notFound, 404);
      mustPolicy(notFound, ctx.settings.getLimit, ctx.settings.rateWindowSeconds);
    },
  },
];
