import { randomUUID } from 'node:crypto';
import { API_PATH, API_VERSION } from '../../src/contract/limits.js';
import { UUID_PATTERN, must, mustAnswer, mustJson, mustStatus } from '../assertions.js';
import { defined } from '../defined.js';
import { type Exchange, describe, header, jsonBody } from '../exchange.js';
import { locate } from '../exchange-scope.js';
import { preferExample } from '../mock-requests.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { SHORT_TEXT, longJobSubmitted } from '../scenarios.js';

/** A spread of answers of its own (success and several errors), so these rules mean something alone. */
function probes(ctx: RuleContext): Promise<Exchange[]> {
  return ctx.scenario('meta-probes', async (s) => {
    if (s.profile === 'mock') {
      return [
        await s.send({ method: 'POST', url: API_PATH, json: { text: SHORT_TEXT }, label: 'no Authorization' }),
        await preferExample(s, 'get', 200, 'completed'),
        await preferExample(s, 'submit', 202, 'processing'),
        await preferExample(s, 'get', 404, 'not_found'),
        await preferExample(s, 'submit', 400, 'invalid_request'),
      ];
    }
    // A key of its own, held while used: its GETs count against its bucket, and the invalid body is sent
    // when its POST bucket has room (the API does not order a 400 against a 429).
    const [key = ''] = await s.lease({ fresh: 'post' });
    return [
      await s.send({ method: 'POST', url: API_PATH, json: { text: SHORT_TEXT }, label: 'no Authorization' }),
      await s.getJob(key, randomUUID(), { label: 'unknown job' }),
      await s.send({ method: 'GET', url: `${API_PATH}?id=not-a-uuid`, key, label: 'malformed id' }),
      await s.send({ method: 'POST', url: API_PATH, key, json: { text: '' }, label: 'invalid body' }),
      await s.send({ method: 'GET', url: '/v1/no-such-route', label: 'unknown route' }),
    ];
  });
}

/** Answers of the service itself, probes first; the voice catalog is a service of its own (§4.3). */
async function serviceAnswers(ctx: RuleContext): Promise<Exchange[]> {
  const own = await probes(ctx);
  // Unanswered probes leave nothing to judge: the suite's problem, not a pass.
  for (const exchange of own) mustAnswer(exchange);
  const all = [...own, ...ctx.allExchanges().filter((e) => !own.includes(e))];
  return all.filter((e) => {
    if (!e.response) return false;
    const { origin, path } = locate(ctx.target, e);
    return origin !== 'voices' && ctx.doc.match(e.request.method, path).operation?.operationId !== 'listVoices';
  });
}

/**
 * An answer whose JSON body is an API answer (with `meta`), not a file the API serves: the word timings
 * (`WordTimingsFile`, downloadCaptions' 200) are a file, like the MP3, and carry no `meta`; their
 * X-Request-Id is still checked.
 */
function isEnvelope(ctx: RuleContext, e: Exchange): boolean {
  if (!e.response || !jsonBody(e)) return false;
  const { path } = locate(ctx.target, e);
  return !(e.response.status < 300 && ctx.doc.match(e.request.method, path).operation?.operationId === 'downloadCaptions');
}

function checkEvery(ctx: RuleContext, exchanges: Exchange[], check: (e: Exchange) => string | undefined): void {
  const problems = exchanges.flatMap((e) => {
    const problem = check(e);
    return problem ? [`${describe(e)}: ${problem}`] : [];
  });
  ctx.cite(exchanges.filter((e) => check(e)).slice(0, 20));
  must(problems.length === 0, `${problems.length} of ${exchanges.length} answers: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? '; …' : ''}`);
}

async function apiVersionEverywhere(ctx: RuleContext): Promise<void> {
  const answers = (await serviceAnswers(ctx)).filter((e) => isEnvelope(ctx, e));
  checkEvery(ctx, answers, (e) => {
    const version = jsonBody(e)?.meta?.api_version;
    return version === API_VERSION ? undefined : `meta.api_version is ${JSON.stringify(version)}`;
  });
  ctx.note(`checked ${answers.length} JSON answers`);
}

export const metaRules: Rule[] = [
  {
    id: 'versioning.api-version-everywhere',
    title: 'Every answer, errors included, carries meta.api_version "2026-04"',
    section: '§2.2 meta, §7, §9',
    basis: { kind: 'api' },
    phase: 'final',
    full: apiVersionEverywhere,
    mock: apiVersionEverywhere,
  },
  {
    id: 'versioning.v1-path',
    title: 'The API answers at /v1/agent-tts and the status_url it hands out carries /v1',
    section: '§4, §9',
    basis: { kind: 'api' },
    async full(ctx) {
      const [unknown] = (await probes(ctx)).filter((e) => e.request.url.includes(`${API_PATH}?id=`));
      const probe = defined(unknown, `the probe GET of ${API_PATH}?id=`);
      mustAnswer(probe);
      must(jsonBody(probe)?.success === false, 'GET /v1/agent-tts did not answer with a JSON body');
      const { post } = await longJobSubmitted(ctx);
      mustStatus(post, 202);
      const statusUrl = mustJson(post).status_url;
      must(
        typeof statusUrl === 'string' && statusUrl.startsWith(`${API_PATH}?`),
        `${describe(post)}: status_url ${JSON.stringify(statusUrl)} does not begin ${API_PATH}`,
      );
    },
    async mock(ctx) {
      const exchange = await preferExample(ctx, 'submit', 202, 'processing');
      must(String(mustJson(exchange).status_url).startsWith(`${API_PATH}?`), 'status_url does not begin /v1/agent-tts');
    },
  },
  {
    id: 'meta.request-id',
    title: 'Every answer carries X-Request-Id, a UUID, and every JSON answer the same value as meta.request_id',
    section: '§2.2 meta, §7 (header decided in the OpenAPI document)',
    basis: { kind: 'document', decision: 'meta-and-versioning' },
    phase: 'final',
    async full(ctx) {
      const answers = await serviceAnswers(ctx);
      checkEvery(ctx, answers, (e) => {
        const fromHeader = header(e, 'x-request-id');
        const body = isEnvelope(ctx, e) ? jsonBody(e) : undefined;
        if (!fromHeader || !UUID_PATTERN.test(fromHeader)) return `X-Request-Id is ${JSON.stringify(fromHeader)}`;
        if (body && body.meta?.request_id !== fromHeader) return `meta.request_id ${JSON.stringify(body.meta?.request_id)} ≠ X-Request-Id ${fromHeader}`;
        return undefined;
      });
    },
    async mock(ctx) {
      // Prism makes its headers up, so only the body's request_id is the document's.
      const answers = (await serviceAnswers(ctx)).filter((e) => isEnvelope(ctx, e));
      checkEvery(ctx, answers, (e) => (UUID_PATTERN.test(String(jsonBody(e)?.meta?.request_id)) ? undefined : 'meta.request_id is not a UUID'));
    },
  },
  {
    id: 'meta.request-id-fresh',
    title: 'meta.request_id is fresh: no two answers share one',
    section: '§2.2 meta',
    basis: { kind: 'api' },
    phase: 'final',
    mockSkip: 'a mock repeats the request_id of its examples',
    async full(ctx) {
      const answers = (await serviceAnswers(ctx)).flatMap((e) => {
        const id: unknown = jsonBody(e)?.meta?.request_id;
        return typeof id === 'string' ? [{ e, id }] : [];
      });
      const seen = new Map<string, Exchange>();
      const repeats: string[] = [];
      for (const { e, id } of answers) {
        const earlier = seen.get(id);
        if (earlier) {
          repeats.push(`${describe(e)} repeats ${id} of #${earlier.seq}`);
          ctx.cite([earlier, e]);
        } else seen.set(id, e);
      }
      must(repeats.length === 0, `${repeats.length} repeated request ids: ${repeats.slice(0, 3).join('; ')}`);
      ctx.note(`${answers.length} answers, ${seen.size} distinct request ids`);
    },
  },
];
