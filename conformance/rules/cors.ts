import { randomUUID } from 'node:crypto';
import { API_PATH } from '../../src/contract/limits.js';
import { must, mustAnswer, mustHeader, skip } from '../assertions.js';
import { type Exchange, describe, header } from '../exchange.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';

const MOCK = 'Prism answers CORS for every origin itself';
/** Headers a browser client must be able to read (listed in the OpenAPI document's description). */
const EXPOSED = ['retry-after', 'ratelimit', 'ratelimit-policy', 'x-request-id', 'idempotent-replayed'];
const REQUEST_HEADERS = ['authorization', 'content-type', 'idempotency-key'];

function corsFixture(ctx: RuleContext) {
  const cors = ctx.fixtures.cors;
  if (!cors) skip('fixture', 'the fixtures file has no cors section (allowed and denied origins)');
  return cors;
}

function preflight(ctx: RuleContext, origin: string, method: 'GET' | 'POST'): Promise<Exchange> {
  return ctx.send({
    method: 'OPTIONS',
    url: API_PATH,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': REQUEST_HEADERS.join(', ') },
    label: `preflight ${method} from ${origin}`,
  });
}

function simple(ctx: RuleContext, origin: string): Promise<Exchange> {
  return ctx.getJob(ctx.activeKey(), randomUUID(), { headers: { origin }, label: `GET from ${origin}` });
}

const list = (value: string | undefined) =>
  (value ?? '')
    .toLowerCase()
    .split(/\s*,\s*/)
    .filter(Boolean);

export const corsRules: Rule[] = [
  {
    id: 'cors.preflight-allowed',
    title: 'A preflight from an allowed origin (first-party or preview) is granted: the origin echoed, GET/POST and the API headers allowed',
    section: '§4.8',
    basis: { kind: 'api' },
    mockSkip: MOCK,
    async full(ctx) {
      for (const origin of corsFixture(ctx).allowed_origins) {
        for (const method of ['POST', 'GET'] as const) {
          const exchange = await preflight(ctx, origin, method);
          const { status } = mustAnswer(exchange);
          must(status === 200 || status === 204, `${describe(exchange)}: a preflight answered ${status}`);
          must(
            header(exchange, 'access-control-allow-origin') === origin,
            `${describe(exchange)}: Access-Control-Allow-Origin is ${JSON.stringify(header(exchange, 'access-control-allow-origin'))}, not ${origin}`,
          );
          const methods = list(mustHeader(exchange, 'access-control-allow-methods'));
          must(methods.includes(method.toLowerCase()), `${describe(exchange)}: Access-Control-Allow-Methods "${methods.join(', ')}" lacks ${method}`);
          const allowed = list(mustHeader(exchange, 'access-control-allow-headers'));
          const missing = REQUEST_HEADERS.filter((h) => !allowed.includes(h));
          // A "*" would not cover Authorization (Fetch standard), so the names must be listed.
          must(missing.length === 0, `${describe(exchange)}: Access-Control-Allow-Headers lacks ${missing.join(', ')}`);
        }
      }
    },
  },
  {
    id: 'cors.simple-allowed',
    title: 'A request from an allowed origin gets its origin echoed and can read Retry-After, RateLimit* and X-Request-Id',
    section: '§4.8 (exposed headers decided in the OpenAPI document)',
    basis: { kind: 'document', decision: 'cors' },
    mockSkip: MOCK,
    async full(ctx) {
      for (const origin of corsFixture(ctx).allowed_origins) {
        const exchange = await simple(ctx, origin);
        mustAnswer(exchange);
        must(
          header(exchange, 'access-control-allow-origin') === origin,
          `${describe(exchange)}: Access-Control-Allow-Origin is ${JSON.stringify(header(exchange, 'access-control-allow-origin'))}, not ${origin}`,
        );
        const vary = list(header(exchange, 'vary'));
        must(vary.includes('origin') || vary.includes('*'), `${describe(exchange)}: the answer depends on Origin but Vary does not say so`);
        const exposed = list(mustHeader(exchange, 'access-control-expose-headers'));
        const missing = EXPOSED.filter((h) => !exposed.includes(h));
        must(missing.length === 0, `${describe(exchange)}: Access-Control-Expose-Headers lacks ${missing.join(', ')}`);
      }
    },
  },
  {
    id: 'cors.denied-origin',
    title: 'Preflights and requests from any other origin get no CORS grant',
    section: '§4.8',
    basis: { kind: 'api' },
    mockSkip: MOCK,
    async full(ctx) {
      const origin = corsFixture(ctx).denied_origin;
      const exchanges = [await preflight(ctx, origin, 'POST'), await simple(ctx, origin)];
      for (const exchange of exchanges) {
        mustAnswer(exchange);
        const grant = header(exchange, 'access-control-allow-origin');
        must(grant === undefined, `${describe(exchange)}: Access-Control-Allow-Origin "${grant}" for a denied origin`);
      }
    },
  },
];
