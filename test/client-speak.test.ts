import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MPEGDecoder } from 'mpg123-decoder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentTtsClient, AgentTtsError, type ProgressEvent } from '../src/client/index.js';
import { downloadCaptionsToFile, downloadToFile } from '../src/client/node.js';
import { renderSrt, renderWebVtt, timingsProblems } from '../src/contract/captions.js';
import { cueProblems, parseCaptions } from './helpers/captions.js';
import { listen, type ListeningServer } from './helpers/in-process.js';

/** Decodes an MP3 and measures it: a file that only looks like MP3 fails here. */
async function measureMp3(bytes: Uint8Array): Promise<{ seconds: number; nonZero: number; errors: number }> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const decoded = decoder.decode(bytes);
    let nonZero = 0;
    for (const channel of decoded.channelData) for (const sample of channel) if (sample !== 0) nonZero++;
    return { seconds: decoded.samplesDecoded / decoded.sampleRate, nonZero, errors: decoded.errors.length };
  } finally {
    decoder.free();
  }
}

describe('typed client against the reference server', () => {
  let server: ListeningServer;
  let dir: string;
  beforeAll(async () => {
    server = await listen();
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-client-'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('speak returns a completed job whose audio downloads as playable MP3 of the reported length', async () => {
    const client = new AgentTtsClient({ baseUrl: server.baseUrl, apiKey: server.fixtures.keys.active[0]! });
    const job = await client.speak({ text: 'The quick brown fox jumps over the lazy dog.', voice: 'st_f1', speed: 1.0, language: 'en' });
    expect(job.status).toBe('completed');
    expect(job.audio.voice).toBe('st_f1');
    expect(job.audio.speed).toBe(1.0);
    const path = join(dir, 'fox.mp3');
    const saved = await downloadToFile(client, job, path);
    const bytes = new Uint8Array(await readFile(path));
    expect(saved.bytes).toBe(bytes.length);
    const audio = await measureMp3(bytes);
    expect(audio.errors).toBe(0);
    expect(audio.nonZero).toBeGreaterThan(1000);
    expect(job.audio.duration_seconds).toBeGreaterThan(0.5);
    expect(Math.abs(audio.seconds - job.audio.duration_seconds!)).toBeLessThan(Math.max(0.15, job.audio.duration_seconds! * 0.05));
    // No temporary file is left beside the result.
    expect((await readdir(dir)).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('download fetches a fresh URL when the signed one is refused', async () => {
    const client = new AgentTtsClient({ baseUrl: server.baseUrl, apiKey: server.fixtures.keys.active[1]! });
    const job = await client.speak({ text: 'A URL with a broken signature.' });
    const tampered = { ...job, audio_url: job.audio_url.replace(/sig=[^&]+/, `sig=${'A'.repeat(43)}`) };
    // A bare URL has no job to ask: the plain NOT_FOUND of the audio route, never an authentication error.
    await expect(client.download(tampered.audio_url)).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      message: expect.stringMatching(/not valid or has expired/),
    });
    const bytes = await client.download(tampered);
    expect((await measureMp3(bytes)).nonZero).toBeGreaterThan(0);
  });

  it('speak with timestamps "word" gives timings whose captions download, a refused caption URL refreshed once', async () => {
    const client = new AgentTtsClient({ baseUrl: server.baseUrl, apiKey: server.fixtures.keys.active[3]! });
    const text = 'Word timings from the typed client. A second sentence follows.';
    const job = await client.speak({ text, voice: 'st_m1', speed: 1.0, timestamps: 'word' });
    expect(job.timings).toMatchObject({ granularity: 'word' });
    const file = await client.downloadCaptions(job, 'json');
    expect(timingsProblems(text, file, 'en')).toEqual([]);
    expect(file.job_id).toBe(job.job_id);
    const vtt = await client.downloadCaptions(job, 'vtt');
    expect(vtt).toBe(renderWebVtt(file));
    expect(cueProblems(parseCaptions(vtt, 'vtt'), text, job.audio.duration_seconds!)).toEqual([]);
    expect(await client.downloadCaptions(job, 'srt')).toBe(renderSrt(file));
    // A tampered URL: refused (404) when given bare; given the job, the client asks it for a fresh one.
    const tampered = { ...job, timings: { ...job.timings!, vtt_url: job.timings!.vtt_url.replace(/sig=[^&]+/, `sig=${'A'.repeat(43)}`) } };
    await expect(client.downloadCaptions(tampered.timings.vtt_url, 'vtt')).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(await client.downloadCaptions(tampered, 'vtt')).toBe(vtt);
    // Saved to a file through a temporary one.
    const path = join(dir, 'words.vtt');
    expect(await downloadCaptionsToFile(client, job, 'vtt', path)).toEqual({ path, bytes: Buffer.byteLength(vtt) });
    expect(await readFile(path, 'utf8')).toBe(vtt);
  });

  it('getJob of an unknown id is NOT_FOUND with a request id and the suggested action', async () => {
    const client = new AgentTtsClient({ baseUrl: server.baseUrl, apiKey: server.fixtures.keys.active[2]! });
    const error = (await client.getJob('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e)) as AgentTtsError;
    expect(error).toBeInstanceOf(AgentTtsError);
    expect(error.code).toBe('NOT_FOUND');
    expect(error.status).toBe(404);
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.suggestedAction).toBe('Check the job id.');
  });

  it('a revoked key is INVALID_KEY, not retried', async () => {
    const client = new AgentTtsClient({ baseUrl: server.baseUrl, apiKey: server.fixtures.keys.revoked! });
    const error = (await client.submit({ text: 'Hello' }).catch((e: unknown) => e)) as AgentTtsError;
    expect(error.code).toBe('INVALID_KEY');
    expect(error.attempts).toBe(1);
  });

  it('lists the public voice catalog', async () => {
    const client = new AgentTtsClient({ voicesUrl: server.voicesUrl });
    const catalog = await client.listVoices();
    expect(catalog.count).toBe(catalog.voices.length);
    expect(catalog.voices.find((v) => v.id === 'st_m1')).toMatchObject({ family: 'supertonic', gender: 'male', curated: true });
  });
});

describe('typed client on the 202 path', () => {
  let server: ListeningServer;
  beforeAll(async () => {
    server = await listen({ INLINE_WAIT_MS: '1' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('submit answers processing; speak polls it to completion with progress', async () => {
    const client = new AgentTtsClient({ baseUrl: server.baseUrl, apiKey: server.fixtures.keys.active[0]! });
    const first = await client.submit({ text: 'This request is answered with 202 and polled.' });
    expect(first.job.status).toBe('processing');
    if (first.job.status !== 'processing') return;
    expect(first.job.status_url).toBe(`/v1/agent-tts?id=${first.job.job_id}`);

    // The same key again is the same job (and no second POST of the bucket is used).
    const events: ProgressEvent[] = [];
    const job = await client.speak(
      { text: 'This request is answered with 202 and polled.' },
      {
        idempotencyKey: first.idempotencyKey,
        onProgress: (e) => events.push(e),
      },
    );
    expect(job.job_id).toBe(first.job.job_id);
    expect(job.audio_url).toMatch(/^http/);
    expect(events.at(-1)).toMatchObject({ status: 'completed', jobId: job.job_id, percent: 100 });
    const bytes = await client.download(job);
    expect((await measureMp3(bytes)).nonZero).toBeGreaterThan(0);
  });
});
