import { randomBytes } from 'node:crypto';
import { API_PATH } from '../../src/contract/limits.js';
import { must, mustError, mustHeader } from '../assertions.js';
import type { Exchange } from '../exchange.js';
import { preferExample } from '../mock-requests.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { SHORT_TEXT } from '../scenarios.js';

const RANDOM_JOB = '00000000-0000-4000-8000-000000000000';

/** A POST and a GET carrying the given Authorization header (or none). */
async function bothOperations(ctx: RuleContext, authorization: string | undefined, label: string): Promise<Exchange[]> {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  return Promise.all([
    ctx.send({ method: 'POST', url: API_PATH, json: { text: SHORT_TEXT }, headers, label: `POST, ${label}` }),
    ctx.send({ method: 'GET', url: `${API_PATH}?id=${RANDOM_JOB}`, headers, label: `GET, ${label}` }),
  ]);
}

function mustInvalidKey(exchange: Exchange): void {
  mustError(exchange, 'INVALID_KEY');
  const challenge = mustHeader(exchange, 'www-authenticate');
  must(/^bearer\b/i.test(challenge.trim()), `WWW-Authenticate is "${challenge}", not the Bearer scheme`);
}

const wellFormedUnknownKey = () => `tts_${randomBytes(4).toString('hex')}_${randomBytes(24).toString('hex')}`;

export const authRules: Rule[] = [
  {
    id: 'auth.missing-header',
    title: 'A request without Authorization is refused with 401 INVALID_KEY and WWW-Authenticate: Bearer',
    section: '§5.1, §5.6 (decided in the OpenAPI document)',
    basis: { kind: 'document', decision: 'authentication' },
    covers: { codes: ['INVALID_KEY'], statuses: [401] },
    async full(ctx) {
      for (const exchange of await bothOperations(ctx, undefined, 'no Authorization')) mustInvalidKey(exchange);
    },
    async mock(ctx) {
      for (const exchange of await bothOperations(ctx, undefined, 'no Authorization')) mustInvalidKey(exchange);
    },
  },
  {
    id: 'auth.malformed-header',
    title: 'An Authorization header that is not "Bearer <key>" is refused with 401 INVALID_KEY',
    section: '§5.1, §5.3',
    basis: { kind: 'api' },
    covers: { codes: ['INVALID_KEY'], statuses: [401] },
    mockSkip: 'a mock accepts any Bearer credential',
    async full(ctx) {
      const key = ctx.activeKey();
      // The real key goes only where the report's redaction can see it: never base64-encoded.
      const cases = [
        `Basic ${Buffer.from('user:password').toString('base64')}`,
        `Token ${key}`,
        'Bearer',
        'Bearer not-a-key',
        `Bearer ${key.slice(0, -4)}`,
        `Bearer ${key}x`,
      ];
      for (const authorization of cases) {
        for (const exchange of await bothOperations(ctx, authorization, `Authorization "${authorization.slice(0, 18)}…"`)) mustInvalidKey(exchange);
      }
    },
  },
  {
    id: 'auth.unknown-key',
    title: 'A well-formed key that the service never issued is refused with 401 INVALID_KEY',
    section: '§5.2, §5.3',
    basis: { kind: 'api' },
    covers: { codes: ['INVALID_KEY'], statuses: [401] },
    mockSkip: 'a mock accepts any Bearer credential',
    async full(ctx) {
      for (const exchange of await bothOperations(ctx, `Bearer ${wellFormedUnknownKey()}`, 'unknown key')) mustInvalidKey(exchange);
      // The right public id with a wrong secret: the secret is what is checked.
      const active = ctx.activeKey();
      const forged = `${active.slice(0, 13)}${randomBytes(24).toString('hex')}`;
      for (const exchange of await bothOperations(ctx, `Bearer ${forged}`, 'known public id, wrong secret')) mustInvalidKey(exchange);
    },
  },
  {
    id: 'auth.revoked-key',
    title: 'A revoked key is refused with 401 INVALID_KEY',
    section: '§3.2, §5.3',
    basis: { kind: 'api' },
    covers: { codes: ['INVALID_KEY'], statuses: [401] },
    mockSkip: 'a mock holds no key states',
    async full(ctx) {
      const key = ctx.fixtureKey('revoked');
      for (const exchange of await bothOperations(ctx, `Bearer ${key}`, 'revoked key')) mustInvalidKey(exchange);
    },
  },
  {
    id: 'auth.inactive-subscription',
    title: 'A valid key of an account whose subscription is not active gets 403 INACTIVE_SUBSCRIPTION',
    section: '§5.4, §7',
    basis: { kind: 'api' },
    covers: { codes: ['INACTIVE_SUBSCRIPTION'], statuses: [403] },
    async full(ctx) {
      const key = ctx.fixtureKey('inactive_subscription');
      for (const exchange of await bothOperations(ctx, `Bearer ${key}`, 'inactive subscription')) mustError(exchange, 'INACTIVE_SUBSCRIPTION');
    },
    async mock(ctx) {
      mustError(await preferExample(ctx, 'submit', 403, 'inactive_subscription'), 'INACTIVE_SUBSCRIPTION');
      mustError(await preferExample(ctx, 'get', 403, 'inactive_subscription'), 'INACTIVE_SUBSCRIPTION');
    },
  },
  {
    id: 'auth.no-api-access',
    title: 'A valid key of a plan without API access gets 403 NO_API_ACCESS',
    section: '§5.5, §7',
    basis: { kind: 'api' },
    covers: { codes: ['NO_API_ACCESS'], statuses: [403] },
    async full(ctx) {
      const key = ctx.fixtureKey('no_api_access');
      for (const exchange of await bothOperations(ctx, `Bearer ${key}`, 'plan without API access')) mustError(exchange, 'NO_API_ACCESS');
    },
    async mock(ctx) {
      mustError(await preferExample(ctx, 'submit', 403, 'no_api_access'), 'NO_API_ACCESS');
      mustError(await preferExample(ctx, 'get', 403, 'no_api_access'), 'NO_API_ACCESS');
    },
  },
  {
    id: 'auth.checked-before-body',
    title: 'Authentication is checked before the body: a bad key with an invalid body gets 401, not 400',
    section: 'OpenAPI submitTts: order of checks',
    basis: { kind: 'document', decision: 'order-of-checks' },
    mockSkip: 'a mock validates the request before it looks at credentials',
    async full(ctx) {
      const exchange = await ctx.send({
        method: 'POST',
        url: API_PATH,
        key: wellFormedUnknownKey(),
        json: { speed: 'fast' },
        label: 'unknown key and invalid body',
      });
      mustInvalidKey(exchange);
    },
  },
];
