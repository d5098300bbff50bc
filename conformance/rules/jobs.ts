import { asksForNewIdempotencyKey } from '../../src/contract/errors.js';
import { UUID_PATTERN, must, mustJson, mustStatus } from '../assertions.js';
import { type Exchange, type JsonObject, describe } from '../exchange.js';
import { mustBeCompletedJob, mustBeProcessingJob, mustHaveStatusUrlOf } from '../job-shapes.js';
import { preferExample } from '../mock-requests.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { completedBody, failedJobs, inlineJob, longJobSubmitted } from '../scenarios.js';

/** The inline job's POST answer, and a GET of the same job. */
async function completedAnswers(ctx: RuleContext): Promise<{ post: Exchange; get: Exchange }> {
  const job = await inlineJob(ctx);
  const body = completedBody(job);
  const get = await ctx.getJob(job.key, body.job_id, { label: 'GET the completed job' });
  return { post: job.final, get };
}

/** The 202 answer, and a GET straight after it, while the job is most likely still processing. */
async function processingAnswers(ctx: RuleContext): Promise<{ post: Exchange; get?: Exchange }> {
  const { key, post } = await longJobSubmitted(ctx);
  mustStatus(post, 202);
  const body = mustJson(post);
  const get = await ctx.getJob(key, body.job_id, { label: 'GET the job right after the 202' });
  if (mustJson(get).status !== 'processing') {
    ctx.note('the job had already left processing at the first GET, so only the 202 body was checked');
    return { post };
  }
  return { post, get };
}

async function mockCompleted(ctx: RuleContext): Promise<Exchange[]> {
  return [await preferExample(ctx, 'submit', 200, 'completed'), await preferExample(ctx, 'get', 200, 'completed')];
}

function mustBeFailedJob(exchange: Exchange, body: JsonObject): void {
  const at = describe(exchange);
  must(body.success === false, `${at}: a failed job has success ${JSON.stringify(body.success)}, not false`);
  must(body.status === 'failed', `${at}: status is ${JSON.stringify(body.status)}, not "failed"`);
  must(typeof body.job_id === 'string' && UUID_PATTERN.test(body.job_id), `${at}: job_id is not a UUID`);
  must(
    body.error && typeof body.error.code === 'string' && typeof body.error.message === 'string' && body.error.message.trim() !== '',
    `${at}: a failed job carries no error code and message`,
  );
  must(body.audio_url === undefined, `${at}: a failed job carries audio_url`);
}

export const jobRules: Rule[] = [
  {
    id: 'job.completed-fields',
    title: 'A completed job, on POST and on GET, has every field of §2.2: job_id, audio_url, audio, billing, meta — and no processing fields',
    section: '§2.2, §3.1, §4.2',
    basis: { kind: 'api' },
    async full(ctx) {
      const { post, get } = await completedAnswers(ctx);
      for (const exchange of [post, get]) {
        mustStatus(exchange, 200);
        mustBeCompletedJob(exchange, mustJson(exchange));
      }
    },
    async mock(ctx) {
      for (const exchange of await mockCompleted(ctx)) mustBeCompletedJob(exchange, mustJson(exchange));
    },
  },
  {
    id: 'job.get-completed',
    title: 'GET of a completed job answers 200 with the same job, status and audio as the POST',
    section: '§4.2',
    basis: { kind: 'api' },
    mockSkip: 'a mock answers with fixed examples',
    async full(ctx) {
      const { post, get } = await completedAnswers(ctx);
      mustStatus(get, 200);
      const a = mustJson(post);
      const b = mustJson(get);
      must(b.job_id === a.job_id, `GET answered job ${b.job_id}, not ${a.job_id}`);
      must(b.status === 'completed', `GET answered status ${JSON.stringify(b.status)}`);
      for (const field of ['format', 'voice', 'speed']) {
        must(
          JSON.stringify(b.audio?.[field]) === JSON.stringify(a.audio?.[field]),
          `GET audio.${field} ${JSON.stringify(b.audio?.[field])} differs from the POST's ${JSON.stringify(a.audio?.[field])}`,
        );
      }
    },
  },
  {
    id: 'job.processing-fields',
    title: 'A processing job, on 202 and on GET, has success, job_id, status_url and retry_after_seconds (a whole number ≥ 1) and no audio',
    section: '§2.2, §3.1, §4.1, §4.2',
    basis: { kind: 'api' },
    async full(ctx) {
      const { post, get } = await processingAnswers(ctx);
      for (const exchange of get ? [post, get] : [post]) mustBeProcessingJob(exchange, mustJson(exchange));
    },
    async mock(ctx) {
      for (const exchange of [await preferExample(ctx, 'submit', 202, 'processing'), await preferExample(ctx, 'get', 200, 'processing')]) {
        mustBeProcessingJob(exchange, mustJson(exchange));
      }
    },
  },
  {
    id: 'job.status-url-shape',
    title: 'status_url is exactly /v1/agent-tts?id=<job_id>',
    section: '§2.2, §4.1',
    basis: { kind: 'api' },
    async full(ctx) {
      const { post, get } = await processingAnswers(ctx);
      for (const exchange of get ? [post, get] : [post]) mustHaveStatusUrlOf(exchange, mustJson(exchange));
    },
    async mock(ctx) {
      const exchange = await preferExample(ctx, 'submit', 202, 'processing');
      mustHaveStatusUrlOf(exchange, mustJson(exchange));
    },
  },
  {
    id: 'job.processing-time-on-post',
    title: 'A completed answer to POST carries meta.processing_time_ms, a whole number',
    section: '§2.2 meta',
    basis: { kind: 'api' },
    async full(ctx) {
      const job = await inlineJob(ctx);
      mustStatus(job.post, 200);
      const ms = mustJson(job.post).meta?.processing_time_ms;
      must(Number.isInteger(ms) && ms >= 0, `${describe(job.post)}: meta.processing_time_ms is ${JSON.stringify(ms)}`);
    },
    async mock(ctx) {
      const ms = mustJson(await preferExample(ctx, 'submit', 200, 'completed')).meta?.processing_time_ms;
      must(Number.isInteger(ms) && ms >= 0, `meta.processing_time_ms is ${JSON.stringify(ms)}`);
    },
  },
  {
    id: 'job.legacy-fields-omitted',
    title: 'New jobs omit the legacy audio fields expires_at and file_size_bytes',
    section: '§2.2 audio, §9',
    basis: { kind: 'api' },
    async full(ctx) {
      const { post, get } = await completedAnswers(ctx);
      for (const exchange of [post, get]) {
        const audio = mustJson(exchange).audio ?? {};
        must(
          !('expires_at' in audio) && !('file_size_bytes' in audio),
          `${describe(exchange)}: a new job shows ${['expires_at', 'file_size_bytes'].filter((f) => f in audio).join(' and ')}`,
        );
      }
    },
    async mock(ctx) {
      for (const exchange of await mockCompleted(ctx)) {
        const audio = mustJson(exchange).audio ?? {};
        must(!('expires_at' in audio) && !('file_size_bytes' in audio), `${describe(exchange)}: the example shows legacy fields`);
      }
    },
  },
  {
    id: 'job.billing-consistent',
    title: 'billing: remaining is limit minus used, and subscription mode costs 0 cents',
    section: '§2.2 billing',
    basis: { kind: 'api' },
    async full(ctx) {
      const { post, get } = await completedAnswers(ctx);
      for (const exchange of [post, get]) mustConsistentBilling(exchange, mustJson(exchange));
    },
    async mock(ctx) {
      for (const exchange of await mockCompleted(ctx)) mustConsistentBilling(exchange, mustJson(exchange));
    },
  },
  {
    id: 'job.failed-status',
    title: 'GET of a failed job answers HTTP 200 with success false, status failed and an error code and message',
    section: '§3.1 (HTTP status decided in the OpenAPI document)',
    basis: { kind: 'document', decision: 'job-statuses' },
    covers: { statuses: [200] },
    async full(ctx) {
      const { provoked, declared } = await failedJobs(ctx);
      let judged = 0;
      if (declared) {
        mustStatus(declared.get, 200);
        const body = mustJson(declared.get);
        mustBeFailedJob(declared.get, body);
        must(body.job_id === declared.jobId, `${describe(declared.get)}: job_id is ${JSON.stringify(body.job_id)}, not ${declared.jobId}`);
        judged++;
      }
      if (provoked) {
        if (provoked.post.response?.status !== 202) mustFailedPostAnswer(provoked.post);
        if (provoked.final !== provoked.post) {
          // The GET of the provoked job: after polling a 202, or the job the POST's error names.
          mustStatus(provoked.final, 200);
          mustBeFailedJob(provoked.final, mustJson(provoked.final));
          judged++;
        } else ctx.note(`the provoked job failed inside the inline wait and its error names no job_id; only its POST answer was checked`);
      }
      must(judged > 0, 'no GET of a failed job could be judged: the provoked failure named no job and the fixtures declare no failed_job');
    },
    async mock(ctx) {
      const exchange = await preferExample(ctx, 'get', 200, 'failed');
      mustStatus(exchange, 200);
      mustBeFailedJob(exchange, mustJson(exchange));
    },
  },
];

function mustFailedPostAnswer(exchange: Exchange): void {
  mustStatus(exchange, 500, 502);
  const body = mustJson(exchange);
  must(body.success === false && typeof body.error?.code === 'string', `${describe(exchange)}: not an error body`);
  must(asksForNewIdempotencyKey(String(body.error.message)), `${describe(exchange)}: the message does not ask for a new Idempotency-Key`);
}

function mustConsistentBilling(exchange: Exchange, body: JsonObject): void {
  const b = body.billing;
  must(b && typeof b === 'object', `${describe(exchange)}: billing is missing`);
  const expected = b.monthly_minutes_limit - b.monthly_minutes_used;
  // Minutes carry two decimals, so one rounding step of slack; remaining never goes below 0.
  must(
    Math.abs(b.monthly_minutes_remaining - Math.max(0, expected)) <= 0.011,
    `${describe(exchange)}: remaining ${b.monthly_minutes_remaining} ≠ limit ${b.monthly_minutes_limit} − used ${b.monthly_minutes_used}`,
  );
  if (b.mode === 'subscription')
    must(b.estimated_cost_cents === 0, `${describe(exchange)}: subscription mode with estimated_cost_cents ${b.estimated_cost_cents}`);
}
