import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { API_PATH, VOICES_PATH } from '../../src/contract/limits.js';
import { CURATED_VOICES } from '../../src/contract/voices.js';
import { type Exchange, describe, header, jsonBody } from '../exchange.js';
import { locate } from '../exchange-scope.js';
import { RuleFailure, SuiteError } from '../outcome.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import type { RunState } from '../run-state.js';
import { skip } from '../assertions.js';
import { type GeneratedCase, type Offered, type RequestSchemas, anyCase, requestSchemas, validBody } from './cases.js';
import { type Violation, checkAnswer, checkExpectation, checkGone, describeViolations } from './checks.js';
import { curlCommand, shellQuote } from './curl.js';

/**
 * The generated rule group: requests drawn from the OpenAPI document (cases.ts), every answer held
 * to the checks of checks.ts, and sequences that follow the API's own links. fast-check draws the
 * cases from one seed, and shrinks a failing case to the smallest one that still fails; the failure
 * names the seed and prints that case as a curl command.
 */

/** Extra requests spent shrinking a failure, at most: each may be a POST that creates a job. */
const SHRINK_BUDGET = 40;
/** Shrinking a sequence costs a job per attempt (POST quota), so it gets fewer. */
const SEQUENCE_SHRINK_BUDGET = 6;
/** One sequence (submit → status_url → audio_url → replay) per this many generated requests, at least one. */
const REQUESTS_PER_SEQUENCE = 15;

const seeds = new WeakMap<RunState, number>();

/** The run's seed: --seed, or one drawn once per run (and printed, so the run can be repeated). */
function runSeed(ctx: RuleContext): number {
  if (ctx.settings.seed !== undefined) return ctx.settings.seed;
  let seed = seeds.get(ctx.run);
  if (seed === undefined) {
    seed = Math.floor(Math.random() * 0x7fffffff);
    seeds.set(ctx.run, seed);
  }
  return seed;
}

/** The voices the deployment offers: its catalog (voices_url) when the fixtures name one, else the curated voices of §4.4. */
function offeredVoices(ctx: RuleContext): Promise<Offered> {
  return ctx.scenario('generated-voices', async (s) => {
    const voicesUrl = s.target.voicesUrl;
    if (voicesUrl) {
      const exchange = await s.send({
        method: 'GET',
        url: VOICES_PATH,
        base: voicesUrl.replace(/\/+$/, ''),
        label: 'voice catalog, for the generated requests',
      });
      const body = jsonBody(exchange);
      const list: unknown[] = Array.isArray(body?.voices) ? body.voices : [];
      const ids = list.map((v) => (v && typeof v === 'object' ? (v as { id?: unknown }).id : undefined)).filter((id): id is string => typeof id === 'string');
      // Sorted, so a seed draws the same voices from the same catalog however the deployment orders it.
      if (ids.length > 0) return { voices: [...new Set(ids)].sort() };
      s.note(`${describe(exchange)}: no voices listed; drawing from the curated voices instead`);
    }
    return { voices: CURATED_VOICES.map((v) => v.id).sort() };
  });
}

const reproduceCommand = (ctx: RuleContext, rule: string, runs: number, seed: number) =>
  `agent-tts-conformance --fixtures ${shellQuote(ctx.target.source)} --only ${rule} --generate ${runs} --seed ${seed}`;

/** What one case produced: the exchange, the key it went with, and what the checks found. */
interface CaseOutcome {
  exchange: Exchange;
  key?: string;
  violations: Violation[];
}

/** Checks every answer gets, located against the deployment's base path. */
function answerChecks(ctx: RuleContext, exchange: Exchange): Violation[] {
  const { origin, path } = locate(ctx.target, exchange);
  return origin === 'voices' ? [] : checkAnswer(ctx.doc, exchange, path);
}

function mustHaveAnswer(exchange: Exchange): void {
  if (!exchange.response) throw new SuiteError(`${describe(exchange)}: no answer (${exchange.error ?? 'dropped'})`);
}

/**
 * Sends one case: a valid submission waits for a key whose POST bucket has room (it creates a job);
 * a refused one is sent at once (a refusal takes no quota); a poll waits for GET room. Keys come from
 * the acceptance keys when the fixtures have them, one case at a time.
 */
async function sendCase(ctx: RuleContext, c: GeneratedCase, label: string): Promise<CaseOutcome> {
  const headers: Record<string, string> = {};
  if (c.authorization !== undefined) headers.authorization = c.authorization;
  if (c.contentType !== undefined) headers['content-type'] = c.contentType;
  if (c.idempotencyKey?.kind === 'fresh') headers['idempotency-key'] = `generated-${randomUUID()}`;
  if (c.idempotencyKey?.kind === 'literal') headers['idempotency-key'] = c.idempotencyKey.value;
  const request = { method: c.method, url: c.path, headers, body: c.body, label };
  let exchange: Exchange;
  let key: string | undefined;
  if (c.auth === 'key') {
    const creates = c.method === 'POST' && c.expect === 'accept';
    const lease = await ctx.run.acceptancePool.lease({ fresh: c.method === 'POST' ? 'post' : 'get' });
    try {
      key = lease.keys[0]!;
      exchange = await ctx.send({ ...request, key, throttle: creates || c.method === 'GET' });
    } finally {
      lease.release();
    }
  } else {
    exchange = await ctx.send(request);
  }
  mustHaveAnswer(exchange);
  return { exchange, key, violations: [...answerChecks(ctx, exchange), ...checkExpectation(c.expect, exchange, c.why)] };
}

const caseId = (c: GeneratedCase) => JSON.stringify(c);

/** The answer, for a reproduction: status, media type and the start of the body. */
function answerSummary(exchange: Exchange): string {
  const r = exchange.response!;
  const body = r.text ? r.text.slice(0, 400) : `<${r.bytes.length} bytes>`;
  return `HTTP ${r.status} ${r.contentType || '(no Content-Type)'}\n${body}`;
}

/**
 * Runs a property with a shrink budget: once a case has failed, at most `budget` more cases are sent
 * while fast-check shrinks; past it every candidate counts as passing, so the smallest failure found
 * so far is the one reported.
 */
async function runProperty<T>(
  arbitrary: fc.Arbitrary<T>,
  options: { seed: number; runs: number; budget: number },
  attempt: (value: T) => Promise<Violation[]>,
): Promise<{ failed: false; ran: number } | { failed: true; value: T; violations: Violation[]; shrinks: number; first: T }> {
  let failures = 0;
  let afterFailure = 0;
  let first: T | undefined;
  const seen = new Map<string, Violation[]>();
  const property = fc.asyncProperty(arbitrary, async (value) => {
    if (failures > 0 && ++afterFailure > options.budget) return true;
    const violations = await attempt(value);
    if (violations.length === 0) return true;
    failures++;
    first ??= value;
    seen.set(JSON.stringify(value), violations);
    return false;
  });
  const details = await fc.check(property, { seed: options.seed, numRuns: options.runs, endOnFailure: false });
  if (!details.failed) return { failed: false, ran: details.numRuns };
  const error = details.errorInstance;
  if (error instanceof SuiteError) throw error;
  if (!details.counterexample) throw new SuiteError(`the generator failed: ${String((error as Error | undefined)?.message ?? error)}`);
  const value = details.counterexample[0] as T;
  const violations = seen.get(JSON.stringify(value));
  if (!violations) throw error instanceof Error ? error : new SuiteError(String(error));
  return { failed: true, value, violations, shrinks: details.numShrinks, first: first ?? value };
}

const GENERATED_REQUESTS = 'generated.requests';
const GENERATED_LINKS = 'generated.links';
const GENERATED_USE_AFTER_FREE = 'generated.use-after-free';

function generatedRuns(ctx: RuleContext): number {
  const runs = ctx.settings.generate;
  if (runs === 0) skip('feature', 'generation is off (--generate 0)');
  return runs;
}

async function requestsRule(ctx: RuleContext): Promise<void> {
  const runs = generatedRuns(ctx);
  const seed = runSeed(ctx);
  const schemas = requestSchemas(ctx.doc);
  const offered = await offeredVoices(ctx);
  const counts = { accept: 0, reject: 0, unauthorized: 0 };
  const outcomes = new Map<string, CaseOutcome>();
  let n = 0;
  const result = await runProperty(anyCase(schemas, offered), { seed, runs, budget: SHRINK_BUDGET }, async (c) => {
    counts[c.expect]++;
    const outcome = await sendCase(ctx, c, `generated #${++n} (seed ${seed}): ${c.expect}${c.why ? `, ${c.why}` : ''}`);
    outcomes.set(caseId(c), outcome);
    return outcome.violations;
  });
  ctx.note(`seed ${seed}: ${n} generated requests (${counts.accept} valid, ${counts.reject} invalid, ${counts.unauthorized} without a good key)`);
  if (!result.failed) return;
  const outcome = outcomes.get(caseId(result.value))!;
  const checks = [...new Set(result.violations.map((v) => v.check))].join(', ');
  const reproduction = [
    `seed ${seed}; run again: ${reproduceCommand(ctx, GENERATED_REQUESTS, runs, seed)}`,
    `smallest failing request (shrunk in ${result.shrinks} steps), ${result.value.expect === 'accept' ? 'a valid request' : result.value.why}:`,
    curlCommand(ctx.target.baseUrl, result.value, outcome.key),
    `answer (${describe(outcome.exchange)}):`,
    answerSummary(outcome.exchange),
    'violations:',
    describeViolations(result.violations),
  ].join('\n');
  ctx.cite([outcome.exchange]);
  throw new RuleFailure(`${checks} (seed ${seed}): ${result.violations[0]!.message}`, reproduction);
}

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
  const key = lease.keys[0]!;
  const idempotencyKey = `generated-${randomUUID()}`;
  const exchanges: Exchange[] = [];
  const violations: Violation[] = [];
  const judge = (exchange: Exchange) => {
    mustHaveAnswer(exchange);
    exchanges.push(exchange);
    violations.push(...answerChecks(ctx, exchange));
  };
  try {
    const post = await ctx.post(key, body, { idempotencyKey, label: `${label}: submit` });
    judge(post);
    violations.push(...checkExpectation('accept', post));
    const json = jsonBody(post);
    if (![200, 202].includes(post.response!.status) || typeof json?.job_id !== 'string') return { violations, exchanges, key, idempotencyKey };
    const jobId: string = json.job_id;
    // The link to the job: status_url of a 202, or the same path built from job_id (the 200 answer has none).
    const statusUrl: string = typeof json.status_url === 'string' ? json.status_url : `${API_PATH}?id=${encodeURIComponent(jobId)}`;
    const polls = await ctx.pollJob(key, statusUrl, `${label}: GET status_url`);
    for (const poll of polls) judge(poll);
    const final = jsonBody(polls[polls.length - 1]!);
    if (final?.job_id !== undefined && final.job_id !== jobId)
      violations.push({ check: 'response_schema_conformance', message: `status_url ${statusUrl} answered job ${final.job_id}, not ${jobId}` });
    const audioUrl = final?.status === 'completed' && typeof final.audio_url === 'string' ? final.audio_url : undefined;
    if (audioUrl) {
      const audio = await ctx.send({ method: 'GET', url: audioUrl, label: `${label}: GET audio_url` });
      judge(audio);
      if (audio.response!.status !== 200 || audio.response!.bytes.length === 0)
        violations.push({
          check: 'positive_data_acceptance',
          message: `${describe(audio)}: the audio_url of a completed job is not served (HTTP ${audio.response!.status}, ${audio.response!.bytes.length} bytes)`,
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

function links(ctx: RuleContext): Promise<LinksOutcome> {
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
    const outcome = tried.get(JSON.stringify(result.value))!;
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
    return { jobs, ran: n, failure: new RuleFailure(`${checks} (seed ${seed}): ${result.violations[0]!.message}`, reproduction) };
  });
}

/** Longest retention of docs/api-rules.md#retention (30 days, Ultimate) and a day more. */
const PAST_RETENTION_SECONDS = 31 * 86_400;

async function useAfterFree(ctx: RuleContext): Promise<void> {
  generatedRuns(ctx);
  const { jobs } = await links(ctx);
  const violations: Violation[] = [];
  const judged = (exchange: Exchange, what: string) => {
    mustHaveAnswer(exchange);
    violations.push(...answerChecks(ctx, exchange), ...checkGone(exchange, what));
  };
  const expired = ctx.fixtures.expired_audio;
  if (expired) {
    // The fixtures' audio URL whose expiry has passed stays gone, asked twice.
    for (const attempt of ['', ' again'])
      judged(
        await ctx.send({ method: 'GET', url: expired.audio_url, label: `the fixtures' expired audio_url${attempt}` }),
        `the expired audio_url of the fixtures${attempt}`,
      );
  }
  const job = jobs[0];
  if (!ctx.time.clock) {
    ctx.note(
      'this deployment offers no test clock (fixtures clock.url), so the audio URL of a followed job was not waited out past its expiry, nor the job past its retention; ' +
        (expired ? "the fixtures' expired audio URL was checked instead" : 'and the fixtures have no expired_audio to check instead'),
    );
  } else if (!job) {
    ctx.note('no followed job completed (see generated.links), so there was no audio URL to let expire');
  } else {
    const expires = Number(new URL(job.audioUrl).searchParams.get('expires'));
    if (Number.isFinite(expires) && expires > 0) {
      await ctx.time.sleep(Math.max(0, expires * 1000 - ctx.time.now()) + 2_000);
      judged(await ctx.send({ method: 'GET', url: job.audioUrl, label: 'audio_url after its expiry' }), `the audio_url of job ${job.jobId} after its expiry`);
    }
    await ctx.time.sleep(PAST_RETENTION_SECONDS * 1000);
    const poll = await ctx.send({ method: 'GET', url: job.statusUrl, key: job.key, label: 'status_url after the retention period' });
    judged(poll, `job ${job.jobId} after ${PAST_RETENTION_SECONDS / 86_400} days (past every plan's retention)`);
    ctx.note(`moved the test clock past the audio URL's expiry and ${PAST_RETENTION_SECONDS / 86_400} days past the submission of job ${job.jobId}`);
  }
  if (violations.length > 0) throw new RuleFailure(describeViolations(violations));
}

export const generatedRules: Rule[] = [
  {
    id: GENERATED_REQUESTS,
    title:
      'Requests drawn from the OpenAPI document (valid and invalid bodies, headers, queries, keys) get documented, non-5xx answers: valid ones accepted, invalid ones refused 400, keyless ones 401',
    section: 'OpenAPI document (generated, Schemathesis checks)',
    covers: { codes: ['INVALID_REQUEST', 'INVALID_KEY', 'NOT_FOUND'], statuses: [200, 202, 400, 401, 404] },
    full: requestsRule,
    mockSkip: "the generated requests judge a deployment's answers to inputs a mock's named examples do not depend on",
  },
  {
    id: GENERATED_LINKS,
    title:
      "Generated jobs followed through the API's links (submit → status_url → audio_url, then a replay with the same Idempotency-Key) get conforming answers and the same job",
    section: 'OpenAPI document (generated sequences)',
    full: async (ctx) => {
      const outcome = await links(ctx);
      if (outcome.failure) throw outcome.failure;
    },
    mockSkip: 'a mock keeps no jobs to follow',
  },
  {
    id: GENERATED_USE_AFTER_FREE,
    title: "An expired audio URL and a job past its retention stay gone (404 NOT_FOUND): moved there on a test clock, else the fixtures' expired audio URL",
    section: 'docs/api-rules.md#retention (generated sequences)',
    // Last: on a test clock it moves time by a month, which no other rule may see.
    phase: 'final',
    full: useAfterFree,
    mockSkip: 'a mock keeps no jobs that expire',
  },
];
