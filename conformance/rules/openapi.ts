import { randomUUID } from 'node:crypto';
import { API_PATH, VOICES_PATH } from '../../src/contract/limits.js';
import { must, mustAnswer } from '../assertions.js';
import { type Exchange, describe } from '../exchange.js';
import { locate } from '../exchange-scope.js';
import { EXAMPLE_JOB_ID, preferExample } from '../mock-requests.js';
import type { Rule, RuleBody } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { SHORT_TEXT, inlineJob } from '../scenarios.js';

type OperationId = 'submitTts' | 'getTtsJob' | 'downloadAudio' | 'listVoices';

/**
 * Every recorded answer to one operation, checked against the document: declared status, declared
 * media type, body schema (ajv, JSON Schema 2020-12 with formats), header schemas, required headers.
 * Under the mock profile Prism makes header values up from their schemas, so only bodies are judged.
 */
function conforms(operationId: OperationId, ownProbes: (ctx: RuleContext) => Promise<Exchange[]>): RuleBody {
  return async (ctx) => {
    const own = await ownProbes(ctx);
    // Without an answer to its own probes the rule cannot judge anything: a suite error, not a failure.
    for (const exchange of own) mustAnswer(exchange);
    const candidates = [...own, ...ctx.allExchanges().filter((e) => !own.includes(e))];
    const seen: Exchange[] = [];
    const problems: string[] = [];
    for (const exchange of candidates) {
      if (!exchange.response) continue;
      const { origin, path } = locate(ctx.target, exchange);
      if (operationId !== 'listVoices' && origin === 'voices') continue;
      const { operation } = ctx.doc.match(exchange.request.method, path);
      if (operation?.operationId !== operationId) continue;
      seen.push(exchange);
      let violations = ctx.doc.checkResponse(exchange, path);
      if (ctx.profile === 'mock') violations = violations.filter((v) => !/: (required )?header /.test(v));
      if (violations.length > 0) {
        problems.push(`${describe(exchange)}: ${violations.join('; ')}`);
        ctx.cite([exchange]);
      }
    }
    must(seen.length > 0, `no answer to ${operationId} was recorded`);
    must(
      problems.length === 0,
      `${problems.length} of ${seen.length} answers break the document: ${problems.slice(0, 4).join(' | ')}${problems.length > 4 ? ' | …' : ''}`,
    );
    ctx.note(`${seen.length} answers to ${operationId} checked`);
  };
}

const noKey = (ctx: RuleContext) => ctx.send({ method: 'POST', url: API_PATH, json: { text: SHORT_TEXT }, label: 'no key' });

const probes: Record<OperationId, (ctx: RuleContext) => Promise<Exchange[]>> = {
  submitTts: async (ctx) =>
    ctx.profile === 'mock'
      ? [await noKey(ctx), await preferExample(ctx, 'submit', 200, 'completed'), await preferExample(ctx, 'submit', 202, 'processing')]
      : [
          await noKey(ctx),
          // Sent when the key's POST bucket has room: the API does not order a 400 against a 429.
          await ctx.send({ method: 'POST', url: API_PATH, key: (await ctx.lease({ fresh: 'post' }))[0], json: { text: '' }, label: 'empty text' }),
        ],
  getTtsJob: async (ctx) =>
    ctx.profile === 'mock'
      ? [await preferExample(ctx, 'get', 200, 'completed'), await preferExample(ctx, 'get', 404, 'not_found')]
      : [
          await ctx.getJob(ctx.activeKey(), randomUUID(), { label: 'unknown job' }),
          await ctx.send({ method: 'GET', url: `${API_PATH}?id=${randomUUID()}`, label: 'no key' }),
        ],
  downloadAudio: async (ctx) => {
    if (ctx.profile === 'mock') {
      return [await ctx.send({ method: 'GET', url: `/v1/audio/${EXAMPLE_JOB_ID}.mp3?expires=1775000000&sig=${'A'.repeat(43)}`, label: 'audio (mock)' })];
    }
    const job = await inlineJob(ctx);
    const url = (job.final.response?.json as { audio_url?: string } | undefined)?.audio_url;
    must(typeof url === 'string', 'the inline job has no audio_url');
    return [await ctx.send({ method: 'GET', url, label: 'audio' })];
  },
  listVoices: async (ctx) => {
    const base = ctx.target.voicesUrl?.replace(/\/+$/, '') ?? (ctx.profile === 'mock' ? ctx.target.baseUrl : undefined);
    if (!base) return [];
    return [await ctx.send({ method: 'GET', url: VOICES_PATH, base, label: 'voice catalog' })];
  },
};

function operationRule(operationId: OperationId, title: string): Rule {
  const body = conforms(operationId, probes[operationId]);
  return {
    id: `openapi.${operationId.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
    title,
    section: 'OpenAPI document',
    basis: { kind: 'document', decision: 'openapi-document' },
    phase: 'final',
    full: body,
    mock: body,
  };
}

export const openApiRules: Rule[] = [
  operationRule('submitTts', 'Every answer to POST /v1/agent-tts matches the document (status, media type, body schema, headers)'),
  operationRule('getTtsJob', 'Every answer to GET /v1/agent-tts matches the document (status, media type, body schema, headers)'),
  operationRule('downloadAudio', 'Every answer to the audio URL matches the document (status, media type, body schema, headers)'),
  operationRule('listVoices', 'Every answer of the voice catalog matches the document (status, media type, body schema, headers)'),
  {
    id: 'openapi.examples',
    title: 'Every named example in the document matches its schema (and a mock serves each one unchanged, its file URLs on the mock)',
    section: 'OpenAPI document, §7',
    basis: { kind: 'document', decision: 'openapi-document' },
    async full(ctx) {
      const problems: string[] = [];
      for (const example of ctx.doc.examples()) {
        const where = `${example.operation.operationId} ${example.status} ${example.name}`;
        for (const e of ctx.doc.validateSchema(`example:${where}`, example.schema ?? {}, example.value)) problems.push(`${where}: ${e}`);
      }
      must(problems.length === 0, problems.slice(0, 5).join('; '));
      ctx.note(`${ctx.doc.examples().length} examples checked`);
    },
    async mock(ctx) {
      // The mock must serve each example unchanged, under its status, when asked by name; the examples'
      // audio and caption URLs point at the mock itself, which serves those files (docs/mock.md).
      const problems: string[] = [];
      // (https://tts.example.com is the examples' origin: EXAMPLE_ORIGIN of src/contract/examples.ts.)
      const onMock = (value: unknown) => JSON.stringify(value).replaceAll('https://tts.example.com/v1/', `${new URL(ctx.target.baseUrl).origin}/v1/`);
      for (const example of ctx.doc.examples().filter((x) => x.operation.template === API_PATH)) {
        const exchange = await preferExample(ctx, example.operation.method === 'POST' ? 'submit' : 'get', Number(example.status), example.name);
        mustAnswer(exchange);
        if (exchange.response?.status !== Number(example.status)) problems.push(`${example.name}: HTTP ${exchange.response?.status}, not ${example.status}`);
        else if (JSON.stringify(exchange.response.json) !== onMock(example.value)) problems.push(`${example.name}: the body differs from the example`);
      }
      must(problems.length === 0, problems.slice(0, 5).join('; '));
    },
  },
];
