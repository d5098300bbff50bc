import { randomUUID } from 'node:crypto';
import { API_PATH } from '../../src/contract/limits.js';
import { must, mustError, mustHeader, mustStatus } from '../assertions.js';
import { describe } from '../exchange.js';
import { MALFORMED_JOB_ID_URLS } from '../invalid-requests.js';
import { preferExample } from '../mock-requests.js';
import type { Rule } from '../rule.js';
import { completedBody, inlineJob } from '../scenarios.js';

const MOCK_ROUTES = 'Prism answers unknown routes and methods with its own problem documents';

export const notFoundRules: Rule[] = [
  {
    id: 'not-found.unknown-id',
    title: 'GET of a job id that does not exist gets 404 NOT_FOUND',
    section: '§4.2, §7',
    basis: { kind: 'api' },
    covers: { codes: ['NOT_FOUND'], statuses: [404] },
    async full(ctx) {
      const key = ctx.activeKey();
      mustError(await ctx.getJob(key, randomUUID(), { label: 'unknown job id' }), 'NOT_FOUND');
    },
    async mock(ctx) {
      mustError(await preferExample(ctx, 'get', 404, 'not_found'), 'NOT_FOUND');
    },
  },
  {
    id: 'not-found.other-account',
    title: 'GET of another account’s job gets the same 404 NOT_FOUND body as an unknown id',
    section: '§2.2 job_id, §4.2, §7',
    basis: { kind: 'api' },
    covers: { codes: ['NOT_FOUND'], statuses: [404] },
    mockSkip: 'a mock has no accounts',
    async full(ctx) {
      const job = await inlineJob(ctx);
      const owned = completedBody(job);
      const stranger = ctx.fixtures.keys.active.find((k) => k !== job.key);
      must(stranger, 'needs two active keys of distinct accounts');
      const theirs = await ctx.getJob(stranger, owned.job_id, { label: 'another account’s job' });
      const unknown = await ctx.getJob(stranger, randomUUID(), { label: 'an unknown job, for comparison' });
      const a = mustError(theirs, 'NOT_FOUND');
      const b = mustError(unknown, 'NOT_FOUND');
      // The two must be indistinguishable, or the answer tells which ids exist.
      must(
        JSON.stringify(a.error) === JSON.stringify(b.error),
        `${describe(theirs)}: error ${JSON.stringify(a.error)} differs from an unknown id's ${JSON.stringify(b.error)}`,
      );
    },
  },
  {
    id: 'get.malformed-id',
    title: 'GET without id, or with an id that is not a UUID, gets 400 INVALID_REQUEST',
    section: '§4.2 (decided in the OpenAPI document)',
    basis: { kind: 'document', decision: 'polling' },
    covers: { codes: ['INVALID_REQUEST'], statuses: [400] },
    mockSkip: 'Prism answers invalid parameters with the first 400 example, whatever they are',
    async full(ctx) {
      const key = ctx.activeKey();
      for (const url of MALFORMED_JOB_ID_URLS) {
        mustError(await ctx.send({ method: 'GET', url, key, label: url.length > 40 ? `${url.slice(0, 40)}…` : url }), 'INVALID_REQUEST');
      }
    },
  },
  {
    id: 'routes.unknown-path',
    title: 'An unknown path gets 404 NOT_FOUND with the error body',
    section: 'OpenAPI document: unknown routes',
    basis: { kind: 'document', decision: 'unknown-routes-and-methods' },
    mockSkip: MOCK_ROUTES,
    async full(ctx) {
      for (const url of ['/v1/no-such-route', '/v2/agent-tts', '/v1/agent-tts/extra']) {
        mustError(await ctx.send({ method: 'GET', url, label: `GET ${url}` }), 'NOT_FOUND');
      }
    },
  },
  {
    id: 'routes.wrong-method',
    title: 'Another method on /v1/agent-tts gets 405 with Allow: GET, POST and the error body',
    section: 'OpenAPI document: wrong methods',
    basis: { kind: 'document', decision: 'unknown-routes-and-methods' },
    covers: { statuses: [405] },
    mockSkip: MOCK_ROUTES,
    async full(ctx) {
      const key = ctx.activeKey();
      for (const method of ['PUT', 'DELETE', 'PATCH']) {
        const exchange = await ctx.send({ method, url: API_PATH, key, json: {}, label: `${method} ${API_PATH}` });
        mustStatus(exchange, 405);
        const allow = mustHeader(exchange, 'allow')
          .toUpperCase()
          .split(/\s*,\s*/);
        must(allow.includes('GET') && allow.includes('POST'), `${describe(exchange)}: Allow is "${allow.join(', ')}"`);
        const body = exchange.response?.json as { success?: unknown; error?: { code?: unknown } } | undefined;
        must(body?.success === false && body.error?.code === 'INVALID_REQUEST', `${describe(exchange)}: not the error body with INVALID_REQUEST`);
      }
    },
  },
];
