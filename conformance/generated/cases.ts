import fc from 'fast-check';
import { API_PATH } from '../../src/contract/limits.js';
import type { OpenApiDocument } from '../openapi-document.js';

/**
 * Requests drawn from the OpenAPI document: the request body schema of submitTts (TtsRequest and the
 * schemas it refers to), its Idempotency-Key header, the `id` query of getTtsJob and the bearer
 * security scheme, all read from the document at run time. Each case says what a conforming
 * deployment must do with it (`expect`), which the checks of checks.ts hold it to.
 */

// biome-ignore lint/suspicious/noExplicitAny: values generated from the document's schemas and the answers to them are JSON of any shape
type Json = any;

/** Longest text a generated case sends: a few characters, so a run spends seconds of audio, not minutes. */
const MAX_TEXT_CHARS = 8;

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

/** What the generator needs of the deployment: the voices it offers (its catalog, or the curated ones). */
export interface Offered {
  voices: readonly string[];
}

/** The parts of the document the generator reads, resolved. */
export interface RequestSchemas {
  body: Json;
  properties: Record<string, Json>;
  required: string[];
  idempotencyKey: Json;
  jobId: Json;
}

export function requestSchemas(doc: OpenApiDocument): RequestSchemas {
  const resolve = (schema: Json): Json => {
    if (schema && typeof schema.$ref === 'string') {
      const name = schema.$ref.replace('#/components/schemas/', '');
      return resolve(doc.document.components.schemas[name]);
    }
    return schema;
  };
  const submit = doc.operation('submitTts').definition;
  const body = resolve(submit.requestBody.content['application/json'].schema);
  const properties = Object.fromEntries(Object.entries<Json>(body.properties ?? {}).map(([k, v]) => [k, resolve(v)]));
  const header = (submit.parameters ?? []).find((p: Json) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  const query = (doc.operation('getTtsJob').definition.parameters ?? []).find((p: Json) => p.in === 'query' && p.name === 'id');
  if (!properties.text || !header || !query)
    throw new Error('the OpenAPI document lacks the submitTts body, its Idempotency-Key header or the id query of getTtsJob');
  return { body, properties, required: body.required ?? [], idempotencyKey: resolve(header.schema), jobId: resolve(query.schema) };
}

const TEXT_UNITS = [...'abcdefghijklmnopqrstuvwxyz', 'A', 'Z', '0', '7', ' ', '.', ',', '?', '!', "'", 'é', 'ß', 'ñ', '你', 'ж', '😀'];

/** A valid value of one property, within the document's bounds (text kept to a few characters). */
function validValue(name: string, schema: Json, offered: Offered): fc.Arbitrary<unknown> {
  if (name === 'voice') {
    // The document: an id of the right form that the deployment's catalog does not list is refused.
    const form = new RegExp(schema.pattern ?? '.*');
    return fc.constantFrom(...offered.voices.filter((v) => form.test(v)));
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (schema.type === 'number' || schema.type === 'integer') {
    const min = schema.minimum ?? 0;
    const max = schema.maximum ?? min + 10;
    // Hundredths, as a person writes a speed; the bounds themselves come often.
    return fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom(min, max) },
      { weight: 4, arbitrary: fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((n) => n / 100) },
    );
  }
  if (schema.type === 'string') {
    const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
    const min = Math.max(1, schema.minLength ?? 0);
    return fc
      .string({ unit: fc.constantFrom(...TEXT_UNITS), minLength: min, maxLength: Math.max(min, Math.min(MAX_TEXT_CHARS, schema.maxLength ?? MAX_TEXT_CHARS)) })
      .filter((s) => !pattern || pattern.test(s));
  }
  return fc.constant(null);
}

/** Values that break one constraint of the property's schema, each with what is wrong. */
function invalidValues(name: string, schema: Json): fc.Arbitrary<{ value: unknown; why: string }> {
  const out: fc.Arbitrary<{ value: unknown; why: string }>[] = [];
  const wrongType = schema.type === 'string' ? [42, true, null, ['x'], { x: 1 }] : ['fast', true, null, [1], { x: 1 }];
  out.push(
    fc.constantFrom(...wrongType).map((value) => ({
      value,
      why: `${name} is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}, not a ${schema.type ?? 'string'}`,
    })),
  );
  if (schema.type === 'number' || schema.type === 'integer') {
    if (schema.minimum !== undefined) {
      out.push(
        fc
          .integer({ min: 1, max: 100 })
          .map((n) => ({ value: Math.round((schema.minimum - n / 100) * 100) / 100, why: `${name} is below the minimum ${schema.minimum}` })),
      );
    }
    if (schema.maximum !== undefined) {
      out.push(
        fc
          .integer({ min: 1, max: 1000 })
          .map((n) => ({ value: Math.round((schema.maximum + n / 100) * 100) / 100, why: `${name} is above the maximum ${schema.maximum}` })),
      );
    }
  }
  if (Array.isArray(schema.enum)) {
    out.push(
      fc
        .string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_'), minLength: 1, maxLength: 6 })
        .filter((s) => !schema.enum.includes(s))
        .map((value) => ({ value, why: `${name} ${JSON.stringify(value)} is not one of the document's ${schema.enum.length} values` })),
    );
  }
  if (schema.type === 'string' && schema.pattern) {
    const pattern = new RegExp(schema.pattern, 'u');
    const units = fc.constantFrom(...'abcfmstz_-. !AZ19é'.split(''), '\t', '\n');
    out.push(
      fc
        .string({ unit: units, minLength: 0, maxLength: 12 })
        .filter((s) => !pattern.test(s) || (schema.minLength !== undefined && s.length < schema.minLength))
        .map((value) => ({ value, why: `${name} ${JSON.stringify(value)} does not match the document's pattern ${schema.pattern}` })),
    );
  }
  if (schema.type === 'string' && schema.minLength) out.push(fc.constant({ value: '', why: `${name} is empty (minLength ${schema.minLength})` }));
  return fc.oneof(...out);
}

/** A body the document allows: the required fields, some optional ones, maybe a field it does not know (ignored). */
export function validBody(schemas: RequestSchemas, offered: Offered): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.entries(schemas.properties).filter(([name]) => name !== 'voice' || offered.voices.length > 0);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, schema] of fields) record[name] = validValue(name, schema, offered);
  const required = schemas.required.filter((r) => r in record);
  return fc
    .tuple(fc.record(record, { requiredKeys: required }), fc.option(fc.record({ client_note: fc.string({ maxLength: 4 }) }), { nil: undefined }))
    .map(([body, extra]) => ({ ...body, ...(extra ?? {}) }));
}

/** A body the document refuses: one field broken, a required one missing, or not a JSON object at all. */
export function invalidBody(schemas: RequestSchemas, offered: Offered): fc.Arbitrary<{ body: string; why: string }> {
  const fieldBroken = fc
    .tuple(validBody(schemas, offered), fc.constantFrom(...Object.keys(schemas.properties)))
    .chain(([body, name]) =>
      invalidValues(name, schemas.properties[name]).map(({ value, why }) => ({ body: JSON.stringify({ ...body, [name]: value }), why })),
    );
  const missing = fc.tuple(validBody(schemas, offered), fc.constantFrom(...schemas.required)).map(([body, name]) => {
    const rest = { ...body };
    delete rest[name];
    return { body: JSON.stringify(rest), why: `the required field ${name} is missing` };
  });
  const notObject = fc.constantFrom(
    { body: '[]', why: 'the body is a JSON array, not an object' },
    { body: 'null', why: 'the body is JSON null' },
    { body: '"hello"', why: 'the body is a JSON string' },
    { body: '{"text": "a"', why: 'the body is malformed JSON' },
  );
  return fc.oneof({ weight: 6, arbitrary: fieldBroken }, { weight: 2, arbitrary: missing }, { weight: 1, arbitrary: notObject });
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
      why:
        auth.auth === 'none'
          ? 'no Authorization header'
          : auth.auth === 'unknown-key'
            ? 'a well-formed key the deployment never issued'
            : `Authorization ${JSON.stringify(auth.authorization)} is not Bearer <key>`,
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
    why:
      auth.auth === 'none'
        ? 'no Authorization header'
        : auth.auth === 'unknown-key'
          ? 'a well-formed key the deployment never issued'
          : `Authorization ${JSON.stringify(auth.authorization)} is not Bearer <key>`,
  }));
  return fc.oneof({ weight: 3, arbitrary: keyed }, { weight: 1, arbitrary: unauthorized });
}

/** Every single-request case: submissions and polls. */
export function anyCase(schemas: RequestSchemas, offered: Offered): fc.Arbitrary<GeneratedCase> {
  return fc.oneof({ weight: 3, arbitrary: submitCase(schemas, offered) }, { weight: 1, arbitrary: pollCase(schemas) });
}
