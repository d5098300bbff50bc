/**
 * Word timings through the sandbox's HTTP API (docs/api-rules.md#word-timings-and-captions): the journal's
 * view of the field, and the files served by the server's captions route from the instant synthesizer's
 * words, checked against the text and the MP3, every answer checked against the document.
 */
import { MPEGDecoder } from 'mpg123-decoder';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildCues, renderSrt, renderWebVtt, textWords, timingsProblems } from '../contract/captions.js';
import type { WordTimingsFileBody } from '../contract/timing-schemas.js';
import { createSandbox, type SandboxCore } from './sandbox.js';

let sb: SandboxCore;
beforeEach(async () => {
  sb = await createSandbox({
    baseUrl: 'http://sandbox.test',
    voicesUrl: 'http://voices.test',
    env: { RATE_POST_LIMIT: '100', RATE_GET_LIMIT: '100' },
    validateResponses: true,
  });
});
afterEach(() => sb?.close());

const post = (body: unknown, idempotencyKey?: string) =>
  sb.fetch(
    new Request('http://sandbox.test/v1/agent-tts', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${sb.keys.active_pro}`,
        'Content-Type': 'application/json',
        ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
      },
      body: JSON.stringify(body),
    }),
  );

describe('sandbox: the journal compares submissions with timestamps as the API does', () => {
  it('takes timestamps "none" and no timestamps as the same body under one key, and "word" as a different one', async () => {
    const text = 'Hello from agent-tts. sandbox:inline';
    expect((await post({ text }, 'k-1')).status).toBe(200);
    expect((await post({ timestamps: 'none', text }, 'k-1')).status).toBe(200);
    expect((await post({ text, timestamps: 'word' }, 'k-1')).status).toBe(200);
    expect((await post({ text, timestamps: 'word' }, 'k-2')).status).toBe(200);
    expect((await post({ text }, 'k-2')).status).toBe(200);
    expect(sb.journal.list().map((e) => e.flags.map((f) => f.code))).toEqual([
      [],
      [],
      ['IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY'],
      [],
      ['IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY'],
    ]);
  });
});

// biome-ignore lint/suspicious/noExplicitAny: JSON read off the wire is walked field by field, and every check tests the value it reads
type Json = Record<string, any>;
const get = (pathOrUrl: string, key?: string) =>
  sb.fetch(new Request(new URL(pathOrUrl, 'http://sandbox.test'), { headers: key ? { Authorization: `Bearer ${key}` } : {} }));
const poll = async (jobId: string, key = sb.keys.active_pro) => (await (await get(`/v1/agent-tts?id=${jobId}`, key)).json()) as Json;
const advance = async (seconds: number) => {
  const res = await sb.fetch(
    new Request('http://sandbox.test/sandbox/clock', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ advance_seconds: seconds }),
    }),
  );
  expect(res.status).toBe(200);
};

/** Downloads a job's audio and its three timings files through the sandbox, and checks them against each other and the text. */
async function expectTimingsOf(job: Json, text: string) {
  expect(job.timings.granularity).toBe('word');
  for (const format of ['json', 'vtt', 'srt'] as const) {
    expect(new URL(job.timings[`${format}_url`]).pathname).toBe(`/v1/captions/${job.job_id}.${format}`);
  }
  const json = await get(job.timings.json_url);
  expect([json.status, json.headers.get('content-type')]).toEqual([200, 'application/json']);
  const file = (await json.json()) as WordTimingsFileBody;
  expect(file).toMatchObject({ job_id: job.job_id, granularity: 'word', duration_seconds: job.audio.duration_seconds });
  expect(timingsProblems(text, file, job.audio.language, 0)).toEqual([]);
  expect(file.words.map(({ start: _s, end: _e, ...offsets }) => offsets)).toEqual(textWords(text, job.audio.language));
  expect(file.cues).toEqual(buildCues(text, file.words));
  // The MP3 the words are placed in: decoded, as long as the file says, every word within it.
  const mp3 = await get(job.audio_url);
  const decoder = new MPEGDecoder();
  await decoder.ready;
  const decoded = decoder.decode(new Uint8Array(await mp3.arrayBuffer()));
  decoder.free();
  expect(decoded.errors).toEqual([]);
  const seconds = decoded.samplesDecoded / decoded.sampleRate;
  expect(Math.abs(seconds - file.duration_seconds)).toBeLessThan(0.001);
  expect(file.words.at(-1)!.end).toBeLessThanOrEqual(seconds);
  const vtt = await get(job.timings.vtt_url);
  expect([vtt.status, vtt.headers.get('content-type')]).toEqual([200, 'text/vtt; charset=utf-8']);
  expect(await vtt.text()).toBe(renderWebVtt(file));
  const srt = await get(job.timings.srt_url);
  expect([srt.status, srt.headers.get('content-type')]).toEqual([200, 'application/x-subrip; charset=utf-8']);
  expect(await srt.text()).toBe(renderSrt(file));
  return file;
}

describe('sandbox: word timings end to end, through the server’s captions route', () => {
  const TEXT = 'Hello from agent-tts! Rocket 🚀 launch at 10:30, in 𝒜𝒷𝒸 town. Café au lait… sandbox:inline';

  it('inline: 200 with timings; the JSON, WebVTT and SRT download through the sandbox and fit its MP3', async () => {
    const res = await post({ text: TEXT, timestamps: 'word' });
    expect(res.status).toBe(200);
    const job = (await res.json()) as Json;
    const file = await expectTimingsOf(job, TEXT);
    expect(file.words.map((w) => w.word)).toEqual([
      'Hello',
      'from',
      'agent',
      'tts',
      'Rocket',
      '🚀',
      'launch',
      'at',
      '10',
      '30',
      'in',
      '𝒜𝒷𝒸',
      'town',
      'Café',
      'au',
      'lait',
      'sandbox:inline',
    ]);
    // The word after a sentence's end starts later than one after a space: its pause is in the audio.
    const gap = (i: number) => file.words[i + 1]!.start - file.words[i]!.end;
    expect(gap(3)).toBeGreaterThan(gap(0) + 0.3);
    // A poll hands out freshly signed URLs of the same files.
    const polled = await poll(job.job_id);
    for (const format of ['json', 'vtt', 'srt'] as const) {
      expect(new URL(polled.timings[`${format}_url`]).pathname).toBe(new URL(job.timings[`${format}_url`]).pathname);
    }
    expect(await (await get(polled.timings.json_url)).json()).toEqual(file);
    // Every answer, the caption files included, as the document describes it.
    expect(sb.journal.flagged()).toEqual([]);
  });

  it('asynchronous: no timings while processing; when the clock completes the job, timings that fit it', async () => {
    const text = 'A job that takes four seconds on the clock. It has two sentences. sandbox:async=4';
    const accepted = (await (await post({ text, timestamps: 'word' })).json()) as Json;
    expect(accepted.status).toBe('processing');
    expect(accepted.timings).toBeUndefined();
    expect((await poll(accepted.job_id)).timings).toBeUndefined();
    await advance(4);
    const done = await poll(accepted.job_id);
    expect(done.status).toBe('completed');
    await expectTimingsOf(done, text);
  });

  it('no timings unless asked: none and absent alike; a URL signed for one format opens no other', async () => {
    for (const body of [{ text: 'Plain. sandbox:inline' }, { text: 'Plain. sandbox:inline', timestamps: 'none' }]) {
      const job = (await (await post(body)).json()) as Json;
      expect(job.status).toBe('completed');
      expect(job.timings).toBeUndefined();
    }
    // Any other value is refused, naming the field.
    const refused = await post({ text: 'Plain.', timestamps: 'sentence' });
    expect(refused.status).toBe(400);
    const error = ((await refused.json()) as Json).error;
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toContain('timestamps');
    const timed = (await (await post({ text: TEXT, timestamps: 'word' })).json()) as Json;
    const vtt = new URL(timed.timings.vtt_url);
    const swapped = await get(`${vtt.pathname.replace(/\.vtt$/, '.srt')}${vtt.search}`);
    expect(swapped.status).toBe(404);
    expect(((await swapped.json()) as Json).error.code).toBe('NOT_FOUND');
  });

  it('caption URLs expire on the sandbox clock like the audio URL; a poll hands out fresh ones', async () => {
    const job = (await (await post({ text: TEXT, timestamps: 'word' })).json()) as Json;
    await advance(3601);
    for (const url of [job.audio_url, job.timings.json_url, job.timings.vtt_url, job.timings.srt_url]) expect((await get(url)).status, url).toBe(404);
    const fresh = await poll(job.job_id);
    await expectTimingsOf(fresh, TEXT);
    expect(sb.journal.flagged()).toEqual([]);
  });

  it('retention deletes the timings with the audio: the file is gone and its URLs answer 404', async () => {
    const res = await sb.fetch(
      new Request('http://sandbox.test/v1/agent-tts', {
        method: 'POST',
        headers: { Authorization: `Bearer ${sb.keys.active_free}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'Kept for a day. sandbox:inline', timestamps: 'word' }),
      }),
    );
    const job = (await res.json()) as Json;
    expect(await sb.services.audio.readTimings(job.job_id)).toBeDefined();
    // Fresh URLs shortly before the end of the free plan's day, still valid after it.
    await advance(86_400 - 1800);
    const late = await poll(job.job_id, sb.keys.active_free);
    expect((await get(late.timings.vtt_url)).status).toBe(200);
    await advance(1800 + 10);
    expect(await sb.services.audio.readTimings(job.job_id)).toBeUndefined();
    for (const url of [late.audio_url, late.timings.json_url, late.timings.vtt_url]) expect((await get(url)).status, url).toBe(404);
  });

  it('deleting a test clock deletes its jobs’ timings with their audio', async () => {
    const testClock = (await sb.createClock())!;
    const res = await sb.fetch(
      new Request('http://sandbox.test/v1/agent-tts', {
        method: 'POST',
        headers: { Authorization: `Bearer ${testClock.keys.active_pro}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'On a test clock. sandbox:inline', timestamps: 'word' }),
      }),
    );
    const job = (await res.json()) as Json;
    expect((await get(job.timings.srt_url)).status).toBe(200);
    expect(await sb.deleteClock(testClock.clock.id)).toBe(true);
    expect(await sb.services.audio.readTimings(job.job_id)).toBeUndefined();
    expect((await get(job.timings.srt_url)).status).toBe(404);
  });
});
