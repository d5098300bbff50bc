import { API_PATH, LIMITS } from '../../src/contract/limits.js';
import { DEFAULT_VOICE } from '../../src/contract/voices.js';
import { must, mustError, mustJson, mustStatus } from '../assertions.js';
import { defined } from '../defined.js';
import { describe } from '../exchange.js';
import { mustBeCompletedJob, mustBeProcessingJob } from '../job-shapes.js';
import { INVALID_SUBMISSIONS, type InvalidSubmission } from '../invalid-requests.js';
import { preferExample } from '../mock-requests.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { completedBody, inlineJob, longJobFinished, longJobSubmitted, longText, optionsJob } from '../scenarios.js';

/**
 * Sends each invalid submission on a key of its own and requires 400 INVALID_REQUEST. Refused requests
 * consume no POST quota (OpenAPI submitTts), so each waits for a free POST slot only once: the API does
 * not order a 400 against a 429, so a bad body is sent when the bucket has room.
 */
async function sendInvalid(ctx: RuleContext, cases: readonly InvalidSubmission[]): Promise<void> {
  const key = await ctx.leaseKey({ fresh: 'post' });
  for (const c of cases) {
    const exchange = await ctx.send({
      method: 'POST',
      url: API_PATH,
      key,
      body: c.body,
      headers: { 'content-type': c.contentType ?? 'application/json', ...(c.headers ?? {}) },
      label: c.label,
    });
    mustError(exchange, 'INVALID_REQUEST');
  }
}

/** The invalid submissions the API refuses, and those the document's decisions refuse. */
const API_REFUSALS = INVALID_SUBMISSIONS.filter((c) => c.decision === undefined);
const DECIDED_REFUSALS = INVALID_SUBMISSIONS.filter((c) => c.decision !== undefined);

export const submitRules: Rule[] = [
  {
    id: 'submit.inline-completed',
    title: 'A short text completes inside the inline wait: 200, status completed, with audio_url',
    section: '§1, §3.1, §4.1',
    basis: { kind: 'api' },
    covers: { statuses: [200] },
    async full(ctx) {
      const job = await inlineJob(ctx);
      mustStatus(job.post, 200);
      const body = mustJson(job.post);
      must(body.status === 'completed', `${describe(job.post)}: status is ${JSON.stringify(body.status)}`);
      must(typeof body.audio_url === 'string', `${describe(job.post)}: no audio_url`);
    },
    async mock(ctx) {
      const exchange = await preferExample(ctx, 'submit', 200, 'completed');
      mustStatus(exchange, 200);
      must(mustJson(exchange).status === 'completed', 'the completed example is not completed');
    },
  },
  {
    id: 'submit.processing-202',
    title: 'A text that outlasts the inline wait answers 202 processing with job_id, status_url and retry_after_seconds',
    section: '§1, §3.1, §4.1',
    basis: { kind: 'api' },
    covers: { statuses: [202] },
    async full(ctx) {
      const { post } = await longJobSubmitted(ctx);
      mustStatus(post, 202);
      mustBeProcessingJob(post, mustJson(post));
    },
    async mock(ctx) {
      const exchange = await preferExample(ctx, 'submit', 202, 'processing');
      mustStatus(exchange, 202);
      mustBeProcessingJob(exchange, mustJson(exchange));
    },
  },
  {
    id: 'submit.poll-until-completed',
    title: 'Polling status_url, resolved against the origin, at retry_after_seconds reaches completed with the audio',
    section: '§4.1, §4.2, §4.9',
    basis: { kind: 'api' },
    mockSkip: 'a mock job never progresses',
    async full(ctx) {
      const { post, polls } = await longJobFinished(ctx);
      const last = defined(polls.at(-1), 'the last poll of the long job');
      mustStatus(last, 200);
      const body = mustJson(last);
      must(
        body.status === 'completed',
        `${describe(last)}: the job ended ${JSON.stringify(body.status)}${body.error ? ` (${body.error.code}: ${body.error.message})` : ''}`,
      );
      must(body.job_id === mustJson(post).job_id, `${describe(last)}: job_id ${body.job_id} is not the submitted job`);
      mustBeCompletedJob(last, body);
      for (const poll of polls.slice(0, -1)) mustBeProcessingJob(poll, mustJson(poll));
    },
  },
  {
    id: 'submit.defaults',
    title: 'Omitted voice and speed default to af_heart and 1.2',
    section: '§4.1',
    basis: { kind: 'api' },
    async full(ctx) {
      const body = completedBody(await inlineJob(ctx));
      must(body.audio?.voice === DEFAULT_VOICE, `audio.voice is ${JSON.stringify(body.audio?.voice)}, not the default ${DEFAULT_VOICE}`);
      must(body.audio?.speed === LIMITS.speedDefault, `audio.speed is ${JSON.stringify(body.audio?.speed)}, not the default ${LIMITS.speedDefault}`);
    },
    async mock(ctx) {
      const body = mustJson(await preferExample(ctx, 'submit', 200, 'completed'));
      must(body.audio?.voice === DEFAULT_VOICE && body.audio?.speed === LIMITS.speedDefault, 'the completed example does not show the defaults');
    },
  },
  {
    id: 'submit.options-used',
    title: 'A given voice and speed are used and reported in audio; a Kokoro voice keeps the language of its id',
    section: '§2.2, §4.1, §4.5',
    basis: { kind: 'api' },
    mockSkip: 'a mock answers with fixed examples',
    async full(ctx) {
      const job = await optionsJob(ctx);
      const body = completedBody(job);
      must(body.audio?.voice === job.request.voice, `audio.voice is ${JSON.stringify(body.audio?.voice)}, not the requested ${job.request.voice}`);
      must(body.audio?.speed === job.request.speed, `audio.speed is ${JSON.stringify(body.audio?.speed)}, not the requested ${job.request.speed}`);
      if (body.audio?.language !== undefined) {
        // A Kokoro voice speaks the language of its id, whatever `language` says (docs/api-rules.md#submitting).
        must(
          String(body.audio.language).split('-')[0] === job.spokenLanguage,
          `audio.language is ${JSON.stringify(body.audio.language)}; ${job.request.voice} speaks ${job.spokenLanguage}`,
        );
      }
    },
  },
  {
    id: 'submit.invalid-request',
    title: 'Missing or invalid fields and a body that is not a JSON object get 400 INVALID_REQUEST',
    section: '§4.1, §7 (limits of fields as in the OpenAPI document)',
    basis: { kind: 'api' },
    covers: { codes: ['INVALID_REQUEST'], statuses: [400] },
    full: (ctx) => sendInvalid(ctx, API_REFUSALS),
    async mock(ctx) {
      mustError(await preferExample(ctx, 'submit', 400, 'invalid_request'), 'INVALID_REQUEST');
    },
  },
  {
    id: 'submit.invalid-request-decided',
    title: 'A text of white space alone, a Content-Type other than JSON and an Idempotency-Key outside 1–255 printable characters get 400 INVALID_REQUEST',
    section: '§4.1, §4.7 (the answer decided in docs/api-rules.md#submitting and #idempotency)',
    basis: { kind: 'document', decision: 'submitting' },
    covers: { codes: ['INVALID_REQUEST'], statuses: [400] },
    mockSkip: 'a mock answers the document’s examples; which of these it refuses is not the mock’s to decide',
    full: (ctx) => sendInvalid(ctx, DECIDED_REFUSALS),
  },
  {
    id: 'submit.text-too-long',
    title: 'A text over 500,000 characters gets 400 TEXT_TOO_LONG',
    section: '§4.1, §7, §8',
    basis: { kind: 'api' },
    covers: { codes: ['TEXT_TOO_LONG'], statuses: [400] },
    async full(ctx) {
      // Sent when the key's POST bucket has room: the API does not order the 400 and a 429.
      const key = await ctx.leaseKey({ fresh: 'post' });
      const exchange = await ctx.post(key, { text: longText(LIMITS.textMaxChars + 1) }, { label: `${LIMITS.textMaxChars + 1} characters` });
      mustError(exchange, 'TEXT_TOO_LONG');
    },
    async mock(ctx) {
      mustError(await preferExample(ctx, 'submit', 400, 'text_too_long'), 'TEXT_TOO_LONG');
    },
  },
];
