import { LIMITS } from '../../src/contract/limits.js';
import { must, mustError, mustJson, mustStatus, skip } from '../assertions.js';
import { defined } from '../defined.js';
import { type Exchange, describe, jsonBody } from '../exchange.js';
import { RuleFailure } from '../outcome.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { SHORT_TEXT, longText, newIdempotencyKey } from '../scenarios.js';
import { endOf, startOf } from './exchange-times.js';
import { postRetryAfterWithinWindow, rateLimitFiguresAgree } from './rate-limit-figures.js';

/**
 * Rules that hold the figures a deployment reports to what it does: how long a job took against how
 * it was answered, and the numbers in error details and rate-limit headers against what the suite
 * itself did with the account (the rate-limit headers' in rate-limit-figures.ts).
 */

// ── the inline wait ──────────────────────────────────────────────────────────────────────────────

/** The API's inline wait: "about 10 seconds" (docs/api-rules.md#submitting). */
const INLINE_WAIT_SECONDS = LIMITS.inlineWaitSeconds;
/**
 * A job the deployment itself reports finishing within this many seconds must be answered inline. Well
 * inside the ~10 s wait, so that "about" and the gap between a job's end and its answer leave room.
 */
const MUST_BE_INLINE_SECONDS = 6;
/** An inline answer to a shorter job shows nothing that an inline wait of a fraction of a second would not. */
const MEANINGFUL_SECONDS = 1.5;
/** What the rule aims for when it chooses a text length from what it measured. */
const TARGET_SECONDS = 3;
/** The first text measured; each next length is scaled from the last job's reported time. */
const FIRST_LENGTH = 1_000;
/** POSTs the rule may spend finding a text of a few seconds (each on a key of its own). */
const MAX_ATTEMPTS = 4;

interface Attempt {
  what: string;
  post: Exchange;
  inline: boolean;
  /** How long the job took, in seconds, and where that figure comes from. */
  seconds: number;
  source: string;
}

const secs = (s: number) => `${s.toFixed(1)} s`;

/**
 * POSTs `text` and finds out how long its job took by the deployment's own count: the
 * `meta.processing_time_ms` of a 200 answer; for a 202, the job is followed to its end and its POST
 * replayed (same Idempotency-Key), whose completed answer carries the job's processing time. That
 * figure is checked against what the suite saw (a poll that still saw `processing`, the poll that saw
 * it completed); a figure the polls contradict is set aside for their bounds.
 */
async function measure(ctx: RuleContext, text: string, what: string): Promise<Attempt> {
  const key = await ctx.leaseKey({ fresh: 'post' });
  const idempotencyKey = newIdempotencyKey();
  const post = await ctx.post(key, { text }, { idempotencyKey, label: `submit ${what}` });
  const status = mustStatus(post, 200, 202);
  const body = mustJson(post);
  if (status === 200) {
    must(body.status === 'completed', `${describe(post)}: status ${JSON.stringify(body.status)} in a 200 answer`);
    const ms = body.meta?.processing_time_ms;
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return { what, post, inline: true, seconds: ms / 1000, source: 'meta.processing_time_ms' };
    return { what, post, inline: true, seconds: post.ms / 1000, source: 'the answer’s own round trip (no meta.processing_time_ms)' };
  }
  must(typeof body.status_url === 'string', `${describe(post)}: a 202 without status_url`);
  const polls = await ctx.pollJob(key, body.status_url, `poll ${what}`);
  const last = defined(polls.at(-1), `the last poll of ${what}`);
  const done = mustJson(last);
  must(
    last.response?.status === 200 && done.status === 'completed',
    `${describe(last)}: the job of ${what} ended ${JSON.stringify(done.status ?? done.error?.code)}, not completed`,
  );
  const stillProcessing = polls.filter((p) => jsonBody(p)?.status === 'processing');
  // The job began after the POST was sent, was unfinished when the last "processing" poll left, and
  // finished before the "completed" poll was answered.
  const lastProcessing = stillProcessing.at(-1);
  const lower = lastProcessing ? (startOf(ctx, lastProcessing) - endOf(ctx, post)) / 1000 : 0;
  const upper = (endOf(ctx, last) - startOf(ctx, post)) / 1000;
  const replay = await ctx.post(key, { text }, { idempotencyKey, throttle: false, label: `replay of ${what}: the job's processing time` });
  const ms = jsonBody(replay)?.meta?.processing_time_ms;
  const reported = replay.response?.status === 200 && typeof ms === 'number' && Number.isFinite(ms) ? ms / 1000 : undefined;
  if (reported !== undefined && reported >= lower - 1 && reported <= upper + 1) {
    return { what, post, inline: false, seconds: reported, source: 'meta.processing_time_ms of a replay of the completed job' };
  }
  if (reported !== undefined)
    ctx.note(`${describe(replay)}: processing_time_ms ${ms} does not fit the polls (the job took ${secs(lower)} to ${secs(upper)}); judged by the polls`);
  // Without a figure of the deployment's: the polls' upper bound, the only one that can show it finished in time.
  return { what, post, inline: false, seconds: upper, source: `the polls (the job took ${secs(lower)} to ${secs(upper)})` };
}

async function inlineWithinWait(ctx: RuleContext): Promise<void> {
  const given = ctx.fixtures.outcomes?.inline_text;
  const tried: Attempt[] = [];
  let length = FIRST_LENGTH;
  let tooShort = 0;
  let tooLong = Infinity;
  for (let i = 0; i < (given ? 1 : MAX_ATTEMPTS); i++) {
    const what = given ? 'the text of outcomes.inline_text' : `a ${length}-character text`;
    const attempt = await measure(ctx, given ?? longText(length), what);
    ctx.releaseAll();
    tried.push(attempt);
    const took = `${secs(attempt.seconds)} by ${attempt.source}`;
    if (attempt.inline && attempt.seconds >= MEANINGFUL_SECONDS) {
      ctx.note(`${what} took ${took} and was answered inline (200)`);
      return;
    }
    if (!attempt.inline && attempt.seconds <= MUST_BE_INLINE_SECONDS) {
      throw new RuleFailure(
        `${describe(attempt.post)}: ${what} was answered 202, yet its job took ${took}: a job that finishes inside the ~${INLINE_WAIT_SECONDS} s inline wait must be answered inline (200 with audio_url); this deployment's wait is shorter than ${secs(attempt.seconds)}`,
      );
    }
    // Too quick to show anything, or too slow for the wait: scale the length to the target time, and
    // between the lengths already found too short and too long, halve the gap (geometrically) instead.
    if (attempt.inline) tooShort = Math.max(tooShort, length);
    else tooLong = Math.min(tooLong, length);
    const factor = Math.min(20, Math.max(0.05, TARGET_SECONDS / Math.max(attempt.seconds, 0.05)));
    let next = Math.min(LIMITS.textMaxChars, Math.max(20, Math.round(length * factor)));
    if (next <= tooShort || next >= tooLong) next = Math.round(Math.sqrt(Math.max(tooShort, 20) * Math.min(tooLong, LIMITS.textMaxChars)));
    if (next === length || next <= tooShort || next >= tooLong) break;
    length = next;
  }
  const summary = tried.map((a) => `${a.what}: ${a.inline ? '200' : '202'} after ${secs(a.seconds)} (${a.source})`).join('; ');
  const quickest = Math.min(...tried.map((a) => a.seconds));
  if (tried.every((a) => !a.inline) && quickest > MUST_BE_INLINE_SECONDS) {
    skip(
      'feature',
      `this deployment takes longer than ${MUST_BE_INLINE_SECONDS} s even for the shortest text tried, so no job of a few seconds could be submitted to hold it to the ~${INLINE_WAIT_SECONDS} s inline wait: ${summary}`,
    );
  }
  skip(
    given ? 'fixture' : 'feature',
    given
      ? `outcomes.inline_text was answered inline but took only ${secs(quickest)}, less than the ${MEANINGFUL_SECONDS} s needed to show the inline wait holds a job: ${summary}`
      : `no text of ${MEANINGFUL_SECONDS}–${MUST_BE_INLINE_SECONDS} s could be found in ${tried.length} tries: ${summary}`,
  );
}

// ── error details and rate-limit headers ─────────────────────────────────────────────────────────

/** A short text needs far less than this many minutes of speech on any deployment. */
const SHORT_TEXT_MINUTES_AT_MOST = 0.5;

async function usageDetailsAgree(ctx: RuleContext): Promise<void> {
  const key = ctx.fixtureKey('usage_exhausted');
  const exchange = await ctx.post(key, { text: SHORT_TEXT }, { label: 'account with no minutes left: its figures' });
  const d = mustError(exchange, 'USAGE_LIMIT_EXCEEDED').error.details;
  must(
    d && typeof d.limit === 'number' && typeof d.used === 'number',
    `${describe(exchange)}: details.limit and details.used are not numbers: ${JSON.stringify(d)}`,
  );
  must(d.limit >= 0 && d.used >= 0, `${describe(exchange)}: details.limit ${d.limit} and used ${d.used} must not be negative`);
  // The refusal of a short text says the month has no room for it: its own figures must agree.
  const left = Math.round((d.limit - d.used) * 100) / 100;
  must(
    left < SHORT_TEXT_MINUTES_AT_MOST,
    `${describe(exchange)}: refused a ${SHORT_TEXT.length}-character text for want of minutes, yet its details say ${d.used} of ${d.limit} minutes used, ${left} left — more than such a text needs (under ${SHORT_TEXT_MINUTES_AT_MOST} min); the fixtures' usage_exhausted account has used its month`,
  );
}
export const figureRules: Rule[] = [
  {
    id: 'submit.inline-within-wait',
    title: 'A job that the deployment itself reports finishing in a few seconds, well inside the ~10 s inline wait, is answered inline: 200 completed, not 202',
    section: '§1, §3.1, §8 inline wait budget',
    basis: { kind: 'api' },
    mockSkip: 'a mock synthesizes nothing, so no job takes time',
    full: inlineWithinWait,
  },
  {
    id: 'usage.details-agree',
    title:
      'The figures of USAGE_LIMIT_EXCEEDED agree with the refusal: a short text refused for want of minutes leaves details.limit − details.used under what it needs',
    section: '§7 USAGE_LIMIT_EXCEEDED details',
    basis: { kind: 'api' },
    mockSkip: 'a mock keeps no usage',
    full: usageDetailsAgree,
  },
  {
    id: 'rate-limit.remaining-counts',
    title:
      'RateLimit counts the requests made: r falls by one per GET, t never grows within the window, and the 429 has r=0 and a Retry-After within what is left of the window',
    section: '§8 (headers decided in the OpenAPI document)',
    basis: { kind: 'document', decision: 'rate-limits' },
    mockSkip: 'a mock keeps no request counts',
    full: async (ctx) => {
      await rateLimitFiguresAgree(ctx);
      await postRetryAfterWithinWindow(ctx);
    },
  },
];
