import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, decodeMp3, expectError, expectMeta, fetchOf, getJob, longText, pollUntilDone, postJob, sleep } from '../../../../test/helpers/http.js';
import { rms } from '../../../../test/helpers/audio.js';
import { startInProcessHttp, type SeededServer } from '../../../../test/helpers/in-process.js';
import { AUDIO_URL_INVALID_MESSAGE } from '@agent-tts/contract/errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('jobs: inline 200, 202 and polling, audio URLs (docs/api-rules.md#job-statuses, §4.1, §4.2)', () => {
  let server: SeededServer;
  beforeAll(async () => {
    // The default inline wait (10 s); a short URL lifetime so expiry can be seen.
    server = await startInProcessHttp({ AUDIO_URL_TTL_SECONDS: '3' });
  });
  afterAll(async () => {
    await server.close();
  });

  // biome-ignore lint/suspicious/noExplicitAny: the completed job's JSON answer, read field by field by the later tests
  let completed: any;

  it('completes a short text inline: 200 with audio_url, audio, billing and meta', async () => {
    const key = server.fixtures.keys.active[0]!;
    const res = await postJob(server.baseUrl, key, { text: 'The quick brown fox jumps over the lazy dog.', voice: 'bf_emma', speed: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    completed = res.body;
    expect(res.body).toMatchObject({ success: true, status: 'completed' });
    expect(res.body.job_id).toMatch(UUID);
    expect(res.body.audio_url).toMatch(new RegExp(`^${server.baseUrl}/v1/audio/${res.body.job_id}\\.mp3\\?expires=\\d+&sig=`));
    expect(res.body.audio).toMatchObject({ format: 'mp3', voice: 'bf_emma', speed: 1, language: 'en-GB' });
    expect(res.body.audio.duration_seconds).toBeGreaterThan(1);
    expect(res.body.audio).not.toHaveProperty('expires_at');
    expect(res.body.audio).not.toHaveProperty('file_size_bytes');
    const minutes = Math.ceil((res.body.audio.duration_seconds / 60) * 100) / 100;
    expect(res.body.billing).toEqual({
      mode: 'subscription',
      estimated_cost_cents: 0,
      monthly_minutes_used: minutes,
      monthly_minutes_limit: 3000,
      monthly_minutes_remaining: Math.round((3000 - minutes) * 100) / 100,
    });
    expectMeta(res);
    expect(res.body.meta.processing_time_ms).toBeGreaterThanOrEqual(0);
    expect(res.headers.get('ratelimit-policy')).toBe('"post";q=1;w=60');
  });

  it('serves the audio URL as MP3 whose decoded duration matches audio.duration_seconds', async () => {
    const res = await fetchOf(completed.audio_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    const decoded = await decodeMp3(bytes);
    expect(Math.abs(decoded.seconds - completed.audio.duration_seconds) / completed.audio.duration_seconds).toBeLessThan(0.02);
    expect(rms(decoded.samples)).toBeGreaterThan(0.01);

    const range = await fetchOf(completed.audio_url, { headers: { range: 'bytes=100-199' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
    expect(new Uint8Array(await range.arrayBuffer())).toEqual(bytes.slice(100, 200));
    const suffix = await fetchOf(completed.audio_url, { headers: { range: 'bytes=-10' } });
    expect(new Uint8Array(await suffix.arrayBuffer())).toEqual(bytes.slice(-10));
    const outside = await call(completed.audio_url, { headers: { range: `bytes=${bytes.length}-` } });
    expect(outside.status).toBe(416);
    expect(outside.body.error.code).toBe('INVALID_REQUEST');
  });

  it('answers tampered, expired and foreign audio URLs alike: 404 NOT_FOUND with one message', async () => {
    const invalid = async (href: string) => {
      const res = await call(href);
      expectError(res, 404, 'NOT_FOUND');
      expect(res.body.error.message).toBe(AUDIO_URL_INVALID_MESSAGE);
      expect(res.headers.get('www-authenticate')).toBeNull();
    };
    const url = new URL(completed.audio_url);
    const sig = url.searchParams.get('sig')!;
    url.searchParams.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
    await invalid(url.toString());
    const later = new URL(completed.audio_url);
    later.searchParams.set('expires', String(Number(later.searchParams.get('expires')) + 3600));
    await invalid(later.toString());
    await invalid(completed.audio_url.replace(completed.job_id, '00000000-0000-4000-8000-000000000000'));
    await sleep(4000); // AUDIO_URL_TTL_SECONDS=3
    await invalid(completed.audio_url);
  });

  it('GET of a completed job answers as the POST did, with a freshly signed URL', async () => {
    const res = await getJob(server.baseUrl, server.fixtures.keys.active[0], completed.job_id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, status: 'completed', job_id: completed.job_id, audio: completed.audio });
    expect(res.body.audio_url).not.toBe(completed.audio_url);
    expect((await fetchOf(res.body.audio_url)).status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('"get";q=30;w=60');
  });

  it('answers 202 for a text that outlasts the inline wait, then polling reaches completed', async () => {
    // A server whose inline wait is zero: every job takes the job path, however fast the machine.
    const jobPath = await startInProcessHttp({ INLINE_WAIT_MS: '0' });
    try {
      await answers202ThenCompletes(jobPath);
    } finally {
      await jobPath.close();
    }
  });

  async function answers202ThenCompletes(server: SeededServer): Promise<void> {
    const key = server.fixtures.keys.active[1]!;
    const res = await postJob(server.baseUrl, key, { text: longText(150), voice: 'st_m2', language: 'de' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ success: true, status: 'processing', status_url: `/v1/agent-tts?id=${res.body.job_id}` });
    expect(res.body.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(res.body.retry_after_seconds).toBeLessThanOrEqual(30);
    expect(res.body.meta).not.toHaveProperty('processing_time_ms');
    expectMeta(res);

    const polled = await getJob(server.baseUrl, key, res.body.job_id);
    expect(polled.status).toBe(200);
    if (polled.body.status === 'processing') {
      expect(polled.body.progress_percent).toBeGreaterThanOrEqual(0);
      expect(polled.body.retry_after_seconds).toBeGreaterThanOrEqual(1);
    }
    const done = await pollUntilDone(server.baseUrl, key, res.body.job_id);
    expect(done.body).toMatchObject({ status: 'completed', audio: { voice: 'st_m2', language: 'de', speed: 1.2 } });
    const audio = await decodeMp3(new Uint8Array(await (await fetchOf(done.body.audio_url)).arrayBuffer()));
    expect(Math.abs(audio.seconds - done.body.audio.duration_seconds) / audio.seconds).toBeLessThan(0.02);
  }

  it('answers NOT_FOUND alike for unknown ids and another account’s job; INVALID_REQUEST for a bad id', async () => {
    const other = server.fixtures.keys.active[2]!;
    const foreign = await getJob(server.baseUrl, other, completed.job_id);
    const unknown = await getJob(server.baseUrl, other, '6f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f');
    expectError(foreign, 404, 'NOT_FOUND');
    expectError(unknown, 404, 'NOT_FOUND');
    expect(foreign.body.error).toEqual(unknown.body.error);
    for (const bad of ['', 'abc', '6f1c2d4e5a6b4c7d8e9f0a1b2c3d4e5f']) expectError(await getJob(server.baseUrl, other, bad), 400, 'INVALID_REQUEST');
    expectError(await call(`${server.baseUrl}/v1/agent-tts`, { headers: { authorization: `Bearer ${other}` } }), 400, 'INVALID_REQUEST');
  });

  it('answers a legacy job whose audio was deleted with status expired and FILE_EXPIRED (HTTP 200)', async () => {
    const { key, job_id } = server.fixtures.legacy_expired_job!;
    const res = await getJob(server.baseUrl, key, job_id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, status: 'expired', job_id, error: { code: 'FILE_EXPIRED' } });
    expectMeta(res);
  });

  it('shows expires_at and file_size_bytes on a legacy job that has not expired yet', async () => {
    const account = JSON.parse((await server.admin(['account', 'create', '--name', 'legacy', '--json'])).stdout);
    const key = (await server.admin(['key', 'create', '--account', account.id])).stdout.trim();
    const audio = new Uint8Array(
      await (await fetchOf((await getJob(server.baseUrl, server.fixtures.keys.active[0], completed.job_id)).body.audio_url)).arrayBuffer(),
    );
    const { writeFile } = await import('node:fs/promises');
    const file = `${server.dataDir}/legacy.mp3`;
    await writeFile(file, audio);
    // Long enough that the checks below finish before it, even on a busy machine.
    const expiresAtMs = Date.now() + 12_000;
    const expiresAt = new Date(expiresAtMs).toISOString();
    const imported = await server.admin(['job', 'import-legacy', '--account', account.id, '--expires-at', expiresAt, '--audio', file, '--json']);
    const jobId = JSON.parse(imported.stdout).job_id;
    const live = await getJob(server.baseUrl, key, jobId);
    expect(live.body).toMatchObject({ status: 'completed', audio: { expires_at: expiresAt, file_size_bytes: audio.length } });
    expect((await fetchOf(live.body.audio_url)).status).toBe(200);
    await sleep(Math.max(0, expiresAtMs - Date.now()) + 500);
    const expired = await getJob(server.baseUrl, key, jobId);
    expect(expired.body).toMatchObject({ status: 'expired', error: { code: 'FILE_EXPIRED' } });
    expect((await fetchOf(live.body.audio_url)).status).not.toBe(200);
  });
});
