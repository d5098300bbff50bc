import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_JOB_ID_URLS, INVALID_SUBMISSIONS, MALFORMED_JOB_ID_URLS, hostileSubmissions, type Fault } from '../conformance/invalid-requests.js';
import { unlistedVoiceId } from '../conformance/rules/voices.js';
import { SHORT_TEXT } from '../conformance/scenarios.js';
import { LANGUAGE_CODES } from '../src/contract/languages.js';
import { usageMonth } from '../src/server/domain/usage.js';
import type { InProcessServer } from './helpers/in-process.js';
import { createTestServices } from './helpers/test-services.js';

/**
 * Every invalid request the conformance suite sends, sent to the reference app in process: each 400
 * says, for people, what was wrong, the allowed range or set, and where to look (for a voice: the
 * closest voices of the catalog and the catalog's address), and none repeats a schema's regular
 * expression or the validator's own words.
 */
const VOICES_ORIGIN = 'https://voices.example.test';
const CATALOG_URL = `${VOICES_ORIGIN}/api/v1/voices`;

/** The validator's phrases (zod's), and pieces of regular expressions. */
const VALIDATOR_WORDS = /invalid input|expected|received|too big|too small|invalid string|invalid option|invalid uuid|must match pattern/i;
const REGEX_PIECES = /\/\^|\$\/|\(\?:|\\x[0-9a-f]{2}|\\[dswS]|\[[^\]\s]*[a-z0-9]-[a-z0-9][^\]\s]*\]|\{\d+,\d*\}/i;

let s: InProcessServer;
let key: string;
let catalog: Set<string>;

beforeAll(async () => {
  s = await createTestServices({ PUBLIC_VOICES_URL: VOICES_ORIGIN, RATE_POST_LIMIT: '1' });
  ({ key } = await s.newKey());
  const listed = (await (await s.voicesApp.request('/api/v1/voices')).json()) as { voices: { id: string }[] };
  catalog = new Set(listed.voices.map((v) => v.id));
}, 60_000);
afterAll(async () => {
  await s?.close();
});

async function answer(res: Response): Promise<{ status: number; code: string; message: string; ratelimit: string | null }> {
  const body = (await res.json()) as { error: { code: string; message: string } };
  return { status: res.status, code: body.error.code, message: body.error.message, ratelimit: res.headers.get('ratelimit') };
}

const post = async (body: string | Buffer, headers: Record<string, string> = {}) =>
  answer(
    await s.app.request('/v1/agent-tts', {
      method: 'POST',
      body: typeof body === 'string' ? body : new Uint8Array(body),
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    }),
  );

/** What a message about each fault must say: the thing at fault, and the allowed range or set. */
function expectSaysWhatAndWhere(fault: Fault | 'too-long' | 'nesting', message: string, what: string): void {
  expect(message, what).not.toMatch(VALIDATOR_WORDS);
  expect(message, what).not.toMatch(REGEX_PIECES);
  switch (fault) {
    case 'nesting':
      expect(message, what).toMatch(/nest/);
      expect(message, what).toContain('64');
      break;
    case 'text':
      expect(message, what).toMatch(/^text /);
      expect(message, what).toContain('1 to 500,000 characters');
      break;
    case 'speed':
      expect(message, what).toMatch(/^speed /);
      expect(message, what).toContain('from 0.5 to 1.5');
      break;
    case 'voice': {
      expect(message, what).toMatch(/^voice "/);
      expect(message, what).toContain(CATALOG_URL);
      expect(message, what).toContain('`agent-tts voices`');
      const closest = /The closest voices offered: ([a-z0-9_, ]+)\./.exec(message)?.[1]?.split(', ') ?? [];
      expect(closest, what).toHaveLength(3);
      for (const id of closest) expect(catalog.has(id), `${what}: ${id} is in the catalog`).toBe(true);
      break;
    }
    case 'language':
      expect(message, what).toMatch(/^language /);
      expect(message, what).toContain(`one of ${LANGUAGE_CODES.join(', ')}`);
      expect(message, what).toContain(CATALOG_URL);
      break;
    case 'body':
      expect(message, what).toMatch(/^The request body (?:is not valid JSON|must be a JSON object)/);
      expect(message, what).toContain('{"text": "Hello."}');
      break;
    case 'content-type':
      expect(message, what).toContain('Content-Type must be application/json');
      break;
    case 'idempotency-key':
      expect(message, what).toMatch(/^The Idempotency-Key header /);
      expect(message, what).toContain('1 to 255 printable ASCII characters');
      break;
    case 'id':
      expect(message, what).toMatch(/\bid\b/);
      expect(message, what).toContain('job_id');
      break;
    case 'too-long':
      expect(message, what).toMatch(/500,?000/);
      break;
  }
}

describe('400 messages: every invalid request of the conformance suite', () => {
  it('submit.invalid-request: each refusal says what was wrong and what is allowed, and takes no POST place', async () => {
    expect(INVALID_SUBMISSIONS.length).toBeGreaterThanOrEqual(16);
    for (const c of INVALID_SUBMISSIONS) {
      const res = await post(c.body, { 'content-type': c.contentType ?? 'application/json', ...c.headers });
      expect([res.status, res.code], c.label).toEqual([400, 'INVALID_REQUEST']);
      expectSaysWhatAndWhere(c.fault, res.message, c.label);
    }
  });

  it('errors.internal-error: hostile submissions and polls are refused in the same words', async () => {
    for (const h of hostileSubmissions()) {
      const res = await post(h.body, h.headers);
      expect(res.status, h.label).toBe(400);
      expect(res.code, h.label).toBe(h.fault === 'too-long' ? 'TEXT_TOO_LONG' : 'INVALID_REQUEST');
      expectSaysWhatAndWhere(h.fault, res.message, h.label);
    }
    for (const g of HOSTILE_JOB_ID_URLS) {
      const res = await answer(await s.request('GET', g.url, { key }));
      expect([res.status, res.code], g.label).toEqual([400, 'INVALID_REQUEST']);
      expectSaysWhatAndWhere('id', res.message, g.label);
    }
  });

  it('get.malformed-id: a missing, empty or malformed id says how to poll', async () => {
    for (const url of MALFORMED_JOB_ID_URLS) {
      const res = await answer(await s.request('GET', url, { key }));
      expect([res.status, res.code], url.slice(0, 40)).toEqual([400, 'INVALID_REQUEST']);
      expectSaysWhatAndWhere('id', res.message, url.slice(0, 40));
    }
  });

  it('the invalid bodies of the other rules (idempotency, meta, auth) read the same way', async () => {
    // idempotency.refused-request-key-free: speed 9.
    const speed = await post(JSON.stringify({ text: SHORT_TEXT, speed: 9 }));
    expect(speed.message).toBe('speed 9 is out of range: send a number from 0.5 to 1.5, or leave speed out for 1.2.');
    // meta probes: an empty text.
    expectSaysWhatAndWhere('text', (await post(JSON.stringify({ text: '' }))).message, 'empty text');
    // auth.before-body sends { speed: "fast" } with a bad key (401); with a good one both fields are named.
    const both = await post(JSON.stringify({ speed: 'fast' }));
    expect(both.message).toMatch(/^text is missing: .* speed must be a number from 0\.5 to 1\.5 \(leave it out for 1\.2\); it is the string "fast"\.$/);
  });
});

describe('a voice the catalog does not list', () => {
  it('is spoken, by default, by the closest listed voice of its language and gender, which audio.voice names (§2.3, §2.2)', async () => {
    const voice = unlistedVoiceId(catalog);
    expect(voice).toBe('af_nobody');
    const { key: own } = await s.newKey();
    const res = await s.app.request('/v1/agent-tts', {
      method: 'POST',
      body: JSON.stringify({ text: SHORT_TEXT, voice }),
      headers: { authorization: `Bearer ${own}`, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    const job = (await res.json()) as { status: string; audio: { voice: string; language: string } };
    expect(job.status).toBe('completed');
    // The closest American female voice of the catalog by edit distance (four edits; the first in catalog order).
    expect(job.audio).toMatchObject({ voice: 'af_nicole', language: 'en-US' });
    expect(catalog.has(job.audio.voice)).toBe(true);
  }, 60_000);

  it('is refused at submission when the operator sets VOICES_UNLISTED=refuse, naming the catalog and the closest ids, with nothing created, counted or charged', async () => {
    const refusing = await createTestServices({ PUBLIC_VOICES_URL: VOICES_ORIGIN, RATE_POST_LIMIT: '1', VOICES_UNLISTED: 'refuse' });
    try {
      const voice = unlistedVoiceId(catalog);
      const { accountId, key: own } = await refusing.newKey();
      const before = await refusing.services.store.getUsage(accountId, usageMonth(Date.now()));
      const res = await answer(
        await refusing.app.request('/v1/agent-tts', {
          method: 'POST',
          body: JSON.stringify({ text: SHORT_TEXT, voice }),
          headers: { authorization: `Bearer ${own}`, 'content-type': 'application/json' },
        }),
      );
      expect([res.status, res.code]).toEqual([400, 'INVALID_REQUEST']);
      expect(res.message).toMatch(/^voice "af_nobody" is not offered by this deployment/);
      expectSaysWhatAndWhere('voice', res.message, voice);
      // The closest by edit distance (four edits; the first of those in catalog order).
      expect(res.message).toContain('af_nicole');
      // The POST place is still there, and no minute was reserved.
      expect(res.ratelimit).toBe('"post";r=1;t=0');
      expect(await refusing.services.store.getUsage(accountId, usageMonth(Date.now()))).toEqual(before);
      const listed = await refusing.app.request('/v1/agent-tts', {
        method: 'POST',
        body: JSON.stringify({ text: 'Hello.', voice: 'af_nicole' }),
        headers: { authorization: `Bearer ${own}`, 'content-type': 'application/json' },
      });
      expect(listed.status).toBe(200);
    } finally {
      await refusing.close();
    }
  }, 60_000);
});

describe('an audio URL that is malformed', () => {
  it('says which part is wrong and what to do, without a regular expression', async () => {
    const job = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
    for (const [url, part] of [
      [`/v1/audio/${job}.mp3?expires=1775000000&sig=short`, 'sig must be the 43-character base64url signature'],
      [`/v1/audio/${job}.mp3`, 'its expires parameter is missing, and its sig parameter is missing'],
      [`/v1/audio/${job}.mp3?expires=soon&sig=${'A'.repeat(43)}`, 'expires must be a Unix time in seconds'],
    ] as const) {
      const res = await answer(await s.app.request(url));
      // Refused like every audio URL that does not work: 404 NOT_FOUND, the remedy a fresh audio_url.
      expect([res.status, res.code], url).toEqual([404, 'NOT_FOUND']);
      expect(res.message, url).toContain(part);
      expect(res.message, url).toContain('GET the job again for a fresh audio_url');
      expect(res.message, url).not.toMatch(VALIDATOR_WORDS);
      expect(res.message, url).not.toMatch(REGEX_PIECES);
    }
  });
});
