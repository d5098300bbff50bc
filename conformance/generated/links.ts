import { randomUUID } from 'node:crypto';
import { API_PATH } from '../../src/contract/limits.js';
import { defined } from '../defined.js';
import { type Exchange, describe, header, jsonBody } from '../exchange.js';
import { RuleFailure } from '../outcome.js';
import type { RuleContext } from '../rule-context.js';
import { answerChecks, mustHaveAnswer } from './answers.js';
import { validBody } from './bodies.js';
import type { GeneratedCase } from './cases.js';
import { type Violation, checkExpectation, describeViolations } from './checks.js';
import { curlCommand } from './curl.js';
import { GENERATED_LINKS, generatedRuns, offeredVoices, reproduceCommand, runSeed } from './generation.js';
import { runProperty } from './property.js';
import { type RequestSchemas, requestSchemas } from './request-schemas.js';

/**
 * The generated sequences: valid jobs followed through the API's links, once per run (a scenario),
 * for the generated.links rule and the jobs the use-after-free rule lets expire.
 */

/** Shrinking a sequence costs a job per attempt (POST quota), so it gets fewer. */
const SEQUENCE_SHRINK_BUDGET = 6;
/** One sequence (submit → status_url → audio_url → replay) per this many generated requests, at least one. */
const REQUESTS_PER_SEQUENCE = 15;

/** A job followed through the API's links, for the use-after-free rule. */
interface LinkedJob {
  key: string;
  jobId: string;
  statusUrl: string;
  audioUrl: string;
}

interface LinksOutcome {
  jobs: LinkedJob[];
  failure?: RuleFailure;
  ran: number;
}

/**
 * submit → status_url (polled while processing) → audio_url, then the same POST again with the same
 * Idempotency-Key, which must answer with the same job and `Idempotent-Replayed: true`. Every answer
 * gets the checks of checkAnswer.
 */
async function followLinks(
  ctx: RuleContext,
  body: Record<string, unknown>,
  label: string,
  jobs: LinkedJob[],
): Promise<{ violations: Violation[]; exchanges: Exchange[]; key: string; idempotencyKey: string }> {
  const lease = await ctx.run.acceptancePool.lease({ fresh: 'post' });
  const key = defined(lease.keys[0], 'the key of an acceptance lease');
  const idempotencyKey = `generated-${randomUUID()}`;
  const exchanges: Exchange[] = [];
  const violations: Violation[] = [];
  const judge = (exchange: Exchange) => {
    const response = mustHaveAnswer(exchange);
    exchanges.push(exchange);
    violations.push(...answerChecks(ctx, exchange));
    return response;
  };
  try {
    const post = await ctx.post(key, body, { idempotencyKey, label: `${label}: submit` });
    const posted = judge(post);
    violations.push(...checkExpectation('accept', post));
    const json = jsonBody(post);
    if (![200, 202].includes(posted.status) || typeof json?.job_id !== 'string') return { violations, exchanges, key, idempotencyKey };
    const jobId: string = json.job_id;
    // The link to the job: status_url of a 202, or the same path built from job_id (the 200 answer has none).
    const statusUrl: string = typeof json.status_url === 'string' ? json.status_url : `${API_PATH}?id=${encodeURIComponent(jobId)}`;
    const polls = await ctx.pollJob(key, statusUrl, `${label}: GET status_url`);
    for (const poll of polls) judge(poll);
    const final = jsonBody(defined(polls.at(-1), `the last poll of ${statusUrl}`));
    if (final?.job_id !== undefined && final.job_id !== jobId)
      violations.push({ check: 'response_schema_conformance', message: `status_url ${statusUrl} answered job ${final.job_id}, not ${jobId}` });
    const audioUrl = final?.status === 'completed' && typeof final.audio_url === 'string' ? final.audio_url : undefined;
    if (audioUrl) {
      const audio = await ctx.send({ method: 'GET', url: audioUrl, label: `${label}: GET audio_url` });
      const served = judge(audio);
      if (served.status !== 200 || served.bytes.length === 0)
        violations.push({
          check: 'positive_data_acceptance',
          message: `${describe(audio)}: the audio_url of a completed job is not served (HTTP ${served.status}, ${served.bytes.length} bytes)`,
        });
      jobs.push({ key, jobId, statusUrl, audioUrl });
    }
    // A replay takes no quota: sent at once.
    const replay = await ctx.post(key, body, { idempotencyKey, throttle: false, label: `${label}: the same POST again, same Idempotency-Key` });
    judge(replay);
    const replayed = jsonBody(replay);
    if (replayed?.job_id !== jobId || header(replay, 'idempotent-replayed') !== 'true') {
      violations.push({
        check: 'idempotent_replay',
        message: `${describe(replay)}: the replay answered job ${JSON.stringify(replayed?.job_id)} with Idempotent-Replayed ${JSON.stringify(header(replay, 'idempotent-replayed'))}, not job ${jobId} with true`,
      });
    }
    return { violations, exchanges, key, idempotencyKey };
  } finally {
    lease.release();
  }
}

export function links(ctx: RuleContext): Promise<LinksOutcome> {
  return ctx.scenario('generated-links', async (s) => {
    const requests = generatedRuns(s);
    const runs = Math.max(1, Math.ceil(requests / REQUESTS_PER_SEQUENCE));
    const seed = runSeed(s);
    const schemas: RequestSchemas = requestSchemas(s.doc);
    const offered = await offeredVoices(s);
    const jobs: LinkedJob[] = [];
    const tried = new Map<string, { exchanges: Exchange[]; key: string }>();
    let n = 0;
    const result = await runProperty(validBody(schemas, offered), { seed, runs, budget: SEQUENCE_SHRINK_BUDGET }, async (body) => {
      const outcome = await followLinks(s, body, `generated sequence #${++n} (seed ${seed})`, jobs);
      tried.set(JSON.stringify(body), outcome);
      return outcome.violations;
    });
    s.note(`seed ${seed}: ${n} sequences followed (submit → status_url → audio_url → replay)`);
    if (!result.failed) return { jobs, ran: n };
    const outcome = defined(tried.get(JSON.stringify(result.value)), 'the exchanges of the smallest failing sequence');
    const c: GeneratedCase = {
      method: 'POST',
      path: API_PATH,
      auth: 'key',
      idempotencyKey: { kind: 'fresh' },
      contentType: 'application/json',
      body: JSON.stringify(result.value),
      expect: 'accept',
    };
    const checks = [...new Set(result.violations.map((v) => v.check))].join(', ');
    const reproduction = [
      `seed ${seed}; run again: ${reproduceCommand(s, GENERATED_LINKS, requests, seed)}`,
      `smallest failing sequence (shrunk in ${result.shrinks} steps): submit, follow status_url and audio_url, replay with the same Idempotency-Key; its submission:`,
      curlCommand(s.target.baseUrl, c, outcome.key),
      `its exchanges: ${outcome.exchanges.map((e) => describe(e)).join('; ')}`,
      'violations:',
      describeViolations(result.violations),
    ].join('\n');
    return {
      jobs,
      ran: n,
      failure: new RuleFailure(
        `${checks} (seed ${seed}): ${defined(result.violations[0], 'the first violation of the smallest failing sequence').message}`,
        reproduction,
      ),
    };
  });
}
