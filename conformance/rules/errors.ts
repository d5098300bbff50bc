import { ERROR_TABLE, type ErrorCode } from '../../src/contract/errors.js';
import { API_PATH } from '../../src/contract/limits.js';
import { UUID_PATTERN, must, mustAnswer, mustError, mustJson } from '../assertions.js';
import { type Exchange, describe, jsonBody } from '../exchange.js';
import { locate } from '../exchange-scope.js';
import { HOSTILE_JOB_ID_URLS, hostileSubmissions } from '../invalid-requests.js';
import { preferExample } from '../mock-requests.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { SHORT_TEXT, failedJobs, newIdempotencyKey } from '../scenarios.js';

/**
 * Error answers of the service — the API's endpoint, the audio route and unknown routes: the table
 * of §7 binds their status everywhere. Two protocol statuses are the documented exceptions, each with
 * a rule of its own: 405 for a wrong method (with Allow) and 416 for a Range past the end.
 */
function tableBound(ctx: RuleContext, e: Exchange): boolean {
  if (!e.response || e.response.status < 400) return false;
  const { origin, path } = locate(ctx.target, e);
  // audio_url may point at another origin (a CDN): its answers are the audio route's all the same.
  if (origin === 'voices' || (origin === 'elsewhere' && !path.startsWith('/v1/audio/'))) return false;
  return e.response.status !== 405 && e.response.status !== 416;
}

function errorShapeProblem(e: Exchange): string | undefined {
  const { response } = e;
  if (!response) return `no answer (${e.error ?? 'dropped'})`;
  const body = jsonBody(e);
  if (!body) return `not a JSON error body (${response.contentType})`;
  if (body.success !== false) return `success is ${JSON.stringify(body.success)}`;
  const code = body.error?.code;
  if (typeof code !== 'string' || !Object.hasOwn(ERROR_TABLE, code)) return `error.code ${JSON.stringify(code)} is not in the table of §7`;
  const status = ERROR_TABLE[code as ErrorCode].status;
  if (response.status !== status) return `${code} with HTTP ${response.status}; the table gives ${status}`;
  if (typeof body.error.message !== 'string' || body.error.message.trim() === '') return 'error.message is empty';
  if (body.error.details !== undefined && (typeof body.error.details !== 'object' || body.error.details === null)) return 'error.details is not an object';
  if (!body.meta || !UUID_PATTERN.test(String(body.meta.request_id)) || typeof body.meta.api_version !== 'string')
    return 'meta with request_id and api_version is missing';
  return undefined;
}

/** Inputs a careless server answers with a 500 or a dropped connection. */
async function hostileInputs(ctx: RuleContext): Promise<Exchange[]> {
  const key = await ctx.leaseKey({ fresh: 'get' });
  const post = (label: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    ctx.send({ method: 'POST', url: API_PATH, key, body, headers: { 'content-type': 'application/json', ...headers }, throttle: false, label });
  const exchanges: Exchange[] = [];
  for (const h of hostileSubmissions()) exchanges.push(await post(h.label, h.body, h.headers));
  for (const g of HOSTILE_JOB_ID_URLS) exchanges.push(await ctx.send({ method: 'GET', url: g.url, key, label: g.label }));
  return exchanges;
}

export const errorRules: Rule[] = [
  {
    id: 'errors.body-shape',
    title: 'Every error answer has success false, a code of the table, the HTTP status the table gives it, a message and meta',
    section: '§7',
    basis: { kind: 'api' },
    phase: 'final',
    async full(ctx) {
      // A couple of errors of its own, so the rule means something when run alone.
      const own = [
        await ctx.send({ method: 'POST', url: API_PATH, json: { text: SHORT_TEXT }, label: 'no key' }),
        await ctx.getJob(ctx.activeKey(), '00000000-0000-4000-8000-000000000000', { label: 'unknown job' }),
      ];
      for (const exchange of own) mustAnswer(exchange);
      const errors = [...own, ...ctx.allExchanges().filter((e) => !own.includes(e))].filter((e) => tableBound(ctx, e));
      const problems = errors.flatMap((e) => {
        const problem = errorShapeProblem(e);
        return problem ? [{ e, problem }] : [];
      });
      ctx.cite(problems.slice(0, 20).map((p) => p.e));
      must(
        problems.length === 0,
        `${problems.length} of ${errors.length} error answers: ${problems
          .slice(0, 5)
          .map((p) => `${describe(p.e)}: ${p.problem}`)
          .join('; ')}`,
      );
      ctx.note(`checked ${errors.length} error answers`);
    },
    async mock(ctx) {
      const examples = ctx.doc.examples().filter((x) => Number(x.status) >= 400 && x.operation.template === API_PATH);
      for (const example of examples) {
        const exchange = await preferExample(ctx, x2op(example.operation.method), Number(example.status), example.name);
        mustAnswer(exchange);
        const problem = errorShapeProblem(exchange);
        must(!problem, `${describe(exchange)} (${example.name}): ${problem}`);
      }
    },
  },
  {
    id: 'errors.tts-provider-error',
    title: 'A job the speech engine fails reports TTS_PROVIDER_ERROR: 502 when it fails inside the wait, in the failed job otherwise',
    section: '§7',
    basis: { kind: 'api' },
    covers: { codes: ['TTS_PROVIDER_ERROR'], statuses: [502] },
    async full(ctx) {
      const { provoked, declared } = await failedJobs(ctx);
      if (provoked) {
        if (provoked.post.response?.status === 202) {
          const body = mustJson(provoked.final);
          must(
            body.status === 'failed' && body.error?.code === 'TTS_PROVIDER_ERROR',
            `${describe(provoked.final)}: the job ended ${JSON.stringify(body.status)} with ${JSON.stringify(body.error?.code)}`,
          );
        } else {
          mustError(provoked.post, 'TTS_PROVIDER_ERROR');
        }
      }
      if (declared) {
        // The fixtures' failed_job failed in the speech engine: its GET reports TTS_PROVIDER_ERROR.
        const body = mustJson(declared.get);
        must(
          declared.get.response?.status === 200 && body.status === 'failed' && body.error?.code === 'TTS_PROVIDER_ERROR',
          `${describe(declared.get)}: the failed job of the fixtures answers HTTP ${declared.get.response?.status}, status ${JSON.stringify(body.status)}, code ${JSON.stringify(body.error?.code)}`,
        );
        if (!provoked)
          ctx.note('judged on the failed job the fixtures declare; a 502 inside the inline wait needs --failing-voice or outcomes.provider_error_text');
      }
    },
    async mock(ctx) {
      mustError(await preferExample(ctx, 'submit', 502, 'tts_provider_error'), 'TTS_PROVIDER_ERROR');
    },
  },
  {
    id: 'errors.internal-error',
    title: 'Hostile input never causes a 5xx or a dropped connection; any 500 seen is INTERNAL_ERROR with the error body',
    section: '§7 (INTERNAL_ERROR), §8',
    basis: { kind: 'api' },
    covers: { codes: ['INTERNAL_ERROR'], statuses: [500] },
    phase: 'final',
    async full(ctx) {
      for (const exchange of await hostileInputs(ctx)) {
        const { status } = mustAnswer(exchange);
        must(status >= 400 && status < 500, `${describe(exchange)}: hostile input answered ${status}, not a 4xx`);
        const body = mustJson(exchange);
        must(body.success === false && typeof body.error?.code === 'string', `${describe(exchange)}: not the error body`);
      }
      // A deployment that can fail a request on demand (outcomes.internal_error_text) shows its 500.
      const internalErrorText = ctx.fixtures.outcomes?.internal_error_text;
      if (internalErrorText !== undefined) {
        const key = await ctx.leaseKey({ fresh: 'post' });
        const provoked = await ctx.post(
          key,
          { text: internalErrorText },
          { idempotencyKey: newIdempotencyKey(), label: 'the text of outcomes.internal_error_text' },
        );
        mustError(provoked, 'INTERNAL_ERROR');
      }
      const fiveHundreds = ctx.allExchanges().filter((e) => e.response?.status === 500);
      ctx.cite(fiveHundreds);
      for (const exchange of fiveHundreds) mustError(exchange, 'INTERNAL_ERROR');
    },
    async mock(ctx) {
      mustError(await preferExample(ctx, 'submit', 500, 'internal_error'), 'INTERNAL_ERROR');
      mustError(await preferExample(ctx, 'get', 500, 'internal_error'), 'INTERNAL_ERROR');
    },
  },
];

const x2op = (method: string): 'submit' | 'get' => (method === 'POST' ? 'submit' : 'get');
