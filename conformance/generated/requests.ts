import { randomUUID } from 'node:crypto';
import { defined } from '../defined.js';
import { type Exchange, describe } from '../exchange.js';
import { RuleFailure } from '../outcome.js';
import type { RuleContext } from '../rule-context.js';
import { answerChecks, mustHaveAnswer } from './answers.js';
import { type GeneratedCase, anyCase } from './cases.js';
import { coverageCases } from './coverage.js';
import { type Violation, checkExpectation, describeViolations } from './checks.js';
import { curlCommand } from './curl.js';
import { GENERATED_REQUESTS, generatedRuns, offeredVoices, reproduceCommand, runSeed } from './generation.js';
import { runProperty } from './property.js';
import { requestSchemas } from './request-schemas.js';

/**
 * The generated.requests rule: single requests drawn from the document (cases.ts), each sent and its
 * answer checked; a failure is shrunk and reported as a curl command with the seed that repeats it.
 */

/** Extra requests spent shrinking a failure, at most: each may be a POST that creates a job. */
const SHRINK_BUDGET = 40;

/** What one case produced: the exchange, the key it went with, and what the checks found. */
interface CaseOutcome {
  exchange: Exchange;
  key?: string;
  violations: Violation[];
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
      key = defined(lease.keys[0], 'the key of an acceptance lease');
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
  const r = exchange.response;
  if (!r) return `no answer (${exchange.error ?? 'dropped'})`;
  const body = r.text ? r.text.slice(0, 400) : `<${r.bytes.length} bytes>`;
  return `HTTP ${r.status} ${r.contentType || '(no Content-Type)'}\n${body}`;
}
export async function requestsRule(ctx: RuleContext): Promise<void> {
  const runs = generatedRuns(ctx);
  const seed = runSeed(ctx);
  const schemas = requestSchemas(ctx.doc);
  const offered = await offeredVoices(ctx);
  const counts = { accept: 0, reject: 0, unauthorized: 0 };
  const outcomes = new Map<string, CaseOutcome>();
  // The coverage phase first: every enum value, every bound, and pairs of them (coverage.ts), the same on every run.
  const coverage = coverageCases(schemas, offered);
  for (const [i, c] of coverage.entries()) {
    const outcome = await sendCase(ctx, c, `coverage ${i + 1}/${coverage.length}: ${c.expect}, ${c.why}`);
    if (outcome.violations.length === 0) continue;
    const checks = [...new Set(outcome.violations.map((v) => v.check))].join(', ');
    ctx.cite([outcome.exchange]);
    throw new RuleFailure(
      `${checks} (coverage phase, case ${i + 1} of ${coverage.length}; seed ${seed}): ${outcome.violations[0]?.message}`,
      [
        `coverage phase, case ${i + 1} of ${coverage.length} (the same on every run); run again: ${reproduceCommand(ctx, GENERATED_REQUESTS, runs, seed)}`,
        `${c.expect === 'accept' ? 'a valid request' : c.why}:`,
        curlCommand(ctx.target.baseUrl, c, outcome.key),
        `answer (${describe(outcome.exchange)}):`,
        answerSummary(outcome.exchange),
        'violations:',
        describeViolations(outcome.violations),
      ].join('\n'),
    );
  }
  ctx.note(
    `coverage phase: ${coverage.length} requests (${coverage.filter((c) => c.expect === 'accept').length} valid), every enum value, every bound, each language with a speed next to each bound and each voice family at each bound`,
  );
  let n = 0;
  const result = await runProperty(anyCase(schemas, offered), { seed, runs, budget: SHRINK_BUDGET }, async (c) => {
    counts[c.expect]++;
    const outcome = await sendCase(ctx, c, `generated #${++n} (seed ${seed}): ${c.expect}${c.why ? `, ${c.why}` : ''}`);
    outcomes.set(caseId(c), outcome);
    return outcome.violations;
  });
  ctx.note(`seed ${seed}: ${n} generated requests (${counts.accept} valid, ${counts.reject} invalid, ${counts.unauthorized} without a good key)`);
  if (!result.failed) return;
  const outcome = defined(outcomes.get(caseId(result.value)), 'the answer to the smallest failing request');
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
  throw new RuleFailure(
    `${checks} (seed ${seed}): ${defined(result.violations[0], 'the first violation of the smallest failing request').message}`,
    reproduction,
  );
}
