import { randomUUID } from 'node:crypto';
import { defined } from './defined.js';
import { type Exchange, type JsonObject, jsonBody } from './exchange.js';
import { mustAnswer, must, mustJson, skip } from './assertions.js';
import type { Lease } from './key-pool.js';
import type { RuleContext } from './rule-context.js';

/**
 * Shared setup steps. Each runs once per suite run, however many rules use its answers, because a
 * key may create only one job a minute (docs/api-rules.md#limits). Scenarios assert only what they need to go on;
 * the rules judge the answers.
 */

export const SHORT_TEXT = 'The conformance suite checks this deployment, one rule at a time.';

export const newIdempotencyKey = () => `conformance-${randomUUID()}`;

/** A text of exactly `length` characters, of sentences, so a server splits and speaks it normally. */
export function longText(length: number): string {
  const sentence = 'This sentence is part of a long text that makes the job outlast the inline wait. ';
  return sentence
    .repeat(Math.ceil(length / sentence.length))
    .slice(0, length)
    .trimEnd()
    .padEnd(length, '.');
}

/** A job submitted and followed to its end: `final` is the POST 200 or the last poll. */
export interface FollowedJob {
  key: string;
  idempotencyKey: string;
  post: Exchange;
  jobId?: string;
  polls: Exchange[];
  final: Exchange;
}

/** POSTs and, on 202, polls until the job leaves processing. */
export async function submitAndFollow(
  ctx: RuleContext,
  key: string,
  body: JsonObject,
  idempotencyKey: string,
  label: string,
  throttle = true,
): Promise<FollowedJob> {
  const post = await ctx.post(key, body, { idempotencyKey, label, throttle });
  return { ...(await followUp(ctx, key, post)), idempotencyKey };
}

async function followUp(ctx: RuleContext, key: string, post: Exchange): Promise<FollowedJob> {
  const answer = mustAnswer(post);
  const json = jsonBody(post);
  const jobId = typeof json?.job_id === 'string' ? json.job_id : undefined;
  const idempotencyKey = post.request.headers['idempotency-key'] ?? '';
  if (answer.status === 202 && json && typeof json.status_url === 'string') {
    const polls = await ctx.pollJob(key, json.status_url);
    return { key, idempotencyKey, post, jobId, polls, final: defined(polls.at(-1), 'the last poll of the job') };
  }
  return { key, idempotencyKey, post, jobId, polls: [], final: post };
}

/** The completed body of a followed job, or a failure saying why there is none. */
export function completedBody(job: FollowedJob): JsonObject {
  const body = mustJson(job.final);
  must(
    job.final.response?.status === 200 && body.status === 'completed',
    `job ${job.jobId ?? '(no id)'} did not complete: HTTP ${job.final.response?.status} ${JSON.stringify(body.status ?? body.error?.code)}`,
  );
  return body;
}

/**
 * A short text with every optional field left out: the inline path and the defaults. It is sent
 * before any other job, with the rest of the run's POSTs held back until it is answered, so the
 * inline wait is measured on a deployment the suite has not loaded itself.
 */
export function inlineJob(ctx: RuleContext): Promise<FollowedJob> {
  return ctx.scenario('inline-job', async (s) => {
    let open!: () => void;
    s.run.holdPosts(new Promise<void>((resolve) => (open = resolve)), s.owner);
    try {
      const key = await s.leaseKey({ fresh: 'post' });
      const post = await s.post(key, { text: SHORT_TEXT }, { idempotencyKey: newIdempotencyKey(), label: 'submit a short text, defaults' });
      open();
      return await followUp(s, key, post);
    } finally {
      open();
    }
  });
}

/**
 * A short text with every optional field given: voice, speed, language, and `timestamps: "none"` (the
 * same as leaving it out; timings.absent-unless-asked checks that the job carries no timings). A Kokoro
 * voice, whose language comes from its id (docs/api-rules.md#submitting), so the `language` sent must
 * not change what is spoken.
 */
export function optionsJob(ctx: RuleContext): Promise<FollowedJob & { request: JsonObject; spokenLanguage: string }> {
  return ctx.scenario('options-job', async (s) => {
    const key = await s.leaseKey({ fresh: 'post' });
    const request = { text: 'This is a conformance test with a British voice.', voice: 'bf_emma', speed: 0.9, language: 'fr', timestamps: 'none' };
    return { ...(await submitAndFollow(s, key, request, newIdempotencyKey(), 'submit with voice, speed and language')), request, spokenLanguage: 'en' };
  });
}

/**
 * The long text, submitted. The key stays leased (its account's minutes are reserved and will be
 * settled) until the job is followed to its end by longJobFinished.
 */
export interface LongJobSubmission {
  key: string;
  post: Exchange;
  lease: Lease;
  /** What was sent, for messages: "a 40000-character text", or the fixtures' outcomes.async_text. */
  what: string;
}

/** `--long-text-chars auto`: tripled from 40,000 up to the 500,000 limit. */
const AUTO_LONG_TEXT_LENGTHS = [40_000, 120_000, 360_000, 500_000];

/**
 * The job that outlasts the inline wait, submitted: the fixtures' outcomes.async_text when they give
 * one (and --long-text-chars is auto), else a long text.
 */
export function longJobSubmitted(ctx: RuleContext): Promise<LongJobSubmission> {
  return ctx.scenario('long-job-submitted', async (s) => {
    const setting = s.settings.longTextChars;
    const asyncText = setting === 'auto' ? s.fixtures.outcomes?.async_text : undefined;
    const texts = asyncText
      ? [{ text: asyncText, what: 'the text of outcomes.async_text' }]
      : (setting === 'auto' ? AUTO_LONG_TEXT_LENGTHS : [setting]).map((length) => ({ text: longText(length), what: `the ${length}-character text` }));
    for (const [attempt, { text, what }] of texts.entries()) {
      const lease = await s.run.pool.lease({ fresh: 'post' });
      s.run.detachedLeases.push(lease);
      const key = defined(lease.keys[0], 'the key of a one-key lease');
      const post = await s.post(key, { text }, { idempotencyKey: newIdempotencyKey(), label: `submit ${what}` });
      const last = attempt === texts.length - 1;
      // A faster deployment finishes this length inside its inline wait: try a longer text on another key.
      if (post.response?.status !== 200 || last) {
        const submission = { key, post, lease, what };
        // The account's minutes stay reserved until the job ends, so the key is held until then,
        // whether or not a rule asks for the end: following it is what gives the key back.
        queueMicrotask(() => void longJobFinished(s.detached()).catch(() => undefined));
        return submission;
      }
      s.note(`${what} completed inside the inline wait; trying ${texts[attempt + 1]?.what ?? 'a longer text'}`);
      lease.release();
    }
    throw new Error('unreachable: the last length always returns');
  });
}

export function longJobFinished(ctx: RuleContext): Promise<{ key: string; post: Exchange; polls: Exchange[] }> {
  return ctx.scenario('long-job-finished', async (s) => {
    const submission = await longJobSubmitted(s);
    try {
      const body = jsonBody(submission.post);
      mustAnswer(submission.post);
      must(
        submission.post.response?.status === 202,
        `${submission.what} was answered HTTP ${submission.post.response?.status}, not 202${s.settings.longTextChars === 'auto' ? '' : '; raise --long-text-chars'}`,
      );
      const statusUrl = body?.status_url;
      must(typeof statusUrl === 'string', 'the 202 answer has no status_url to poll');
      return { key: submission.key, post: submission.post, polls: await s.pollJob(submission.key, statusUrl) };
    } finally {
      submission.lease.release();
    }
  });
}

/**
 * A job the deployment was told to fail: in the voice named by --failing-voice, or with the fixtures'
 * outcomes.provider_error_text. When it fails inside the inline wait the error may name the job
 * (error.details.job_id); then a GET of it is the final answer.
 */
function failingJob(ctx: RuleContext): Promise<FollowedJob> {
  return ctx.scenario('failing-job', async (s) => {
    const voice = s.settings.failingVoice;
    const text = s.fixtures.outcomes?.provider_error_text;
    const [body, label] = voice
      ? [{ text: SHORT_TEXT, voice }, `submit in the failing voice ${voice}`]
      : text
        ? [{ text }, 'submit the text of outcomes.provider_error_text']
        : skip(
            'feature',
            'no voice that this deployment fails was named (--failing-voice / TTS_CONFORMANCE_FAILING_VOICE) and the fixtures have no outcomes.provider_error_text, so no failed job can be provoked',
          );
    const key = await s.leaseKey({ fresh: 'post' });
    const job = await submitAndFollow(s, key, body, newIdempotencyKey(), label);
    const named = jsonBody(job.post)?.error?.details?.job_id;
    if (job.post.response?.status !== 202 && typeof named === 'string') {
      const get = await s.getJob(key, named, { label: 'GET the job the error names' });
      return { ...job, jobId: named, polls: [get], final: get };
    }
    return job;
  });
}

/** The failed job the fixtures declare (failed_job), as a GET of it answers now. */
function declaredFailedJob(ctx: RuleContext): Promise<{ key: string; jobId: string; get: Exchange }> {
  return ctx.scenario('declared-failed-job', async (s) => {
    const declared = s.fixtures.failed_job;
    if (!declared) skip('fixture', 'the fixtures file has no failed_job');
    const get = await s.getJob(declared.key, declared.job_id, { label: 'GET the failed job of the fixtures' });
    return { key: declared.key, jobId: declared.job_id, get };
  });
}

/**
 * The failed jobs this run can judge: the one provoked (--failing-voice, or the fixtures'
 * outcomes.provider_error_text), and the one the fixtures declare. At least one is needed; without
 * either the rule is skipped, naming the ways to give one.
 */
export async function failedJobs(ctx: RuleContext): Promise<{ provoked?: FollowedJob; declared?: { key: string; jobId: string; get: Exchange } }> {
  const provoked = ctx.settings.failingVoice || ctx.fixtures.outcomes?.provider_error_text ? await failingJob(ctx) : undefined;
  const declared = ctx.fixtures.failed_job ? await declaredFailedJob(ctx) : undefined;
  if (!provoked && !declared) {
    skip(
      'fixture',
      'no failed job to judge: the fixtures file has no failed_job or outcomes.provider_error_text, and no --failing-voice was named (agent-tts-admin seed writes a failed_job)',
    );
  }
  return { provoked, declared };
}

/** Two jobs of one account with different Idempotency-Keys, a window apart (one POST per minute). */
export function twoJobsOneAccount(ctx: RuleContext): Promise<{ first: FollowedJob; second: FollowedJob }> {
  return ctx.scenario('two-jobs-one-account', async (s) => {
    const key = await s.leaseKey({ fresh: 'post' });
    const first = await submitAndFollow(s, key, { text: SHORT_TEXT }, newIdempotencyKey(), 'first job');
    // The throttled POST waits until the key's POST bucket has room again.
    const second = await submitAndFollow(s, key, { text: SHORT_TEXT }, newIdempotencyKey(), 'second job, another Idempotency-Key');
    return { first, second };
  });
}
