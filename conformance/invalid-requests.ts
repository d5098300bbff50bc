import { API_PATH } from '../src/contract/limits.js';
import { SHORT_TEXT } from './scenarios.js';

/**
 * The invalid requests the suite sends, in one place: the rules send them to a deployment, and the
 * reference's own tests send the same ones to its app to check what each answer says
 * (test/validation-messages.test.ts).
 */

/** What is wrong with a request: the field (or header, or the body as a whole) its answer must be about. */
export type Fault = 'body' | 'content-type' | 'text' | 'speed' | 'voice' | 'language' | 'idempotency-key' | 'id';

export interface InvalidSubmission {
  label: string;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
  fault: Fault;
  /**
   * Where the refusal comes from when it is not the API itself: the anchor of the decision of
   * docs/api-rules.md that makes it a 400 (rule submit.invalid-request-decided). The API refuses the
   * others (rule submit.invalid-request): a missing text or one of no characters, a field of the wrong
   * type or out of its range, and a body without a JSON object's fields.
   */
  decision?: 'submitting' | 'idempotency';
}

/** POST bodies, headers and content types refused with 400 INVALID_REQUEST (rules submit.invalid-request and submit.invalid-request-decided). */
export const INVALID_SUBMISSIONS: readonly InvalidSubmission[] = [
  { label: 'no text', body: JSON.stringify({ voice: 'af_heart' }), fault: 'text' },
  { label: 'empty text', body: JSON.stringify({ text: '' }), fault: 'text' },
  // The API counts 1 to 500,000 characters; that white space alone is no text is the document's decision.
  { label: 'blank text', body: JSON.stringify({ text: '  \n\t ' }), fault: 'text', decision: 'submitting' },
  { label: 'text not a string', body: JSON.stringify({ text: 42 }), fault: 'text' },
  { label: 'speed below 0.5', body: JSON.stringify({ text: SHORT_TEXT, speed: 0.4 }), fault: 'speed' },
  { label: 'speed above 1.5', body: JSON.stringify({ text: SHORT_TEXT, speed: 1.6 }), fault: 'speed' },
  { label: 'speed not a number', body: JSON.stringify({ text: SHORT_TEXT, speed: 'fast' }), fault: 'speed' },
  { label: 'voice not a voice id', body: JSON.stringify({ text: SHORT_TEXT, voice: 'Not A Voice!' }), fault: 'voice' },
  { label: 'unlisted language code', body: JSON.stringify({ text: SHORT_TEXT, voice: 'st_m1', language: 'xx' }), fault: 'language' },
  { label: 'malformed JSON', body: '{"text": "unterminated', fault: 'body' },
  { label: 'JSON array', body: '[]', fault: 'body' },
  { label: 'JSON null', body: 'null', fault: 'body' },
  { label: 'JSON string', body: JSON.stringify(SHORT_TEXT), fault: 'body' },
  // The API requires application/json but does not say how another type is answered; the syntax of an
  // Idempotency-Key ("a client-provided string") is the document's too.
  {
    label: 'Content-Type text/plain',
    body: JSON.stringify({ text: SHORT_TEXT }),
    contentType: 'text/plain',
    fault: 'content-type',
    decision: 'submitting',
  },
  {
    label: 'Idempotency-Key of 256 characters',
    body: JSON.stringify({ text: SHORT_TEXT }),
    headers: { 'idempotency-key': 'k'.repeat(256) },
    fault: 'idempotency-key',
    decision: 'idempotency',
  },
  {
    label: 'empty Idempotency-Key',
    body: JSON.stringify({ text: SHORT_TEXT }),
    headers: { 'idempotency-key': '' },
    fault: 'idempotency-key',
    decision: 'idempotency',
  },
];

export interface HostileSubmission {
  label: string;
  body: string | Buffer;
  headers?: Record<string, string>;
  /**
   * What a conforming deployment answers: INVALID_REQUEST about `fault` (`nesting`: the body as a whole,
   * nested deeper than any request needs; the reference names its limit, docs/api-rules.md#limits), or
   * TEXT_TOO_LONG.
   */
  fault: Fault | 'too-long' | 'nesting';
}

/** Inputs a careless server answers with a 500 or a dropped connection (rule errors.internal-error). Built when asked: two are megabytes. */
export function hostileSubmissions(): HostileSubmission[] {
  return [
    { label: 'JSON nested 10,000 deep', body: `{"text":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, fault: 'nesting' },
    { label: 'speed 1e400 (overflows to Infinity)', body: `{"text":"${SHORT_TEXT}","speed":1e400}`, fault: 'speed' },
    { label: 'a 3 MB text', body: JSON.stringify({ text: 'a'.repeat(3_000_000) }), fault: 'too-long' },
    { label: '12 MB that are not JSON', body: Buffer.alloc(12 * 1024 * 1024, 0x7b), fault: 'too-long' },
    { label: 'text as an object', body: JSON.stringify({ text: { toString: 'x' } }), fault: 'text' },
    {
      label: 'an Idempotency-Key of 8,000 characters',
      body: JSON.stringify({ text: SHORT_TEXT }),
      headers: { 'idempotency-key': 'k'.repeat(8_000) },
      fault: 'idempotency-key',
    },
  ];
}

/** Polls with an `id` the API refuses with 400 INVALID_REQUEST (rule get.malformed-id). */
export const MALFORMED_JOB_ID_URLS: readonly string[] = [API_PATH, `${API_PATH}?id=`, `${API_PATH}?id=not-a-uuid`, `${API_PATH}?id=${'9'.repeat(2000)}`];

/** Polls a careless server answers with a 500 (rule errors.internal-error); a conforming one with 400 INVALID_REQUEST. */
export const HOSTILE_JOB_ID_URLS: readonly { label: string; url: string }[] = [
  { label: 'id with broken percent-encoding', url: `${API_PATH}?id=${'%'.repeat(3)}zz` },
  { label: 'id given twice', url: `${API_PATH}?id=a&id=b` },
];
