/**
 * The zod schemas (what the server parses with) and the document's schemas (what clients and the mock
 * validate with) accept and refuse what the API says. Every request case runs through both, so the
 * two cannot drift apart. Expected values come from the API (__fixtures__/spec-tables.ts).
 */
import { describe, expect, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import { completedJobExample, errorExample, expiredJobExample, failedJobExample, processingJobExample } from './examples.js';
import { LANGUAGE_CODES } from './languages.js';
import { LIMITS } from './limits.js';
import { ErrorBody, Meta } from './envelope-schemas.js';
import { Audio, Billing, CompletedJob, ExpiredJob, FailedJob, JobStatus, ProcessingJob } from './job-schemas.js';
import { TEXT_TOO_LONG_REASON, TtsRequest } from './request-schemas.js';
import { CURATED_VOICES, DEFAULT_VOICE } from './voices.js';
import { createValidator, deref, loadDocument, type JsonObject } from './__fixtures__/openapi-helpers.js';
import { SPEC_BODIES, SPEC_CURATED_VOICES, SPEC_ERROR_TABLE, SPEC_LANGUAGE_CODES, SPEC_REQUEST } from './__fixtures__/spec-tables.js';

const document = loadDocument();
const validator = createValidator(document);
const schemas = (document.components as JsonObject).schemas as JsonObject;
/** The document's request schema, as the POST operation uses it. */
const requestSchema = (((document.paths as JsonObject)['/v1/agent-tts'] as JsonObject).post as JsonObject).requestBody as JsonObject;
const documentRequestSchema = ((requestSchema.content as JsonObject)['application/json'] as JsonObject).schema as JsonObject;

type Verdict = { zod: boolean; document: boolean };
function check(body: unknown): Verdict {
  return {
    zod: TtsRequest.safeParse(body).success,
    document: validator.errors(documentRequestSchema, body).length === 0,
  };
}
const ACCEPTED: Verdict = { zod: true, document: true };
const REFUSED: Verdict = { zod: false, document: false };

/** The zod issues of a refused body. */
function issues(body: unknown) {
  const result = TtsRequest.safeParse(body);
  if (result.success) throw new Error(`expected ${JSON.stringify(body).slice(0, 80)} to be refused`);
  return result.error.issues;
}
const reasonOf = (issue: { params?: unknown } & object) => (issue as { params?: { reason?: string } }).params?.reason;

describe('request body: text (docs/api-rules.md#submitting, §8: 1 to 500,000 characters)', () => {
  const max = SPEC_REQUEST.textMaxChars;

  it('refuses an empty text and accepts one character', () => {
    expect(check({ text: '' })).toEqual(REFUSED);
    expect(check({ text: 'a' })).toEqual(ACCEPTED);
    expect(issues({ text: '' }).some((i) => reasonOf(i) === TEXT_TOO_LONG_REASON)).toBe(false);
  });

  it('accepts exactly 500,000 characters and refuses 500,001 with the TEXT_TOO_LONG reason', () => {
    expect(check({ text: 'a'.repeat(max) })).toEqual(ACCEPTED);
    expect(check({ text: 'a'.repeat(max + 1) })).toEqual(REFUSED);
    const tooLong = issues({ text: 'a'.repeat(max + 1) });
    expect(tooLong.map((i) => ({ path: i.path, reason: reasonOf(i) }))).toEqual([{ path: ['text'], reason: 'TEXT_TOO_LONG' }]);
  });

  it('counts code points, not UTF-16 units: 500,000 emoji (1,000,000 units) pass, 500,001 do not', () => {
    const emoji = '😀';
    expect(emoji.length).toBe(2);
    expect(check({ text: emoji.repeat(max) })).toEqual(ACCEPTED);
    expect(check({ text: emoji.repeat(max + 1) })).toEqual(REFUSED);
    expect(issues({ text: emoji.repeat(max + 1) }).map(reasonOf)).toEqual(['TEXT_TOO_LONG']);
    // Mixed: 499,999 emoji and one letter is exactly the limit.
    expect(check({ text: `${emoji.repeat(max - 1)}a` })).toEqual(ACCEPTED);
    expect(check({ text: `${emoji.repeat(max)}a` })).toEqual(REFUSED);
  });

  it('refuses blank text (INVALID_REQUEST, not TEXT_TOO_LONG), with the same whitespace in zod and the document', () => {
    for (const blank of [' ', '   ', '\n\t\r', '\u00a0', '\u3000\u2028\u2029', '\ufeff']) {
      expect(check({ text: blank }), JSON.stringify(blank)).toEqual(REFUSED);
      expect(
        issues({ text: blank }).some((i) => reasonOf(i) === TEXT_TOO_LONG_REASON),
        JSON.stringify(blank),
      ).toBe(false);
    }
    // Not whitespace, so not blank: both sides agree.
    for (const visible of ['\u200b', '\u180e', '.', ' a ']) expect(check({ text: visible }), JSON.stringify(visible)).toEqual(ACCEPTED);
  });

  it('requires text, as a string', () => {
    expect(check({})).toEqual(REFUSED);
    expect(check({ voice: 'af_heart' })).toEqual(REFUSED);
    expect(check({ text: 42 })).toEqual(REFUSED);
    expect(check({ text: null })).toEqual(REFUSED);
    expect(check({ text: ['a'] })).toEqual(REFUSED);
  });

  it('the document states the limit in code points (JSON Schema counts code points too)', () => {
    const text = deref(document, ((schemas.TtsRequest as JsonObject).properties as JsonObject).text);
    expect(text).toMatchObject({ type: 'string', minLength: SPEC_REQUEST.textMinChars, maxLength: SPEC_REQUEST.textMaxChars });
    expect(String(text.description)).toMatch(/code points/);
  });
});

describe('request body: speed (docs/api-rules.md#submitting: 0.5 to 1.5, default 1.2)', () => {
  it.each([
    [0.49, REFUSED],
    [0.5, ACCEPTED],
    [1.2, ACCEPTED],
    [1.5, ACCEPTED],
    [1.51, REFUSED],
    [0, REFUSED],
    [-1, REFUSED],
    [2, REFUSED],
  ])('speed %s', (speed, verdict) => {
    expect(check({ text: 'Hello.', speed })).toEqual(verdict);
  });

  it('is optional and a number', () => {
    expect(check({ text: 'Hello.' })).toEqual(ACCEPTED);
    expect(check({ text: 'Hello.', speed: '1.0' })).toEqual(REFUSED);
    expect(check({ text: 'Hello.', speed: null })).toEqual(REFUSED);
  });
});

describe('request body: voice (docs/api-rules.md#voices-and-languages, §4.4)', () => {
  const kokoroLetters = ['a', 'b', 'e', 'f', 'h', 'i', 'j', 'p', 'z'];

  it('the curated voices of the contract are those of the API', () => {
    expect(CURATED_VOICES.map((v) => v.id)).toEqual([...SPEC_CURATED_VOICES]);
  });

  it.each([...SPEC_CURATED_VOICES])('accepts curated voice %s', (voice) => {
    expect(check({ text: 'Hello.', voice })).toEqual(ACCEPTED);
  });

  it.each(kokoroLetters.flatMap((l) => ['f', 'm'].map((g) => `${l}${g}_voice`)))('accepts Kokoro-style id %s', (voice) => {
    expect(check({ text: 'Hello.', voice })).toEqual(ACCEPTED);
  });

  it.each(['f', 'm'].flatMap((g) => [1, 2, 3, 4, 5].map((n) => `st_${g}${n}`)))('accepts Supertonic id %s', (voice) => {
    expect(check({ text: 'Hello.', voice })).toEqual(ACCEPTED);
  });

  it.each([
    'st_f6',
    'st_m0',
    'st_x1',
    'st_f',
    'st_f10',
    'xf_test',
    'cf_test',
    'ax_test',
    'af_',
    'af',
    'AF_HEART',
    'Af_heart',
    'af-heart',
    'af_Heart',
    'af_1heart',
    'af_heart ',
    ' af_heart',
    'af_heart\n',
    'af__heart',
    '',
  ])('refuses %j', (voice) => {
    expect(check({ text: 'Hello.', voice })).toEqual(REFUSED);
  });

  it('accepts names up to 32 characters and refuses longer ones (design: bounded ids)', () => {
    expect(check({ text: 'Hello.', voice: `af_${'a'.repeat(32)}` })).toEqual(ACCEPTED);
    expect(check({ text: 'Hello.', voice: `af_${'a'.repeat(33)}` })).toEqual(REFUSED);
  });

  it('refuses a voice that is not a string', () => {
    expect(check({ text: 'Hello.', voice: 1 })).toEqual(REFUSED);
    expect(check({ text: 'Hello.', voice: null })).toEqual(REFUSED);
  });
});

describe('request body: language (docs/api-rules.md#supertonic-language-codes)', () => {
  it('the contract lists the 31 codes of the API', () => {
    expect(SPEC_LANGUAGE_CODES).toHaveLength(31);
    expect(LANGUAGE_CODES).toEqual([...SPEC_LANGUAGE_CODES]);
  });

  it.each([...SPEC_LANGUAGE_CODES])('accepts %s', (language) => {
    expect(check({ text: 'Hello.', voice: 'st_m1', language })).toEqual(ACCEPTED);
  });

  it.each(['EN', 'En', 'en-US', 'pt-BR', 'zh', 'no', 'xx', 'eng', 'english', 'en ', ''])('refuses %j', (language) => {
    expect(check({ text: 'Hello.', voice: 'st_m1', language })).toEqual(REFUSED);
  });

  it('is optional, also with a Kokoro voice; when given with one it must still be a listed code', () => {
    expect(check({ text: 'Hello.', voice: 'st_m1' })).toEqual(ACCEPTED);
    expect(check({ text: 'Hola.', voice: 'ef_sofia', language: 'es' })).toEqual(ACCEPTED);
    expect(check({ text: 'Hola.', voice: 'ef_sofia', language: 'xx' })).toEqual(REFUSED);
  });
});

describe('request body: defaults and extras', () => {
  it('documents the defaults voice af_heart and speed 1.2 (docs/api-rules.md#submitting)', () => {
    const properties = (schemas.TtsRequest as JsonObject).properties as JsonObject;
    expect(deref(document, properties.voice).default).toBe(SPEC_REQUEST.defaultVoice);
    expect(deref(document, properties.speed).default).toBe(SPEC_REQUEST.defaultSpeed);
    expect(DEFAULT_VOICE).toBe(SPEC_REQUEST.defaultVoice);
    expect(LIMITS.speedDefault).toBe(SPEC_REQUEST.defaultSpeed);
    expect([LIMITS.textMinChars, LIMITS.textMaxChars, LIMITS.speedMin, LIMITS.speedMax]).toEqual([
      SPEC_REQUEST.textMinChars,
      SPEC_REQUEST.textMaxChars,
      SPEC_REQUEST.speedMin,
      SPEC_REQUEST.speedMax,
    ]);
  });

  it('documents the voice pattern decision (language from the first letter) in the document', () => {
    const voice = deref(document, ((schemas.TtsRequest as JsonObject).properties as JsonObject).voice);
    for (const mapping of ['a en-US', 'b en-GB', 'e es', 'f fr', 'h hi', 'i it', 'j ja', 'p pt-BR', 'z zh', 'st_f1']) {
      expect(String(voice.description)).toContain(mapping);
    }
  });

  it('only text is required; the optional fields are optional in zod and the document', () => {
    expect((schemas.TtsRequest as JsonObject).required).toEqual(['text']);
    expect(check({ text: 'Hello.', voice: 'af_heart', speed: 1.2, language: 'en' })).toEqual(ACCEPTED);
  });

  it('ignores unknown fields (design), and zod drops them', () => {
    expect(check({ text: 'Hello.', format: 'wav', extra: { nested: true } })).toEqual(ACCEPTED);
    const parsed = TtsRequest.parse({ text: 'Hello.', extra: 1 });
    expect(parsed).toEqual({ text: 'Hello.' });
  });

  it('refuses what is not a JSON object', () => {
    for (const body of [null, 'Hello.', ['Hello.'], 42]) expect(check(body), JSON.stringify(body)).toEqual(REFUSED);
  });
});

/**
 * Presence per docs/api-rules.md#jobs, on the zod schemas: removing a required field makes a valid body invalid,
 * removing an optional one does not.
 */
describe('response bodies in zod: required and optional fields (docs/api-rules.md#jobs, §7)', () => {
  const legacyAudio = { ...completedJobExample.audio, expires_at: '2025-01-31T12:00:00Z', file_size_bytes: 48_213 };
  const cases: [string, z.ZodType, Record<string, unknown>][] = [
    ['CompletedJob', CompletedJob, completedJobExample],
    ['ProcessingJob', ProcessingJob, processingJobExample],
    ['FailedJob', FailedJob, failedJobExample],
    ['ExpiredJob', ExpiredJob, expiredJobExample],
    ['Audio', Audio, legacyAudio],
    ['Billing', Billing, completedJobExample.billing],
    ['Meta', Meta, completedJobExample.meta],
    ['ErrorBody', ErrorBody, errorExample('USAGE_LIMIT_EXCEEDED')],
  ];

  for (const [name, schema, valid] of cases) {
    it(`${name}`, () => {
      expect(schema.safeParse(valid).success, `${name} example`).toBe(true);
      for (const [field, spec] of Object.entries(SPEC_BODIES[name]!)) {
        expect(Object.hasOwn(valid, field), `${name} fixture carries ${field}`).toBe(true);
        const without = { ...valid };
        delete without[field];
        expect(schema.safeParse(without).success, `${name} without ${field}`).toBe(!spec.required);
      }
    });
  }

  it('error.details is optional and error.code/message required (docs/api-rules.md#errors)', () => {
    const body = errorExample('USAGE_LIMIT_EXCEEDED');
    expect(ErrorBody.safeParse({ ...body, error: { code: 'INVALID_KEY', message: 'Bad key.' } }).success).toBe(true);
    expect(ErrorBody.safeParse({ ...body, error: { message: 'Bad key.' } }).success).toBe(false);
    expect(ErrorBody.safeParse({ ...body, error: { code: 'INVALID_KEY' } }).success).toBe(false);
    expect(ErrorBody.safeParse({ ...body, error: { code: 'NOT_A_CODE', message: 'x' } }).success).toBe(false);
  });

  it('every code of the table has an error example that zod accepts', () => {
    for (const { code } of SPEC_ERROR_TABLE) expect(ErrorBody.safeParse(errorExample(code)).success, code).toBe(true);
  });

  it('JobStatus tells the four bodies apart by status', () => {
    for (const body of [completedJobExample, processingJobExample, failedJobExample, expiredJobExample]) {
      expect(JobStatus.parse(body).status).toBe(body.status);
    }
    expect(JobStatus.safeParse({ ...processingJobExample, status: 'queued' }).success).toBe(false);
    // A completed body needs its audio, even inside the union.
    const { audio: _audio, ...withoutAudio } = completedJobExample;
    expect(JobStatus.safeParse(withoutAudio).success).toBe(false);
  });

  it('meta.api_version is the label 2026-04 (docs/api-rules.md#meta-and-versioning)', () => {
    expect(Meta.safeParse({ ...completedJobExample.meta, api_version: '2026-05' }).success).toBe(false);
  });
});
