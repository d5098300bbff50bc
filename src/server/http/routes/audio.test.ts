import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InProcessServer } from '../../../../test/helpers/in-process.js';
import { createTestServices } from '../../../../test/helpers/test-services.js';
import { AUDIO_STORE_UNREACHABLE_MESSAGE, AUDIO_URL_INVALID_MESSAGE } from '@agent-tts/contract/errors.js';
import { AudioUrlSigner } from '../../domain/signing.js';
import { createLogger } from '../../log.js';
import { AudioStorageUnavailableError } from '../../ports/index.js';
import type { AudioStorage } from '../../domain/job-files.js';
import { createApp } from '../create-app.js';
import { registerAudioRoutes } from './audio.js';
import { SignedFiles } from '../../domain/signed-files.js';

const T0 = Date.UTC(2026, 3, 10, 12);
const TTL_SECONDS = 60;
const BYTES = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);

/**
 * GET /v1/audio/{job_id}.mp3 over the memory store and the real local audio directory, with a clock the
 * test moves: signature and legacy expiry are judged without waiting.
 */
describe('GET /v1/audio/{job_id}.mp3', () => {
  let server: InProcessServer;
  let now = T0;
  const clock = { now: () => now };
  const signer = new AudioUrlSigner('a'.repeat(32), TTL_SECONDS);
  let jobId: string;
  let legacyId: string;

  beforeAll(async () => {
    server = await createTestServices();
    const { accountId } = await server.newKey();
    const importJob = async (expiresAt: number) => {
      const job = await server.admin.importLegacyJob({ accountId, keyPublicId: '0123abcd', expiresAt, voice: 'af_heart', speed: 1, language: 'en-US' });
      const writer = await server.services.audio.createWriter(job.id);
      await writer.write(BYTES);
      await writer.commit();
      return job.id;
    };
    // Audio that expires long after the signatures do, and a legacy file that expires in 30 s.
    jobId = await importJob(T0 + 86_400_000);
    legacyId = await importJob(T0 + 30_000);
  });
  afterAll(async () => {
    await server?.close();
  });

  function app(audio: AudioStorage = server.services.audio) {
    const a = createApp({ log: createLogger('silent'), notFoundHint: 'none' });
    registerAudioRoutes(a, { files: new SignedFiles({ store: server.services.store, audio, signer, clock }), log: createLogger('silent') });
    return a;
  }
  const pathOf = (id: string) => {
    const url = new URL(signer.sign('http://x', id, T0));
    return `${url.pathname}${url.search}`;
  };
  /** A request at `at` on the route's clock (a second after the URLs were signed, unless told). */
  const get = (path: string, init: RequestInit = {}, at = T0 + 1_000) => {
    now = at;
    return app().request(path, init);
  };

  async function expectInvalid(res: Response, message: unknown = AUDIO_URL_INVALID_MESSAGE) {
    expect(res.status).toBe(404);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect((await res.json()).error).toEqual({ code: 'NOT_FOUND', message });
  }

  it('serves the file under a valid signature without a key: MP3, ranges accepted, cached until the URL expires', async () => {
    const res = await get(pathOf(jobId));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(BYTES.length));
    expect(res.headers.get('cache-control')).toBe(`private, max-age=${TTL_SECONDS - 1}`);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(BYTES);
    const head = await get(pathOf(jobId), { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([200, String(BYTES.length), '']);
  });

  it('answers tampered, moved, foreign and expired URLs alike: 404 NOT_FOUND with one message', async () => {
    const url = new URL(`http://x${pathOf(jobId)}`);
    const sig = url.searchParams.get('sig')!;
    const tampered = new URL(url);
    tampered.searchParams.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    for (const href of [tampered, later]) await expectInvalid(await get(`${href.pathname}${href.search}`));
    await expectInvalid(await get(pathOf(jobId).replace(jobId, '00000000-0000-4000-8000-000000000000')));
    // The signature's last moment, then the next: no waiting, the clock moves.
    expect((await get(pathOf(jobId), {}, T0 + TTL_SECONDS * 1000 - 1)).status).toBe(200);
    await expectInvalid(await get(pathOf(jobId), {}, T0 + TTL_SECONDS * 1000));
  });

  it('refuses a legacy file once its expiry has passed, even under a valid signature', async () => {
    expect((await get(pathOf(legacyId), {}, T0 + 29_999)).status).toBe(200);
    await expectInvalid(await get(pathOf(legacyId), {}, T0 + 30_000));
  });

  it('names the fault of a malformed or cut-short URL, still 404', async () => {
    await expectInvalid(await get(pathOf(jobId).replace('.mp3', '.wav')));
    await expectInvalid(await get(pathOf(jobId).replace(jobId, 'not-a-uuid')));
    await expectInvalid(
      await get(`/v1/audio/${jobId}.mp3`),
      "This audio URL is malformed: its expires parameter is missing, and its sig parameter is missing. Use audio_url exactly as the job's answer gave it, or GET the job again for a fresh audio_url.",
    );
    await expectInvalid(
      await get(pathOf(jobId).replace(/sig=.*/, 'sig=short')),
      expect.stringMatching(/^This audio URL is malformed: sig must be the 43-character/),
    );
  });

  it('serves one byte range with 206; 416 with Content-Range past the end; the whole file for a Range it ignores', async () => {
    const range = await get(pathOf(jobId), { headers: { range: 'bytes=100-199' } });
    expect([range.status, range.headers.get('content-range'), range.headers.get('content-length')]).toEqual([206, 'bytes 100-199/1000', '100']);
    expect(new Uint8Array(await range.arrayBuffer())).toEqual(BYTES.slice(100, 200));
    const suffix = await get(pathOf(jobId), { headers: { range: 'bytes=-10' } });
    expect(new Uint8Array(await suffix.arrayBuffer())).toEqual(BYTES.slice(-10));
    const outside = await get(pathOf(jobId), { headers: { range: 'bytes=1000-' } });
    expect([outside.status, outside.headers.get('content-range')]).toEqual([416, 'bytes */1000']);
    expect((await outside.json()).error).toEqual({ code: 'INVALID_REQUEST', message: 'The requested range is not within the file of 1000 bytes.' });
    for (const ignored of ['bytes=100-50', 'bytes=0-1,5-6', 'items=0-1']) {
      const res = await get(pathOf(jobId), { headers: { range: ignored } });
      expect([res.status, (await res.arrayBuffer()).byteLength]).toEqual([200, 1000]);
    }
  });

  it('answers 503 with Retry-After when the audio store cannot be reached, without its words', async () => {
    const real = server.services.audio;
    const down: AudioStorage = Object.assign(Object.create(real) as AudioStorage, {
      stat: () => Promise.reject(new AudioStorageUnavailableError('connect ECONNREFUSED 10.0.0.9:9000')),
    });
    now = T0 + 1_000;
    const res = await app(down).request(pathOf(jobId));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const body = await res.json();
    expect(body.error).toEqual({ code: 'INTERNAL_ERROR', message: AUDIO_STORE_UNREACHABLE_MESSAGE });
    expect(JSON.stringify(body)).not.toContain('10.0.0.9');
  });

  it('answers another method with 405 and Allow', async () => {
    const res = await get(pathOf(jobId), { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});
