import { asksForNewIdempotencyKey } from '../../src/contract/errors.js';
import { must, mustError, mustJson, mustStatus } from '../assertions.js';
import { type Exchange, type JsonObject, describe, header, jsonBody } from '../exchange.js';
import { SuiteError } from '../outcome.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { rateLimitRecovery } from '../rate-limit-scenarios.js';
import { SHORT_TEXT, completedBody, failedJobs, inlineJob, newIdempotencyKey, submitAndFollow, twoJobsOneAccount } from '../scenarios.js';

const STATEFUL = 'a mock keeps no jobs';

/** Minutes used this month by the account of a completed job, as a GET of it reports now. */
async function minutesUsed(ctx: RuleContext, key: string, jobId: string, label: string): Promise<{ exchange: Exchange; used: number }> {
  const exchange = await ctx.getJob(key, jobId, { label });
  mustStatus(exchange, 200);
  const used = mustJson(exchange).billing?.monthly_minutes_used;
  must(typeof used === 'number', `${describe(exchange)}: billing.monthly_minutes_used is ${JSON.stringify(used)}`);
  return { exchange, used };
}

function mustBeReplayOf(replay: Exchange, jobId: string): JsonObject {
  mustStatus(replay, 200, 202);
  const body = mustJson(replay);
  must(body.job_id === jobId, `${describe(replay)}: the same Idempotency-Key answered job ${body.job_id}, not the existing ${jobId}`);
  must(
    header(replay, 'idempotent-replayed') === 'true',
    `${describe(replay)}: Idempotent-Replayed is ${JSON.stringify(header(replay, 'idempotent-replayed'))}, not "true"`,
  );
  return body;
}

function mustBeNewJob(exchange: Exchange, notJobId?: string): JsonObject {
  mustStatus(exchange, 200, 202);
  const body = mustJson(exchange);
  must(header(exchange, 'idempotent-replayed') !== 'true', `${describe(exchange)}: answered as a replay`);
  if (notJobId) must(body.job_id !== notJobId, `${describe(exchange)}: answered the existing job ${notJobId} instead of creating one`);
  return body;
}

/** Spec: usage in minutes; the document: minutes = audio seconds / 60, two decimals. */
function mustChargeOnce(before: number, after: number, completed: JsonObject, what: string): void {
  const duration = completed.audio?.duration_seconds;
  const delta = Math.round((after - before) * 100) / 100;
  if (typeof duration === 'number') {
    const expected = duration / 60;
    must(Math.abs(delta - expected) <= 0.015, `${what}: monthly_minutes_used grew by ${delta}, but one job of ${duration} s is ${expected.toFixed(3)} minutes`);
  } else {
    must(delta > 0, `${what}: monthly_minutes_used did not grow (${before} → ${after})`);
  }
}

export const idempotencyRules: Rule[] = [
  {
    id: 'idempotency.same-key-same-job',
    title: 'The same Idempotency-Key again returns the existing job, marked Idempotent-Replayed, with no second charge',
    section: '§3.1, §4.7 rule 1',
    basis: { kind: 'api' },
    mockSkip: STATEFUL,
    async full(ctx) {
      const job = await inlineJob(ctx);
      const first = completedBody(job);
      // Hold the account, so nothing else changes its minutes between the readings.
      await ctx.lease({ specific: job.key });
      const before = await minutesUsed(ctx, job.key, first.job_id, 'minutes used before the replay');
      // Unthrottled: a replay is answered before the rate limit and uses no quota.
      const replay = await ctx.post(
        job.key,
        { text: SHORT_TEXT },
        { idempotencyKey: job.idempotencyKey, throttle: false, label: 'same Idempotency-Key again' },
      );
      const body = mustBeReplayOf(replay, first.job_id);
      if (body.status === 'completed') {
        must(
          body.billing?.monthly_minutes_used === before.used,
          `${describe(replay)}: the replay reports ${body.billing?.monthly_minutes_used} minutes used, ${before.used} before it: charged again`,
        );
      }
      const after = await minutesUsed(ctx, job.key, first.job_id, 'minutes used after the replay');
      must(after.used === before.used, `monthly_minutes_used went from ${before.used} to ${after.used} across a replay`);
    },
  },
  {
    id: 'idempotency.different-key-new-job',
    title: 'A different Idempotency-Key on the same account creates a new job',
    section: '§4.7 rule 2',
    basis: { kind: 'api' },
    mockSkip: STATEFUL,
    async full(ctx) {
      const { first, second } = await twoJobsOneAccount(ctx);
      mustStatus(first.post, 200, 202);
      mustBeNewJob(second.post, first.jobId);
    },
  },
  {
    id: 'idempotency.per-account',
    title: 'Idempotency-Keys are scoped per account: the same key on two accounts creates two jobs',
    section: '§4.7 rule 3',
    basis: { kind: 'api' },
    mockSkip: STATEFUL,
    async full(ctx) {
      const [a, b] = await ctx.lease({ count: 2, fresh: 'post' });
      if (a === undefined || b === undefined) throw new Error(`a lease of two keys gave ${[a, b].filter((k) => k !== undefined).length} of them`);
      const shared = newIdempotencyKey();
      const first = await ctx.post(a, { text: SHORT_TEXT }, { idempotencyKey: shared, label: 'account A' });
      const firstBody = mustBeNewJob(first);
      const second = await ctx.post(b, { text: SHORT_TEXT }, { idempotencyKey: shared, label: 'account B, same Idempotency-Key' });
      mustBeNewJob(second, firstBody.job_id);
    },
  },
  {
    id: 'idempotency.retry-after-transport-failure',
    title: 'After a dropped connection, a retry with the same Idempotency-Key yields one job, charged once',
    section: '§4.7 rule 4, §4.7 rule 1',
    basis: { kind: 'api' },
    mockSkip: STATEFUL,
    async full(ctx) {
      // A completed job of the account tells its minutes before the attempt.
      const inline = await inlineJob(ctx);
      const earlier = completedBody(inline);
      const key = await ctx.leaseKey({ specific: inline.key });
      const before = await minutesUsed(ctx, key, earlier.job_id, 'minutes used before the attempt');
      const idempotencyKey = newIdempotencyKey();
      const text = 'A request whose answer was lost on the way back is sent again with the same key.';
      // The connection is cut as the answer's status line arrives: the answer is lost, and its status
      // proves the server had the request (no timing guess about when it arrived).
      const dropped = await ctx.post(key, { text }, { idempotencyKey, dropOnAnswer: true, label: 'answer lost: connection dropped as it began' });
      if (dropped.droppedAfterStatus === undefined)
        throw new SuiteError(
          `${describe(dropped)}: no answer began, so the request cannot be shown to have reached the server (${dropped.error ?? 'no status line'})`,
        );
      must(
        dropped.droppedAfterStatus === 200 || dropped.droppedAfterStatus === 202,
        `${describe(dropped)}: the lost answer was HTTP ${dropped.droppedAfterStatus}, not an accepted job`,
      );
      const retry = await submitAndFollow(ctx, key, { text }, idempotencyKey, 'retry, same Idempotency-Key', false);
      mustStatus(retry.post, 200, 202);
      must(
        header(retry.post, 'idempotent-replayed') === 'true',
        `${describe(retry.post)}: the first request reached the server (it began answering HTTP ${dropped.droppedAfterStatus}), yet the retry was not answered as its replay`,
      );
      const completed = completedBody(retry);
      const replay = await ctx.post(key, { text }, { idempotencyKey, throttle: false, label: 'once more, same Idempotency-Key' });
      mustBeReplayOf(replay, completed.job_id);
      const after = await minutesUsed(ctx, key, completed.job_id, 'minutes used after');
      mustChargeOnce(before.used, after.used, completed, 'a dropped request and its retry');
    },
  },
  {
    id: 'idempotency.failed-job-new-key',
    title: 'When an accepted job fails downstream, the error message tells the client to use a new Idempotency-Key',
    section: '§4.7 rule 5',
    basis: { kind: 'api' },
    covers: { codes: ['TTS_PROVIDER_ERROR'] },
    mockSkip: STATEFUL,
    async full(ctx) {
      const { provoked, declared } = await failedJobs(ctx);
      const answers: Exchange[] = [];
      if (provoked) {
        const body = jsonBody(provoked.final);
        must(
          body?.error && typeof body.error.message === 'string',
          `${describe(provoked.final)}: the failing voice produced no error (status ${JSON.stringify(body?.status)})`,
        );
        // Both the POST's error (when the job failed inside the wait) and the failed job itself.
        answers.push(provoked.post, provoked.final);
      }
      if (declared) {
        must(typeof jsonBody(declared.get)?.error?.message === 'string', `${describe(declared.get)}: the failed job of the fixtures carries no error message`);
        answers.push(declared.get);
      }
      for (const exchange of new Set(answers)) {
        const message = jsonBody(exchange)?.error?.message;
        if (typeof message !== 'string') continue;
        must(asksForNewIdempotencyKey(message), `${describe(exchange)}: the message "${message}" does not ask for a new Idempotency-Key`);
      }
    },
  },
  {
    id: 'idempotency.retry-after-error',
    title: 'After a 400 or a 429, a retry with the same Idempotency-Key is accepted as a new job and charged once',
    section: '§4.7 rule 6',
    basis: { kind: 'api' },
    mockSkip: STATEFUL,
    async full(ctx) {
      const key = await ctx.leaseKey({ fresh: 'post' });
      const idempotencyKey = newIdempotencyKey();
      const refused = await ctx.post(key, { text: SHORT_TEXT, speed: 9 }, { idempotencyKey, label: 'invalid speed' });
      mustError(refused, 'INVALID_REQUEST');
      const corrected = await submitAndFollow(ctx, key, { text: SHORT_TEXT }, idempotencyKey, 'corrected, same Idempotency-Key');
      mustBeNewJob(corrected.post);
      const completed = completedBody(corrected);
      const replay = await ctx.post(key, { text: SHORT_TEXT }, { idempotencyKey, throttle: false, label: 'once more, same Idempotency-Key' });
      const replayed = mustBeReplayOf(replay, completed.job_id);
      must(replayed.billing?.monthly_minutes_used === completed.billing.monthly_minutes_used, `${describe(replay)}: charged again after a refused attempt`);

      // The same after a 429 (the rate-limit rules provoke it): the key was never used, so it is new.
      const { retry, replay: afterLimit } = await rateLimitRecovery(ctx);
      mustBeNewJob(retry.post);
      const retried = completedBody(retry);
      const again = mustBeReplayOf(afterLimit, retried.job_id);
      must(again.billing?.monthly_minutes_used === retried.billing.monthly_minutes_used, `${describe(afterLimit)}: charged again after a 429`);
    },
  },
];
