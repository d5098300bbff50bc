/**
 * Contract tests on the committed, generated document openapi/openapi.json: what clients, the mock and
 * the conformance suite read. Expected values come from the API (transcribed in
 * __fixtures__/spec-tables.ts), never from the contract modules, so these tests can fail.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE } from './errors.js';
import { UsageLimitDetails } from './envelope-schemas.js';
import {
  collectExamples,
  collectRefs,
  createAjv,
  createValidator,
  deref,
  getPointer,
  isObject,
  loadDocument,
  operations,
  type Json,
  type JsonObject,
} from './__fixtures__/openapi-helpers.js';
import { SPEC_API_VERSION, SPEC_BODIES, SPEC_ERROR_TABLE } from './__fixtures__/spec-tables.js';

const document = loadDocument();
const validator = createValidator(document);
const schemas = (document.components as JsonObject).schemas as JsonObject;
const JOBS = '/v1/agent-tts';

function operation(method: string, path: string): JsonObject {
  const found = operations(document).find((o) => o.method === method && o.path === path);
  if (!found) throw new Error(`the document has no ${method.toUpperCase()} ${path}`);
  return found.operation;
}

/** Named examples of a response's application/json content: name → value. */
function namedExamples(op: JsonObject, status: string): Record<string, JsonObject> {
  const response = (op.responses as JsonObject)[status];
  if (response === undefined) return {};
  const media = (deref(document, response).content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined;
  const examples = (media?.examples ?? {}) as JsonObject;
  return Object.fromEntries(Object.entries(examples).map(([name, ex]) => [name, deref(document, ex).value as JsonObject]));
}

const errorCodeOf = (value: unknown): string | undefined =>
  isObject(value) && isObject(value.error) && typeof value.error.code === 'string' ? value.error.code : undefined;

describe('the document is OpenAPI 3.1', () => {
  it('declares openapi 3.1.x and the version label of docs/api-rules.md#meta-and-versioning', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect((document.info as JsonObject).version).toBe(SPEC_API_VERSION);
  });

  it('resolves every $ref locally', () => {
    const refs = collectRefs(document);
    expect(refs.length).toBeGreaterThan(0);
    const dangling = refs.filter(({ ref }) => !ref.startsWith('#/') || getPointer(document, ref) === undefined);
    expect(dangling, 'dangling or non-local $ref').toEqual([]);
  });

  it('is structurally sound: unique operationIds, responses, declared path parameters, known security schemes', () => {
    const ops = operations(document);
    const ids = ops.map((o) => o.operation.operationId);
    expect(new Set(ids).size, 'operationIds must be unique').toBe(ids.length);
    const schemes = Object.keys(((document.components as JsonObject).securitySchemes ?? {}) as JsonObject);
    for (const { path, method, operation: op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(Object.keys(op.responses as JsonObject).length, `${where} has responses`).toBeGreaterThan(0);
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = ((op.parameters ?? []) as Json[]).map((p) => deref(document, p)).filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name).sort(), `${where} path parameters`).toEqual([...templated].sort());
      for (const p of declared) expect(p.required, `${where} path parameter ${p.name} is required`).toBe(true);
      for (const requirement of (op.security ?? document.security ?? []) as JsonObject[]) {
        for (const name of Object.keys(requirement)) expect(schemes, `${where} security scheme`).toContain(name);
      }
    }
  });

  // The official OAS 3.1 JSON Schema ships with Spectral (a pinned dev dependency), so it is available
  // offline. It checks the document's structure; each Schema Object is checked against the 3.1 dialect.
  const require = createRequire(import.meta.url);
  let oasSchemaDir: string | undefined;
  try {
    const rulesets = require.resolve('@stoplight/spectral-rulesets/package.json');
    const dir = rulesets.replace(/package\.json$/, 'dist/oas/schemas/');
    if (existsSync(`${dir}oas/v3.1/index.json`)) oasSchemaDir = dir;
  } catch {
    oasSchemaDir = undefined;
  }
  it.skipIf(!oasSchemaDir)('validates against the official OpenAPI 3.1 schema (from @stoplight/spectral-rulesets)', () => {
    const load = (name: string) => JSON.parse(readFileSync(`${oasSchemaDir}${name}`, 'utf8')) as object;
    // Not strict: that schema uses keywords of its own (ajv-errors' errorMessage), which are no concern here.
    const ajv = createAjv({ strict: false });
    // A format of the OAS schema for media type keys (RFC 9110 media ranges), e.g. application/json, text/*.
    ajv.addFormat('media-range', /^(?:\*|[!#$%&'*+.^_`|~0-9A-Za-z-]+)\/(?:\*|[!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:\s*;.*)?$/);
    // Spectral's copy of the 2020-12 meta-schema (its dialect refers to it by its own $id).
    ajv.addSchema(load('json-schema/draft-2020-12/validation.json'));
    ajv.addSchema(load('json-schema/draft-2020-12/index.json'));
    ajv.addSchema(load('oas/v3.1/meta.schema.json'));
    ajv.addSchema(load('oas/v3.1/dialect.schema.json'));
    const validate = ajv.compile(load('oas/v3.1/index.json'));
    const valid = validate(document);
    expect(valid ? [] : validate.errors?.map((e) => `${e.instancePath} ${e.message}`)).toEqual([]);
    // And it can fail: a response without its required description is refused.
    const broken = structuredClone(document);
    const postResponses = (((broken.paths as JsonObject)[JOBS] as JsonObject).post as JsonObject).responses as JsonObject;
    postResponses['200'] = { content: {} };
    expect(validate(broken)).toBe(false);
  });
});

describe('errors (docs/api-rules.md#errors)', () => {
  it('ERROR_TABLE is the API table exactly: codes in order, HTTP status, condition and action', () => {
    const table = Object.entries(ERROR_TABLE).map(([code, row]) => ({ code, ...row }));
    expect(table).toEqual(SPEC_ERROR_TABLE.map((row) => ({ ...row })));
  });

  it('the ErrorCode enum of the document lists every code of the table, and only those', () => {
    expect((schemas.ErrorCode as JsonObject).enum).toEqual(SPEC_ERROR_TABLE.map((row) => row.code));
    // Both bodies that carry a code use the enum.
    expect(deref(document, (deref(document, schemas.ErrorObject).properties as JsonObject).code)).toEqual(schemas.ErrorCode);
    expect(deref(document, (deref(document, schemas.JobError).properties as JsonObject).code)).toEqual(schemas.ErrorCode);
  });

  // Which operations can answer each code: auth, rate limit, invalid request and server errors on both
  // job endpoints (§4, §5, §8); TEXT_TOO_LONG, USAGE_LIMIT_EXCEEDED and TTS_PROVIDER_ERROR on submit
  // (§4.1, §8); NOT_FOUND and FILE_EXPIRED on the status check (§4.2, §3.1).
  const OPERATIONS_BY_CODE: Record<string, ('post' | 'get')[]> = {
    INVALID_KEY: ['post', 'get'],
    INACTIVE_SUBSCRIPTION: ['post', 'get'],
    NO_API_ACCESS: ['post', 'get'],
    RATE_LIMITED: ['post', 'get'],
    USAGE_LIMIT_EXCEEDED: ['post'],
    INVALID_REQUEST: ['post', 'get'],
    TEXT_TOO_LONG: ['post'],
    NOT_FOUND: ['get'],
    FILE_EXPIRED: ['get'],
    TTS_PROVIDER_ERROR: ['post'],
    INTERNAL_ERROR: ['post', 'get'],
  };

  it('the placement table above covers every code of the API', () => {
    expect(Object.keys(OPERATIONS_BY_CODE).sort()).toEqual(SPEC_ERROR_TABLE.map((row) => row.code).sort());
  });

  for (const { code, status } of SPEC_ERROR_TABLE) {
    for (const method of OPERATIONS_BY_CODE[code] ?? []) {
      expect(OPERATIONS_BY_CODE[code], code).toBeDefined();
      it(`${code} is a named example under ${method.toUpperCase()} ${JOBS} response ${status}`, () => {
        const examples = namedExamples(operation(method, JOBS), String(status));
        const carrying = Object.entries(examples).filter(([, value]) => errorCodeOf(value) === code);
        expect(
          carrying.map(([name]) => name),
          `examples of ${method.toUpperCase()} ${status}`,
        ).not.toEqual([]);
        if (code === 'FILE_EXPIRED') {
          // Legacy: the 200 body of a GET on an expired job carries the code (docs/api-rules.md#job-statuses).
          for (const [, value] of carrying) expect(value).toMatchObject({ success: false, status: 'expired' });
        } else {
          // Error responses name each example after its code (the mock selects them by name).
          expect(carrying.map(([name]) => name)).toContain(code.toLowerCase());
          for (const [, value] of carrying) expect(value.success).toBe(false);
        }
      });
    }
  }

  it('no example puts an error code under another HTTP status than the table, beyond the decided cases', () => {
    const tableStatus = new Map<string, number>(SPEC_ERROR_TABLE.map((row) => [row.code, row.status]));
    // Decisions of the design, each with its reason:
    const allowed = new Set([
      // A failed job is a job status: GET answers 200 with status "failed" and the job's error code.
      `GET ${JOBS} 200 TTS_PROVIDER_ERROR`,
      `GET ${JOBS} 200 INTERNAL_ERROR`,
      // The signed audio URL is the capability; a tampered or expired one is refused with 403.
      'GET /v1/audio/{job_id}.mp3 403 INVALID_KEY',
      // An unsatisfiable Range is 416 (RFC 9110), with the error body.
      'GET /v1/audio/{job_id}.mp3 416 INVALID_REQUEST',
      // An object store that cannot be reached at the moment is 503 with Retry-After (docs/api-rules.md#audio-urls).
      'GET /v1/audio/{job_id}.mp3 503 INTERNAL_ERROR',
      // The captions are served like the audio, behind a signed URL, from the same store.
      'GET /v1/captions/{job_id}.{format} 503 INTERNAL_ERROR',
      // The stream of a job's audio is served like the audio, behind a signed URL, from the same store.
      'GET /v1/stream/{job_id}.mp3 503 INTERNAL_ERROR',
    ]);
    const unexpected: string[] = [];
    for (const { path, method, operation: op } of operations(document)) {
      for (const status of Object.keys(op.responses as JsonObject)) {
        for (const [name, value] of Object.entries(namedExamples(op, status))) {
          const code = errorCodeOf(value);
          if (code === undefined) continue;
          const key = `${method.toUpperCase()} ${path} ${status} ${code}`;
          if (tableStatus.get(code) !== Number(status) && !allowed.has(key)) unexpected.push(`${key} (example ${name})`);
        }
      }
    }
    expect(unexpected).toEqual([]);
  });

  it('every error response of the job endpoints uses the Error body', () => {
    for (const method of ['post', 'get']) {
      const op = operation(method, JOBS);
      for (const [status, response] of Object.entries(op.responses as JsonObject)) {
        if (Number(status) < 400) continue;
        const media = (deref(document, response).content as JsonObject)['application/json'] as JsonObject;
        expect(media.schema, `${method.toUpperCase()} ${status}`).toEqual({ $ref: '#/components/schemas/ErrorBody' });
      }
    }
  });

  it('USAGE_LIMIT_EXCEEDED details hold limit, used, tier and upgrade_url (docs/api-rules.md#errors)', () => {
    const example = namedExamples(operation('post', JOBS), '403').usage_limit_exceeded!;
    const details = (example.error as JsonObject).details as JsonObject;
    expect(Object.keys(details).sort()).toEqual(['limit', 'tier', 'upgrade_url', 'used']);
    expect(typeof details.limit).toBe('number');
    expect(typeof details.used).toBe('number');
    expect(typeof details.tier).toBe('string');
    expect(() => new URL(details.upgrade_url as string)).not.toThrow();
    expect(UsageLimitDetails.safeParse(details).success).toBe(true);
    // The document names the fields, since the details object itself is free-form.
    const detailsSchema = deref(document, ((schemas.ErrorObject as JsonObject).properties as JsonObject).details);
    const description = String(detailsSchema.description);
    for (const field of ['limit', 'used', 'tier', 'upgrade_url']) expect(description).toContain(field);
  });

  it('every 429 carries Retry-After (docs/api-rules.md#limits)', () => {
    const ops = operations(document).filter(({ operation: op }) => (op.responses as JsonObject)['429'] !== undefined);
    expect(ops.map((o) => `${o.method} ${o.path}`).sort()).toEqual([`get ${JOBS}`, `post ${JOBS}`]);
    for (const { operation: op } of ops) {
      expect(Object.keys(deref(document, (op.responses as JsonObject)['429']).headers as JsonObject)).toContain('Retry-After');
    }
  });
});

describe('job fields (docs/api-rules.md#jobs, §7)', () => {
  for (const [name, fields] of Object.entries(SPEC_BODIES)) {
    it(`${name}: every spec field with its type, and required exactly when the API says it is present`, () => {
      const schema = deref(document, schemas[name]);
      expect(schema.type).toBe('object');
      const properties = schema.properties as JsonObject;
      const required = (schema.required ?? []) as string[];
      for (const [field, spec] of Object.entries(fields)) {
        expect(Object.keys(properties), `${name}.${field} exists`).toContain(field);
        const property = deref(document, properties[field]);
        expect(required.includes(field), `${name}.${field} required`).toBe(spec.required);
        if (spec.type !== null) expect(property.type, `${name}.${field} type`).toBe(spec.type);
        if (spec.format) expect(property.format, `${name}.${field} format`).toBe(spec.format);
        if (spec.const !== undefined) expect(property.enum ?? [property.const], `${name}.${field} value`).toEqual([spec.const]);
      }
      // Fields beyond the API are additions: a client written from the API never sends or expects them.
      const extras = Object.keys(properties).filter((field) => !Object.hasOwn(fields, field));
      expect(
        extras.filter((field) => required.includes(field)),
        `${name}: required fields the API does not list`,
      ).toEqual([]);
    });
  }

  it('the nested objects are the API objects: audio, billing, meta, error', () => {
    const prop = (body: string, field: string) => ((schemas[body] as JsonObject).properties as JsonObject)[field];
    for (const body of ['CompletedJob', 'ProcessingJob', 'FailedJob', 'ExpiredJob', 'ErrorBody']) {
      expect(prop(body, 'meta'), `${body}.meta`).toEqual({ $ref: '#/components/schemas/Meta' });
    }
    expect(prop('CompletedJob', 'audio')).toEqual({ $ref: '#/components/schemas/Audio' });
    expect(prop('CompletedJob', 'billing')).toEqual({ $ref: '#/components/schemas/Billing' });
    expect(prop('ErrorBody', 'error')).toEqual({ $ref: '#/components/schemas/ErrorObject' });
  });

  it('status_url is the path /v1/agent-tts?id=<job_id> (docs/api-rules.md#jobs)', () => {
    const statusUrl = deref(document, ((schemas.ProcessingJob as JsonObject).properties as JsonObject).status_url);
    const accepts = (value: string) => validator.errors(statusUrl, value).length === 0;
    expect(accepts('/v1/agent-tts?id=3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f')).toBe(true);
    expect(accepts('https://tts.example.com/v1/agent-tts?id=3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f')).toBe(false);
    expect(accepts('/v1/agent-tts?job=3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f')).toBe(false);
  });

  it('the four job statuses form one union, discriminated by status (docs/api-rules.md#job-statuses)', () => {
    const jobStatus = schemas.JobStatus as JsonObject;
    expect(jobStatus.oneOf).toEqual(['CompletedJob', 'ProcessingJob', 'FailedJob', 'ExpiredJob'].map((n) => ({ $ref: `#/components/schemas/${n}` })));
    expect((jobStatus.discriminator as JsonObject).propertyName).toBe('status');
  });

  it('POST answers 200 with a completed job and 202 with a processing job; GET answers 200 with any status (docs/api-rules.md#submitting, §4.2)', () => {
    const schemaOf = (method: string, status: string) =>
      ((deref(document, (operation(method, JOBS).responses as JsonObject)[status]).content as JsonObject)['application/json'] as JsonObject).schema;
    expect(schemaOf('post', '200')).toEqual({ $ref: '#/components/schemas/CompletedJob' });
    expect(schemaOf('post', '202')).toEqual({ $ref: '#/components/schemas/ProcessingJob' });
    expect(schemaOf('get', '200')).toEqual({ $ref: '#/components/schemas/JobStatus' });
    const statuses = Object.values(namedExamples(operation('get', JOBS), '200')).map((v) => v.status);
    expect([...new Set(statuses)].sort()).toEqual(['completed', 'expired', 'failed', 'processing']);
  });

  it('GET takes the job id as the required query parameter id (docs/api-rules.md#polling)', () => {
    const parameters = ((operation('get', JOBS).parameters ?? []) as Json[]).map((p) => deref(document, p));
    const id = parameters.find((p) => p.name === 'id');
    expect(id).toMatchObject({ in: 'query', required: true, schema: { type: 'string', format: 'uuid' } });
  });

  it('processing_time_ms appears in the POST completed example and not in the GET one (docs/api-rules.md#jobs: on POST)', () => {
    const post = namedExamples(operation('post', JOBS), '200').completed!;
    const get = namedExamples(operation('get', JOBS), '200').completed!;
    expect(Object.keys(post.meta as JsonObject)).toContain('processing_time_ms');
    expect(Object.keys(get.meta as JsonObject)).not.toContain('processing_time_ms');
  });
});

describe('examples', () => {
  const cases = collectExamples(document);

  it('the document has examples for every JSON request and response', () => {
    const missing: string[] = [];
    for (const { path, method, operation: op } of operations(document)) {
      const bodies: [string, JsonObject][] = [];
      if (op.requestBody) bodies.push(['request', deref(document, op.requestBody)]);
      for (const [status, response] of Object.entries(op.responses as JsonObject)) bodies.push([`response ${status}`, deref(document, response)]);
      for (const [what, holder] of bodies) {
        const media = (holder.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined;
        if (media && !isObject(media.examples) && media.example === undefined) missing.push(`${method.toUpperCase()} ${path} ${what}`);
      }
    }
    expect(missing).toEqual([]);
    expect(cases.length).toBeGreaterThan(30);
  });

  it.each(cases.map((c) => [c.where, c] as const))('%s validates against its schema', (_where, example) => {
    expect(validator.errors(example.schema, example.value)).toEqual([]);
  });

  it('the validator refuses a broken example, so the check above can fail', () => {
    const example = cases.find((c) => c.where.includes('POST /v1/agent-tts response 200 application/json example completed'));
    expect(example).toBeDefined();
    const broken = structuredClone(example!.value) as JsonObject;
    delete (broken.audio as JsonObject).format;
    expect(validator.errors(example!.schema, broken)).not.toEqual([]);
  });
});
