import fc from 'fast-check';
import { API_PATH } from '../../src/contract/limits.js';
import { invalidBody, validBody } from './bodies.js';
import type { Json, Offered, RequestSchemas } from './request-schemas.js';

/**
 * Requests drawn from the OpenAPI document: bodies of the submitTts body schema (TtsRequest and the
 * schemas it refers to, bodies.ts), its Idempotency-Key header, the `id` query of getTtsJob and the bearer
 * security scheme, all read from the document at run time. Each case says what a conforming
 * deployment must do with it (`expect`), which the checks of checks.ts hold it to.
 */

type AuthKind = 'key' | 'none' | 'unknown-key' | 'malformed';
export type Expectation =
  /** A valid request with a valid key: must not be refused as INVALID_REQUEST (200/202 for a POST, 404 for an unknown job id). */
  | 'accept'
  /** An invalid request with a valid key: refused with 400 INVALID_REQUEST or TEXT_TOO_LONG. */
  | 'reject'
  /** No key, an unknown key or a malformed Authorization: 401 INVALID_KEY. */
  | 'unauthorized';

export interface GeneratedCase {
  method: 'POST' | 'GET';
  /** Path and query, relative to the service origin. */
  path: string;
  auth: AuthKind;
  /** The Authorization value for unknown-key and malformed (the suite's own made-up values). */
  authorization?: string;
  /** `fresh`: a new Idempotency-Key at send time; `absent`: none; otherwise this literal value. */
  idempotencyKey?: { kind: 'fresh' } | { kind: 'absent' } | { kind: 'literal'; value: string };
  contentType?: string;
  /** The body as sent, verbatim. */
  body?: string;
  expect: Expectation;
  /** What is wrong with it, for a refusal case: read in failure messages. */
  why?: string;
}

/** A value as JSON, with every character outside printable ASCII escaped, so an invisible one shows. */
const visible = (value: string) => JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** An Idempotency-Key: a fresh valid one, none, or a value outside the document's pattern. */
function idempotencyKey(schema: Json): fc.Arbitrary<{ key: GeneratedCase['idempotencyKey']; why?: string }> {
  const pattern = new RegExp(schema.pattern ?? '.*');
  const max = schema.maxLength ?? 255;
  const invalid = fc
    .oneof(
      fc.constant(''),
      fc.integer({ min: max + 1, max: max + 40 }).map((n) => 'k'.repeat(n)),
      fc.string({ unit: fc.constantFrom('a', 'b', '1', 'é', 'ü', '\u00a0'), minLength: 1, maxLength: 8 }),
    )
    .filter((value) => !pattern.test(value));
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant({ key: { kind: 'fresh' as const } }) },
    { weight: 2, arbitrary: fc.constant({ key: { kind: 'absent' as const } }) },
    {
      weight: 2,
      arbitrary: invalid.map((value) => ({
        key: { kind: 'literal' as const, value },
        why: `the Idempotency-Key ${value.length > 20 ? `of ${value.length} characters` : visible(value)} does not match the document's pattern ${schema.pattern}`,
      })),
    },
  );
}

type ContentType = { value: string; why?: string };
const contentType: fc.Arbitrary<ContentType> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<ContentType>({ value: 'application/json' }) },
  { weight: 2, arbitrary: fc.constant<ContentType>({ value: 'application/json; charset=utf-8' }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('text/plain', 'application/x-www-form-urlencoded')
      .map((value): ContentType => ({ value, why: `the Content-Type is ${value}, not application/json` })),
  },
);

const hex = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: n, maxLength: n });

/** An Authorization the bearer scheme refuses: a well-formed unknown key, or a header that is not `Bearer <key>`. */
const badAuth = fc.oneof(
  fc.tuple(hex(8), hex(48)).map(([id, secret]) => ({ auth: 'unknown-key' as const, authorization: `Bearer tts_${id}_${secret}` })),
  fc
    .constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Token tts_00000000', 'Bearer not-a-key')
    .map((authorization) => ({ auth: 'malformed' as const, authorization })),
  fc.constant({ auth: 'none' as const, authorization: undefined }),
);

/** What is wrong with the Authorization of a bad-key case, for failure messages. */
function unauthorizedWhy(auth: { auth: AuthKind; authorization?: string }): string {
  if (auth.auth === 'none') return 'no Authorization header';
  if (auth.auth === 'unknown-key') return 'a well-formed key the deployment never issued';
  return `Authorization ${JSON.stringify(auth.authorization)} is not Bearer <key>`;
}

/** A submission (POST) case. */
function submitCase(schemas: RequestSchemas, offered: Offered): fc.Arbitrary<GeneratedCase> {
  const valid = fc.tuple(validBody(schemas, offered), idempotencyKey(schemas.idempotencyKey), contentType).map(([body, idem, ct]) => {
    const why = idem.why ?? ct.why;
    return {
      method: 'POST' as const,
      path: API_PATH,
      auth: 'key' as const,
      idempotencyKey: idem.key,
      contentType: ct.value,
      body: JSON.stringify(body),
      expect: why ? ('reject' as const) : ('accept' as const),
      why,
    };
  });
  const invalid = fc.tuple(invalidBody(schemas, offered), idempotencyKey(schemas.idempotencyKey), contentType).map(([bad, idem, ct]) => ({
    method: 'POST' as const,
    path: API_PATH,
    auth: 'key' as const,
    idempotencyKey: idem.key,
    contentType: ct.value,
    body: bad.body,
    expect: 'reject' as const,
    why: [bad.why, idem.why, ct.why].filter(Boolean).join('; '),
  }));
  const unauthorized = fc
    .tuple(
      badAuth,
      fc.oneof(
        validBody(schemas, offered).map((b) => JSON.stringify(b)),
        invalidBody(schemas, offered).map((b) => b.body),
      ),
    )
    .map(([auth, body]) => ({
      method: 'POST' as const,
      path: API_PATH,
      auth: auth.auth,
      authorization: auth.authorization,
      idempotencyKey: { kind: 'fresh' as const },
      contentType: 'application/json',
      body,
      expect: 'unauthorized' as const,
      why: unauthorizedWhy(auth),
    }));
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 4, arbitrary: invalid }, { weight: 2, arbitrary: unauthorized });
}

/** A poll (GET) case: an id of the document's form (unknown to the deployment), a malformed one, or none. */
function pollCase(schemas: RequestSchemas): fc.Arbitrary<GeneratedCase> {
  const max = schemas.jobId.maxLength ?? 36;
  const wellFormed = fc.uuid().map((id) => ({ query: `?id=${id}`, valid: true, why: undefined as string | undefined }));
  const malformed = fc
    .oneof(
      fc.constant({ query: '', why: 'the id query is missing' }),
      fc.constant({ query: '?id=', why: 'the id is empty' }),
      fc
        .string({ unit: fc.constantFrom(...'0123456789abcdefxyz-'), minLength: 1, maxLength: max + 4 })
        .filter((s) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s))
        .map((s) => ({ query: `?id=${s}`, why: `the id ${JSON.stringify(s)} is not a UUID` })),
    )
    .map((m) => ({ ...m, valid: false }));
  const keyed = fc.oneof({ weight: 2, arbitrary: wellFormed }, { weight: 2, arbitrary: malformed }).map((q) => ({
    method: 'GET' as const,
    path: `${API_PATH}${q.query}`,
    auth: 'key' as const,
    expect: q.valid ? ('accept' as const) : ('reject' as const),
    why: q.why,
  }));
  const unauthorized = fc.tuple(badAuth, wellFormed).map(([auth, q]) => ({
    method: 'GET' as const,
    path: `${API_PATH}${q.query}`,
    auth: auth.auth,
    authorization: auth.authorization,
    expect: 'unauthorized' as const,
    why: unauthorizedWhy(auth),
  }));
  return fc.oneof({ weight: 3, arbitrary: keyed }, { weight: 1, arbitrary: unauthorized });
}

/** Every single-request case: submissions and polls. */
export function anyCase(schemas: RequestSchemas, offered: Offered): fc.Arbitrary<GeneratedCase> {
  return fc.oneof({ weight: 3, arbitrary: submitCase(schemas, offered) }, { weight: 1, arbitrary: pollCase(schemas) });
}
