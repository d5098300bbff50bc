import { randomUUID } from 'node:crypto';
import { type Exchange, describe } from '../exchange.js';
import { RuleFailure } from '../outcome.js';
import type { RuleContext } from '../rule-context.js';
import { answerChecks, mustHaveAnswer } from './answers.js';
import { type GeneratedCase, anyCase } from './cases.js';
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
export async function requestsRule(ctx: RuleContext): Promise<void> {
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
