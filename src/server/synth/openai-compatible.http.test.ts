import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMp3, expectError, getJob, postJob } from '../../../test/helpers/http.js';
import { rms } from '../../../test/helpers/audio.js';
import { listen, type ListeningServer } from '../../../test/helpers/in-process.js';

/**
 * The `openai-compatible` engine against a speech server that speaks `POST /v1/audio/speech`:
 * Kokoro voices go to one server that answers 16-bit PCM at 24 kHz, Supertonic voices to one that
 * always fails, so a failed job shows the error path end to end.
 */
function speechServer(behaviour: 'ok' | 'fail'): Promise<{ url: string; server: Server; requests: unknown[] }> {
  const requests: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/audio/speech') {
        res.writeHead(404).end();
        return;
      }
      const parsed = JSON.parse(body) as { input: string; speed: number };
      requests.push(parsed);
      if (behaviour === 'fail') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"model crashed"}');
        return;
      }
      // A 220 Hz tone, 60 ms per character at speed 1.
      const samples = Math.round((24_000 * 0.06 * parsed.input.length) / parsed.speed);
      const pcm = Buffer.alloc(samples * 2);
      for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 220 * i) / 24_000) * 12_000), i * 2);
      res.writeHead(200, { 'content-type': 'audio/pcm' }).end(pcm);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, requests })),
  );
}

describe('upstream engine (openai-compatible): completed and failed jobs end to end', () => {
  let server: ListeningServer;
  let good: Awaited<ReturnType<typeof speechServer>>;
  let bad: Awaited<ReturnType<typeof speechServer>>;
  beforeAll(async () => {
    good = await speechServer('ok');
    bad = await speechServer('fail');
    server = await listen({
      TTS_ENGINE: 'openai-compatible',
      UPSTREAM_KOKORO_URL: good.url,
      UPSTREAM_SUPERTONIC_URL: bad.url,
      UPSTREAM_API_KEY: 'upstream-secret-value-123',
      RATE_POST_LIMIT: '10',
    });
  });
  afterAll(async () => {
    await server.close();
    good.server.close();
    bad.server.close();
  });

  it('completes a job through the upstream server', async () => {
    const res = await postJob(server.baseUrl, server.fixtures.keys.active[0], { text: 'Hello upstream.', speed: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(good.requests[0]).toMatchObject({ input: 'Hello upstream.', voice: 'af_heart', speed: 1, response_format: 'pcm' });
    const audio = await decodeMp3(new Uint8Array(await (await fetch(res.body.audio_url)).arrayBuffer()));
    expect(audio.seconds).toBeGreaterThan(0.8);
    expect(Math.abs(audio.seconds - res.body.audio.duration_seconds) / audio.seconds).toBeLessThan(0.02);
    expect(rms(audio.samples)).toBeGreaterThan(0.1);
  });

  it('answers 502 TTS_PROVIDER_ERROR asking for a new Idempotency-Key; GET shows the failed job; nothing is charged', async () => {
    const key = server.fixtures.keys.active[1];
    const res = await postJob(server.baseUrl, key, { text: 'This will fail.', voice: 'st_f1' }, { 'idempotency-key': 'fails' });
    expectError(res, 502, 'TTS_PROVIDER_ERROR');
    expect(res.body.error.message).toMatch(/new Idempotency-Key/);
    expect(bad.requests.length).toBeGreaterThan(1); // transient 500s were retried
    expect(JSON.stringify(res.body)).not.toContain('upstream-secret-value-123');
    expect(server.logs()).not.toContain('upstream-secret-value-123');

    const replay = await postJob(server.baseUrl, key, { text: 'This will fail.', voice: 'st_f1' }, { 'idempotency-key': 'fails' });
    expectError(replay, 502, 'TTS_PROVIDER_ERROR');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    expect(replay.body.error.details).toEqual({ job_id: res.body.error.details.job_id });
    const failedId = res.body.error.details.job_id;
    const status = await getJob(server.baseUrl, key, failedId);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ success: false, status: 'failed', job_id: failedId, error: { code: 'TTS_PROVIDER_ERROR' } });
    expect(status.body.meta.api_version).toBe('2026-04');

    // The reservation was released: the account's next job is billed for itself alone.
    const next = await postJob(server.baseUrl, key, { text: 'Ok.', speed: 1 });
    expect(next.status).toBe(200);
    expect(next.body.billing.monthly_minutes_used).toBe(Math.ceil((next.body.audio.duration_seconds / 60) * 100) / 100);
  });
});

describe('upstream engine with one voice family configured', () => {
  let server: ListeningServer;
  let good: Awaited<ReturnType<typeof speechServer>>;
  beforeAll(async () => {
    good = await speechServer('ok');
    server = await listen({ TTS_ENGINE: 'openai-compatible', UPSTREAM_KOKORO_URL: good.url, RATE_POST_LIMIT: '1' });
  });
  afterAll(async () => {
    await server.close();
    good.server.close();
  });

  it('refuses a voice of the family with no speech server at submission, and lists only the offered voices', async () => {
    const key = server.fixtures.keys.active[0];
    const refused = await postJob(server.baseUrl, key, { text: 'Hello.', voice: 'st_f1' });
    expectError(refused, 400, 'INVALID_REQUEST');
    expect(refused.body.error.message).toMatch(/st_f1.*not available.*supertonic/);
    expect(good.requests).toHaveLength(0);
    // Nothing was created or counted: the one POST of the window is still there for a voice it offers.
    const ok = await postJob(server.baseUrl, key, { text: 'Hello.', voice: 'af_bella', speed: 1 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const catalog = (await (await fetch(`${server.voicesUrl}/api/v1/voices`)).json()) as { voices: { id: string; family: string }[] };
    expect(catalog.voices.some((v) => v.id === 'af_bella')).toBe(true);
    expect(catalog.voices.some((v) => v.family === 'supertonic')).toBe(false);
  });
});
