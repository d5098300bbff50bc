import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCues, renderSrt, renderWebVtt, textWords, toMillis } from '@agent-tts/contract/captions.js';
import { AUDIO_STORE_UNREACHABLE_MESSAGE, AUDIO_URL_INVALID_MESSAGE } from '@agent-tts/contract/errors.js';
import { WordTimingsFile, type WordTimingsFileBody } from '@agent-tts/contract/timing-schemas.js';
import type { InProcessServer } from '../../../../test/helpers/in-process.js';
import { createTestServices } from '../../../../test/helpers/test-services.js';
import { newJob } from '../../adapters/contracts/fixtures.contract.js';
import { AudioUrlSigner } from '../../domain/signing.js';
import { createLogger } from '../../log.js';
import { AudioStorageUnavailableError, type JobRecord } from '../../ports/index.js';
import type { AudioStorage } from '../../domain/job-files.js';
import { createApp } from '../create-app.js';
import { registerCaptionRoutes } from './captions.js';
import { SignedFiles } from '../../domain/signed-files.js';

const T0 = Date.UTC(2026, 3, 10, 12);
const TTL_SECONDS = 60;
/** Markup, an ampersand, accents, CJK and an emoji: escaped in WebVTT, counted in bytes in Content-Length. */
const TEXT = 'Ünïcödé <b>bold</b> & 日本語. Then 🎉 a second sentence, which goes on a little longer than one cue can hold.';

function timingsOf(job: JobRecord, duration: number): WordTimingsFileBody {
  const words = textWords(TEXT);
  const step = duration / words.length;
  const timed = words.map((w, i) => ({ ...w, start: toMillis(i * step), end: toMillis((i + 0.8) * step) }));
  return { job_id: job.id, granularity: 'word', duration_seconds: duration, words: timed, cues: buildCues(TEXT, timed) };
}

/**
 * GET /v1/captions/{job_id}.{format} over the memory store and the real local audio directory, with jobs
 * and timings files put there as a finished run leaves them, and a clock the test moves.
 */
describe('GET /v1/captions/{job_id}.{format}', () => {
  let server: InProcessServer;
  let now = T0;
  const clock = { now: () => now };
  const signer = new AudioUrlSigner('c'.repeat(32), TTL_SECONDS);
  let timed: JobRecord;
  let file: WordTimingsFileBody;
  const ids: Record<'plain' | 'lost' | 'running', string> = { plain: '', lost: '', running: '' };

  beforeAll(async () => {
    server = await createTestServices();
    const { accountId } = await server.newKey();
    const { store, audio } = server.services;
    const make = async (overrides: Partial<JobRecord>, settle = true) => {
      const job = newJob(accountId, { deleteAfter: Date.now() + 86_400_000, ...overrides });
      expect(await store.createJob(job, 1_000_000)).toEqual({ kind: 'created' });
      if (settle) await store.completeJob(job.id, { durationSeconds: 6.5, fileSizeBytes: 1, completedAt: T0, processingTimeMs: 1, chargedCentiminutes: 11 });
      return job;
    };
    timed = await make({ timestamps: 'word', text: TEXT });
    file = timingsOf(timed, 6.5);
    await audio.putTimings(timed.id, new TextEncoder().encode(JSON.stringify(file)));
    // A job that asked for none, with a file there anyway: the record decides, not the file.
    ids.plain = (await make({})).id;
    await audio.putTimings(ids.plain, new TextEncoder().encode(JSON.stringify(timingsOf(timed, 1))));
    ids.lost = (await make({ timestamps: 'word' })).id;
    const running = await make({ timestamps: 'word' }, false);
    await audio.putTimings(running.id, new TextEncoder().encode(JSON.stringify(timingsOf(running, 1))));
    ids.running = running.id;
  });
  afterAll(async () => {
    await server?.close();
  });

  function app(audio: AudioStorage = server.services.audio) {
    const a = createApp({ log: createLogger('silent'), notFoundHint: 'none' });
    registerCaptionRoutes(a, { files: new SignedFiles({ store: server.services.store, audio, signer, clock }), log: createLogger('silent') });
    return a;
  }
  const pathOf = (id: string, format: 'json' | 'vtt' | 'srt') => {
    const url = new URL(signer.signTimings('http://x', id, T0)[`${format}_url`]);
    return `${url.pathname}${url.search}`;
  };
  /** A request at `at` on the route's clock (a second after the URLs were signed, unless told). */
  const get = (path: string, init: RequestInit = {}, at = T0 + 1_000, audio?: AudioStorage) => {
    now = at;
    return app(audio).request(path, init);
  };
  async function expectInvalid(res: Response, message: unknown = AUDIO_URL_INVALID_MESSAGE) {
    expect(res.status).toBe(404);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect((await res.json()).error).toEqual({ code: 'NOT_FOUND', message });
  }

  it('serves the stored timings as JSON, valid against the contract, without a key, cached until the URL expires', async () => {
    const res = await get(pathOf(timed.id, 'json'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('cache-control')).toBe(`private, max-age=${TTL_SECONDS - 1}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(res.headers.get('content-length')).toBe(String(bytes.byteLength));
    const body = JSON.parse(new TextDecoder().decode(bytes));
    expect(body).toEqual(file);
    expect(WordTimingsFile.safeParse(body).success).toBe(true);
  });

  it('serves WebVTT and SRT of the stored cues, UTF-8, with the byte length as Content-Length', async () => {
    const vtt = await get(pathOf(timed.id, 'vtt'));
    expect([vtt.status, vtt.headers.get('content-type')]).toEqual([200, 'text/vtt; charset=utf-8']);
    const vttText = await vtt.text();
    expect(vttText).toBe(renderWebVtt(file));
    expect(vttText.startsWith('WEBVTT\n\n1\n00:00:00.000 --> ')).toBe(true);
    expect(vttText).toContain('&lt;b&gt;bold&lt;/b&gt; &amp;');
    expect(Number(vtt.headers.get('content-length'))).toBe(Buffer.byteLength(vttText));
    const srt = await get(pathOf(timed.id, 'srt'));
    expect([srt.status, srt.headers.get('content-type')]).toEqual([200, 'application/x-subrip; charset=utf-8']);
    const srtText = await srt.text();
    expect(srtText).toBe(renderSrt(file));
    expect(srtText).toMatch(/^1\n00:00:00,000 --> \d\d:\d\d:\d\d,\d{3}\nÜnïcödé/);
    expect(srt.headers.get('cache-control')).toBe(`private, max-age=${TTL_SECONDS - 1}`);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    for (const format of ['json', 'vtt', 'srt'] as const) {
      const full = await get(pathOf(timed.id, format));
      const head = await get(pathOf(timed.id, format), { method: 'HEAD' });
      expect([head.status, head.headers.get('content-type'), head.headers.get('content-length'), await head.text()]).toEqual([
        200,
        full.headers.get('content-type'),
        full.headers.get('content-length'),
        '',
      ]);
    }
  });

  /** The real local store, with the name of each of its calls noted. */
  function watched(): { audio: AudioStorage; calls: string[] } {
    const real = server.services.audio;
    const calls: string[] = [];
    const audio = Object.create(real) as AudioStorage;
    for (const name of ['readTimings', 'stat', 'open', 'putTimings'] as const) {
      const method = real[name].bind(real) as (...args: unknown[]) => Promise<unknown>;
      const noted = (...args: unknown[]) => {
        calls.push(`${name} ${String(args[2] ?? args[1])}`);
        return method(...args);
      };
      Object.assign(audio, { [name]: noted });
    }
    return { audio, calls };
  }

  it('answers HEAD from the stored files’ metadata only: no file is read, parsed or rendered', async () => {
    const { audio, calls } = watched();
    for (const format of ['json', 'vtt', 'srt'] as const) expect((await get(pathOf(timed.id, format), {}, T0 + 1_000)).status).toBe(200);
    calls.length = 0;
    for (const format of ['json', 'vtt', 'srt'] as const) {
      const head = await get(pathOf(timed.id, format), { method: 'HEAD' }, T0 + 1_000, audio);
      expect(head.status).toBe(200);
      expect(Number(head.headers.get('content-length'))).toBe((await server.services.audio.stat(timed.id, format))!.size);
    }
    expect(calls).toEqual(['stat json', 'stat vtt', 'stat srt']);
    // GET streams the stored file: never the whole read, never a rendering.
    const vtt = await get(pathOf(timed.id, 'vtt'), {}, T0 + 1_000, audio);
    expect(await vtt.text()).toBe(renderWebVtt(file));
    expect(calls.slice(3)).toEqual(['stat vtt', 'open vtt']);
  });

  it('renders the captions of a job whose WebVTT and SRT were never stored once, on the first request, and stores them', async () => {
    const { store } = server.services;
    const legacy = newJob(timed.accountId, { timestamps: 'word', text: TEXT, deleteAfter: Date.now() + 86_400_000 });
    await store.createJob(legacy, 1_000_000);
    await store.completeJob(legacy.id, { durationSeconds: 4, fileSizeBytes: 1, completedAt: T0, processingTimeMs: 1, chargedCentiminutes: 7 });
    const legacyFile = timingsOf(legacy, 4);
    await server.services.audio.putTimings(legacy.id, new TextEncoder().encode(JSON.stringify(legacyFile)));
    expect(await server.services.audio.stat(legacy.id, 'vtt')).toBeUndefined();
    const { audio, calls } = watched();
    // Five at once to one server, as a page's players might: one rendering between them.
    now = T0 + 1_000;
    const one = app(audio);
    const answers = await Promise.all(Array.from({ length: 5 }, () => one.request(pathOf(legacy.id, 'vtt'))));
    for (const res of answers) expect(await res.text()).toBe(renderWebVtt(legacyFile));
    expect(calls.filter((c) => c.startsWith('readTimings') || c.startsWith('putTimings'))).toEqual(['readTimings json', 'putTimings vtt']);
    expect(new TextDecoder().decode(await server.services.audio.readTimings(legacy.id, 'vtt'))).toBe(renderWebVtt(legacyFile));
    const srt = await get(pathOf(legacy.id, 'srt'), { method: 'HEAD' }, T0 + 1_000);
    expect(Number(srt.headers.get('content-length'))).toBe(Buffer.byteLength(renderSrt(legacyFile)));
    expect(new TextDecoder().decode(await server.services.audio.readTimings(legacy.id, 'srt'))).toBe(renderSrt(legacyFile));
  });

  it('answers tampered, moved, expired and another format’s signature alike: 404 NOT_FOUND with one message', async () => {
    const url = new URL(`http://x${pathOf(timed.id, 'vtt')}`);
    const sig = url.searchParams.get('sig')!;
    const tampered = new URL(url);
    tampered.searchParams.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    for (const href of [tampered, later]) await expectInvalid(await get(`${href.pathname}${href.search}`));
    // The signature of .vtt opens neither .srt nor .json; the audio URL's opens no captions.
    await expectInvalid(await get(pathOf(timed.id, 'vtt').replace('.vtt?', '.srt?')));
    await expectInvalid(await get(pathOf(timed.id, 'vtt').replace('.vtt?', '.json?')));
    const audio = new URL(signer.sign('http://x', timed.id, T0));
    await expectInvalid(await get(`/v1/captions/${timed.id}.vtt${audio.search}`));
    // The signature's last moment, then the next: no waiting, the clock moves.
    expect((await get(pathOf(timed.id, 'vtt'), {}, T0 + TTL_SECONDS * 1000 - 1)).status).toBe(200);
    await expectInvalid(await get(pathOf(timed.id, 'vtt'), {}, T0 + TTL_SECONDS * 1000));
  });

  it('answers an unknown job, a job that asked for none, one still running and timings that are gone alike', async () => {
    await expectInvalid(await get(pathOf(randomUUID(), 'json')));
    await expectInvalid(await get(pathOf(ids.plain, 'vtt')));
    await expectInvalid(await get(pathOf(ids.lost, 'srt')));
    await expectInvalid(await get(pathOf(ids.running, 'json')));
    // Deleted with the audio (retention): gone from then on.
    const { store, audio } = server.services;
    const gone = newJob(timed.accountId, { timestamps: 'word', deleteAfter: Date.now() + 86_400_000 });
    await store.createJob(gone, 1_000_000);
    await store.completeJob(gone.id, { durationSeconds: 1, fileSizeBytes: 1, completedAt: T0, processingTimeMs: 1, chargedCentiminutes: 2 });
    await audio.putTimings(gone.id, new TextEncoder().encode(JSON.stringify(timingsOf(gone, 1))));
    expect((await get(pathOf(gone.id, 'srt'))).status).toBe(200);
    await audio.delete(gone.id);
    await expectInvalid(await get(pathOf(gone.id, 'srt')));
  });

  it('names the fault of a malformed or cut-short URL, still 404; an unknown format or id is the one message', async () => {
    await expectInvalid(await get(pathOf(timed.id, 'vtt').replace('.vtt?', '.txt?')));
    await expectInvalid(await get(pathOf(timed.id, 'vtt').replace('.vtt?', '.VTT?')));
    await expectInvalid(await get(pathOf(timed.id, 'vtt').replace('.vtt?', '?')));
    await expectInvalid(await get(pathOf(timed.id, 'vtt').replace(timed.id, 'not-a-uuid')));
    await expectInvalid(
      await get(`/v1/captions/${timed.id}.vtt`),
      "This audio URL is malformed: its expires parameter is missing, and its sig parameter is missing. Use audio_url exactly as the job's answer gave it, or GET the job again for a fresh audio_url.",
    );
    await expectInvalid(
      await get(pathOf(timed.id, 'json').replace(/sig=.*/, 'sig=short')),
      expect.stringMatching(/^This audio URL is malformed: sig must be the 43-character/),
    );
  });

  it('answers 503 with Retry-After when the store cannot be reached, without its words', async () => {
    const real = server.services.audio;
    const refused = () => Promise.reject(new AudioStorageUnavailableError('connect ECONNREFUSED 10.0.0.9:9000'));
    const down: AudioStorage = Object.assign(Object.create(real) as AudioStorage, { readTimings: refused, stat: refused, open: refused });
    const res = await get(pathOf(timed.id, 'vtt'), {}, T0 + 1_000, down);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const body = await res.json();
    expect(body.error).toEqual({ code: 'INTERNAL_ERROR', message: AUDIO_STORE_UNREACHABLE_MESSAGE });
    expect(JSON.stringify(body)).not.toContain('10.0.0.9');
  });

  it('answers another method with 405 and Allow, OPTIONS with 204', async () => {
    const res = await get(pathOf(timed.id, 'vtt'), { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect((await res.json()).error.code).toBe('INVALID_REQUEST');
    const options = await get(pathOf(timed.id, 'vtt'), { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'GET, HEAD, OPTIONS']);
  });
});
