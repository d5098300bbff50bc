import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../exchange.js';
import { OpenApiDocument } from '../openapi-document.js';
import { invalidBody, validBody } from './bodies.js';
import { anyCase } from './cases.js';
import { requestSchemas } from './request-schemas.js';
import { checkAnswer, checkExpectation, checkGone } from './checks.js';
import { curlCommand } from './curl.js';

const doc = OpenApiDocument.load();
const schemas = requestSchemas(doc);
const offered = { voices: ['af_heart', 'bf_emma', 'st_f1'] };
const KEY = `tts_1a2b3c4d_${'e'.repeat(48)}`;

function exchange(
  method: string,
  url: string,
  status: number,
  json: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/json',
): Exchange {
  const text = JSON.stringify(json);
  return {
    seq: 1,
    owner: 'test',
    startedAt: new Date().toISOString(),
    ms: 1,
    request: { method, url, headers: {} },
    response: { status, headers: { 'content-type': contentType, ...headers }, contentType, bytes: Buffer.from(text), text, json },
  };
}

const meta = { request_id: '0b6f9a52-1d1e-4c47-9a55-2f1f0b0d6a11', api_version: '2026-04' };

describe('generated cases, drawn from the OpenAPI document', () => {
  it('reads the body schema, the Idempotency-Key header and the id query from the document', () => {
    expect(Object.keys(schemas.properties).sort()).toEqual(['language', 'speed', 'text', 'timestamps', 'voice']);
    expect(schemas.required).toEqual(['text']);
    expect(schemas.idempotencyKey.maxLength).toBe(255);
    expect(schemas.jobId.format).toBe('uuid');
  });

  it("draws valid bodies that the document's own schema accepts, with texts of a few characters", () => {
    fc.assert(
      fc.property(validBody(schemas, offered), (body) => {
        expect(doc.validateComponent('TtsRequest', body)).toEqual([]);
        expect([...(body.text as string)].length).toBeLessThanOrEqual(8);
        if (body.voice !== undefined) expect(offered.voices).toContain(body.voice);
      }),
      { seed: 1, numRuns: 300 },
    );
  });

  it("draws invalid bodies that the document's schema refuses", () => {
    fc.assert(
      fc.property(invalidBody(schemas, offered), ({ body, why }) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          return; // malformed JSON
        }
        expect(doc.validateComponent('TtsRequest', parsed), why).not.toEqual([]);
      }),
      { seed: 2, numRuns: 300 },
    );
  });

  it("draws valid values of an extension's field (timestamps), and never breaks one: a deployment without the extension ignores it", () => {
    const valid = fc.sample(validBody(schemas, offered), { seed: 3, numRuns: 300 });
    expect(new Set(valid.map((b) => b.timestamps))).toEqual(new Set([undefined, 'none', 'word']));
    const invalid = fc.sample(invalidBody(schemas, offered), { seed: 4, numRuns: 500 });
    for (const { body, why } of invalid) {
      expect(why).not.toMatch(/timestamps/);
      let parsed: { timestamps?: unknown } | undefined;
      try {
        parsed = JSON.parse(body);
      } catch {
        continue;
      }
      if (parsed && typeof parsed === 'object' && 'timestamps' in parsed) expect(['none', 'word']).toContain(parsed.timestamps);
    }
  });

  it('draws the same cases from the same seed, and others from another', () => {
    const sample = (seed: number) => fc.sample(anyCase(schemas, offered), { seed, numRuns: 20 });
    expect(sample(5)).toEqual(sample(5));
    expect(sample(5)).not.toEqual(sample(6));
  });
});

describe('the checks, named as Schemathesis names them', () => {
  it('finds a 5xx, an undeclared status, an undeclared media type, a missing required header and a body off its schema', () => {
    const url = 'http://h/v1/agent-tts';
    expect(checkAnswer(doc, exchange('POST', url, 500, 'x', {}, 'text/plain'), '/v1/agent-tts').map((v) => v.check)).toEqual([
      'not_a_server_error',
      'content_type_conformance',
      'response_headers_conformance',
    ]);
    expect(checkAnswer(doc, exchange('POST', url, 418, {}), '/v1/agent-tts').map((v) => v.check)).toEqual(['status_code_conformance']);
    const body = { success: false, error: { code: 'INVALID_KEY', message: 'Bad key.' }, meta };
    expect(checkAnswer(doc, exchange('POST', url, 401, body, { 'x-request-id': meta.request_id, 'www-authenticate': 'Bearer' }), '/v1/agent-tts')).toEqual([]);
    expect(checkAnswer(doc, exchange('POST', url, 401, body, { 'www-authenticate': 'Bearer' }), '/v1/agent-tts').map((v) => v.message)).toEqual([
      'submitTts 401: required header X-Request-Id is missing',
    ]);
    const noMeta = checkAnswer(
      doc,
      exchange('POST', url, 401, { success: false, error: body.error }, { 'x-request-id': meta.request_id, 'www-authenticate': 'Bearer' }),
      '/v1/agent-tts',
    );
    expect(noMeta.map((v) => v.check)).toEqual(['response_headers_conformance', 'response_schema_conformance']);
  });

  it('holds each case to its promise: valid accepted, invalid refused 400 as the error table says, keyless refused 401', () => {
    const url = 'http://h/v1/agent-tts';
    const invalid = exchange('POST', url, 400, { success: false, error: { code: 'INVALID_REQUEST', message: 'x' }, meta });
    expect(checkExpectation('reject', invalid)).toEqual([]);
    expect(checkExpectation('accept', invalid).map((v) => v.check)).toEqual(['positive_data_acceptance']);
    expect(
      checkExpectation('reject', exchange('POST', url, 422, { success: false, error: { code: 'INVALID_REQUEST', message: 'x' }, meta }))[0]!.message,
    ).toContain('the error table gives INVALID_REQUEST HTTP 400');
    expect(checkExpectation('reject', exchange('POST', url, 202, { success: true, meta })).map((v) => v.check)).toEqual(['negative_data_rejection']);
    expect(checkExpectation('unauthorized', exchange('POST', url, 200, { success: true, meta })).map((v) => v.check)).toEqual(['ignored_auth']);
    expect(checkGone(exchange('GET', url, 200, { success: true, meta }), 'the job').map((v) => v.check)).toEqual(['use_after_free']);
  });
});

describe('curlCommand', () => {
  it('prints the case as curl, the key in its display form with a placeholder for the secret', () => {
    const curl = curlCommand(
      'http://127.0.0.1:8080',
      {
        method: 'POST',
        path: '/v1/agent-tts',
        auth: 'key',
        contentType: 'application/json',
        idempotencyKey: { kind: 'fresh' },
        body: `{"text":"it's"}`,
        expect: 'accept',
      },
      KEY,
    );
    expect(curl).toBe(
      `curl -i -X POST 'http://127.0.0.1:8080/v1/agent-tts' -H 'Authorization: Bearer tts_1a2b3c4d_<secret>' -H 'Content-Type: application/json' -H "Idempotency-Key: $(uuidgen)" --data-raw '{"text":"it'\\''s"}'`,
    );
    expect(curl).not.toContain('e'.repeat(48));
    expect(
      curlCommand('http://h', { method: 'POST', path: '/v1/agent-tts', auth: 'key', idempotencyKey: { kind: 'literal', value: '' }, expect: 'reject' }, KEY),
    ).toContain(`-H 'Idempotency-Key;'`);
  });
});
