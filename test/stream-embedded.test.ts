import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIO_URL_INVALID_MESSAGE } from '@agent-tts/contract/errors.js';
import { call, decodeMp3, getJob, longText, pollUntilDone, postJob } from './helpers/http.js';
import { listen, type ListeningServer } from './helpers/in-process.js';

/** Every byte of a response body, with when each arrived (ms since `since`); rejects when the body ends abnormally. */
async function readAll(res: Response, since: number, onChunk?: (total: number) => void | Promise<void>): Promise<{ bytes: Uint8Array; at: number[] }> {
  if (!res.body) throw new Error('no body');
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  const at: number[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
    at.push(performance.now() - since);
    await onChunk?.(total);
  }
  return { bytes: Buffer.concat(chunks), at };
}

const TEXT_60K = longText(800).slice(0, 60_000);

/**
 * The stream URL of a processing job on the embedded server, over TCP (docs/api-rules.md#streaming-audio):
 * real synthesis, real SQLite, the bytes decoded as MP3.
 */
describe('streaming audio while a job runs (embedded)', () => {
  let server: ListeningServer;
  let key: string;
  beforeAll(async () => {
    server = await listen({ RATE_POST_LIMIT: '1000', RATE_GET_LIMIT: '1000', INLINE_WAIT_MS: '0' });
    key = server.fixtures.keys.active[0] ?? '';
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  it('a 60,000-character job: 50 KB of MP3 within 5 s of the 202 while it is processing, and at the end exactly the bytes of audio_url', async () => {
    expect(TEXT_60K.length).toBe(60_000);
    const posted = await postJob(server.baseUrl, key, { text: TEXT_60K });
    const t0 = performance.now();
    expect(posted.status).toBe(202);
    const streamUrl: string = posted.body.stream_url;
    expect(streamUrl).toMatch(new RegExp(`^${server.baseUrl}/v1/stream/${posted.body.job_id}\\.mp3\\?expires=\\d+&sig=[A-Za-z0-9_-]{43}$`));

    const res = await fetch(streamUrl);
    expect([res.status, res.headers.get('content-type'), res.headers.get('transfer-encoding'), res.headers.get('content-length')]).toEqual([
      200,
      'audio/mpeg',
      'chunked',
      null,
    ]);
    // When 50 KB had arrived, and what a poll said then.
    const mark: { at50k?: { ms: number; status: string } } = {};
    const streamed = await readAll(res, t0, async (total) => {
      if (!mark.at50k && total >= 50_000) {
        const ms = performance.now() - t0;
        mark.at50k = { ms, status: (await getJob(server.baseUrl, key, posted.body.job_id)).body.status };
      }
    });
    const { at50k } = mark;
    if (!at50k) throw new Error(`the stream ended after ${streamed.bytes.byteLength} bytes`);
    expect(at50k.status).toBe('processing');
    expect(at50k.ms).toBeLessThan(5000);
    const [first, last] = [streamed.at[0] ?? Number.NaN, streamed.at.at(-1) ?? Number.NaN];
    console.log(
      `stream: 50 KB at ${Math.round(at50k.ms)} ms after the 202; first byte at ${Math.round(first)} ms; ${streamed.bytes.byteLength} bytes in ${Math.round(last)} ms`,
    );

    const done = await pollUntilDone(server.baseUrl, key, posted.body.job_id);
    expect(done.body.status).toBe('completed');
    const file = new Uint8Array(await (await fetch(done.body.audio_url)).arrayBuffer());
    expect(streamed.bytes.byteLength).toBe(file.byteLength);
    expect(Buffer.compare(streamed.bytes, file)).toBe(0);

    // A listener who joins after completion gets the file, from the stream URL of the 202.
    const late = await fetch(streamUrl);
    expect(late.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await late.arrayBuffer()), file)).toBe(0);

    // What had arrived 5 s after the 202 decodes as MP3 (the whole is the audio URL's file, byte for byte).
    const decoded = await decodeMp3(streamed.bytes.subarray(0, 50_000));
    expect(decoded.seconds).toBeGreaterThan(1);
  }, 240_000);

  it('every poll of a processing job carries a fresh stream_url; a listener joining late gets everything from byte 0, as does the first', async () => {
    const posted = await postJob(server.baseUrl, key, { text: longText(120) });
    expect(posted.status).toBe(202);
    const first = fetch(posted.body.stream_url).then((r) => readAll(r, 0));
    // Joins once some audio is out.
    let polled = await getJob(server.baseUrl, key, posted.body.job_id);
    while (polled.body.status === 'processing' && (polled.body.progress_percent ?? 0) < 20) {
      await new Promise((r) => setTimeout(r, 100));
      polled = await getJob(server.baseUrl, key, posted.body.job_id);
    }
    expect(polled.body.status).toBe('processing');
    expect(polled.body.stream_url).toMatch(/\/v1\/stream\//);
    const late = await readAll(await fetch(polled.body.stream_url), 0);
    const early = await first;
    const done = await pollUntilDone(server.baseUrl, key, posted.body.job_id);
    const file = Buffer.from(await (await fetch(done.body.audio_url)).arrayBuffer());
    expect(Buffer.compare(Buffer.from(early.bytes), file)).toBe(0);
    expect(Buffer.compare(Buffer.from(late.bytes), file)).toBe(0);
    expect(done.body.stream_url).toBeUndefined();
  }, 240_000);

  it('refuses a tampered, expired, malformed or other-URL signature with 404 NOT_FOUND, as the audio URL does', async () => {
    const posted = await postJob(server.baseUrl, key, { text: longText(40) });
    const url = new URL(posted.body.stream_url);
    const sig = url.searchParams.get('sig') ?? '';
    const expires = url.searchParams.get('expires') ?? '';
    const tampered = new URL(url);
    tampered.searchParams.set('sig', `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
    const expired = new URL(url);
    expired.searchParams.set('expires', String(Math.floor(Date.now() / 1000) - 10));
    const otherJob = new URL(url.href.replace(posted.body.job_id, '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f'));
    for (const refused of [tampered, expired, otherJob]) {
      const res = await call(refused.href);
      expect([res.status, res.body.error.code, res.body.error.message]).toEqual([404, 'NOT_FOUND', AUDIO_URL_INVALID_MESSAGE]);
      expect(res.body.meta.request_id).toBeTruthy();
    }
    const cut = await call(`${url.origin}${url.pathname}?expires=${expires}&sig=${sig.slice(0, 20)}`);
    expect([cut.status, cut.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect(cut.body.error.message).toMatch(/sig/);
    // The audio URL's signature does not open the stream, nor the stream's the audio.
    const done = await pollUntilDone(server.baseUrl, key, posted.body.job_id);
    const audioUrl = new URL(done.body.audio_url);
    const crossed = new URL(url);
    crossed.searchParams.set('sig', audioUrl.searchParams.get('sig') ?? '');
    crossed.searchParams.set('expires', audioUrl.searchParams.get('expires') ?? '');
    expect((await call(crossed.href)).status).toBe(404);
    const audioWithStreamSig = new URL(done.body.audio_url);
    audioWithStreamSig.searchParams.set('sig', sig);
    audioWithStreamSig.searchParams.set('expires', expires);
    expect((await call(audioWithStreamSig.href)).status).toBe(404);
  }, 120_000);
});
