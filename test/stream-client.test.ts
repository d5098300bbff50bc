import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentTtsClient } from '@agent-tts/client';
import { decodeMp3, longText } from './helpers/http.js';
import { listen, type ListeningServer } from './helpers/in-process.js';
import { ROOT } from './helpers/server.js';

const BIN = join(ROOT, 'src/client/bin/agent-tts.js');

/** Every byte of a web stream, and when the first arrived (performance.now()). */
async function drain(stream: ReadableStream<Uint8Array>): Promise<{ bytes: Buffer; firstAt: number }> {
  const chunks: Uint8Array[] = [];
  let firstAt = Number.NaN;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    if (chunks.length === 0) firstAt = performance.now();
    chunks.push(chunk);
  }
  return { bytes: Buffer.concat(chunks), firstAt };
}

/**
 * The typed client's `stream()` and the command line's `speak --stream -` against the embedded server
 * (docs/api-rules.md#streaming-audio): real synthesis, the audio arriving before the job is done.
 */
describe('streaming audio from the client and the command line', () => {
  let server: ListeningServer;
  let dir: string;
  let key: string;
  beforeAll(async () => {
    server = await listen({ RATE_POST_LIMIT: '1000', RATE_GET_LIMIT: '1000', INLINE_WAIT_MS: '0' });
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-stream-client-'));
    key = server.fixtures.keys.active[0] ?? '';
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('client.stream(job) gives the audio as it is made, before the job completes, ending with the bytes of audio_url', async () => {
    const client = new AgentTtsClient({ baseUrl: server.baseUrl, apiKey: key });
    const { job } = await client.submit({ text: longText(300) });
    expect(job.status).toBe('processing');
    const { bytes, firstAt } = await drain(await client.stream(job as { job_id: string; stream_url?: string }));
    const done = await client.poll(job.job_id);
    const completedSeen = performance.now();
    expect(firstAt).toBeLessThan(completedSeen);
    const file = Buffer.from(await client.download(done));
    expect(Buffer.compare(bytes, file)).toBe(0);
    expect((await decodeMp3(bytes.subarray(0, 40_000))).seconds).toBeGreaterThan(0.5);
    // A bare stream URL works as well; a job of a service without the extension is refused before any request.
    const polled = await client.getJob(job.job_id);
    expect(polled.status).toBe('completed');
    await expect(client.stream({ job_id: job.job_id })).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
  }, 180_000);

  it("speak()'s progress events carry each processing answer's stream_url as streamUrl, which plays the job", async () => {
    const client = new AgentTtsClient({ baseUrl: server.baseUrl, apiKey: key });
    const events: Array<{ status: string; streamUrl?: string }> = [];
    let streamed: Promise<{ bytes: Buffer; firstAt: number }> | undefined;
    const job = await client.speak(
      { text: longText(300) },
      {
        onProgress: (event) => {
          events.push({ status: event.status, streamUrl: event.streamUrl });
          // Played from the first event that has it, while the job is still being made.
          if (event.streamUrl && !streamed) streamed = client.stream(event.streamUrl).then(drain);
        },
      },
    );
    const processing = events.filter((e) => e.status === 'processing');
    expect(processing.length).toBeGreaterThanOrEqual(1);
    for (const e of processing) expect(e.streamUrl).toMatch(new RegExp(`^${server.baseUrl}/v1/stream/${job.job_id}\\.mp3\\?expires=\\d+&sig=`));
    expect(events.filter((e) => e.status === 'completed').map((e) => e.streamUrl)).toEqual([undefined]);
    const { bytes } = await (streamed ?? Promise.reject(new Error('no streamUrl in any progress event')));
    expect(Buffer.compare(bytes, Buffer.from(await client.download(job)))).toBe(0);
  }, 180_000);

  it('client.stream rejects a refused URL with NOT_FOUND', async () => {
    const client = new AgentTtsClient({ baseUrl: server.baseUrl, apiKey: key });
    const url = `${server.baseUrl}/v1/stream/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f.mp3?expires=9999999999&sig=${'A'.repeat(43)}`;
    await expect(client.stream(url)).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('agent-tts speak --stream - writes the MP3 to stdout as it arrives: the first bytes seconds before the end, the whole the audio file', async () => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'speak', '--stream', '-', longText(400)], {
      env: { PATH: process.env.PATH ?? '', AGENT_TTS_BASE_URL: server.baseUrl, AGENT_TTS_API_KEY: key, XDG_CONFIG_HOME: join(dir, 'config') },
      stdio: 'pipe',
    });
    const out: Buffer[] = [];
    let firstAt = Number.NaN;
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      if (out.length === 0) firstAt = performance.now() - started;
      out.push(d);
    });
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
    const endedAt = performance.now() - started;
    expect(code, stderr).toBe(0);
    const bytes = Buffer.concat(out);
    expect(stderr).toMatch(new RegExp(`^Streamed ${bytes.byteLength} bytes of audio to stdout\\. `));
    const jobId = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(stderr)?.[0] ?? '';
    const job = await new AgentTtsClient({ baseUrl: server.baseUrl, apiKey: key }).getJob(jobId);
    if (job.status !== 'completed') throw new Error(`job ${jobId} is ${job.status}`);
    const file = Buffer.from(await (await fetch(job.audio_url)).arrayBuffer());
    expect(Buffer.compare(bytes, file)).toBe(0);
    console.log(`speak --stream -: first stdout bytes at ${Math.round(firstAt)} ms, exit at ${Math.round(endedAt)} ms, ${bytes.byteLength} bytes`);
    expect(endedAt - firstAt).toBeGreaterThan(2000);
  }, 180_000);

  it('agent-tts speak --stream - refuses --json and -o before sending anything', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number; said: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'speak', ...args], {
          env: { PATH: process.env.PATH ?? '', AGENT_TTS_BASE_URL: server.baseUrl, AGENT_TTS_API_KEY: key, XDG_CONFIG_HOME: join(dir, 'config') },
          stdio: 'pipe',
        });
        // With --json the refusal is the JSON answer on stdout; otherwise a line on stderr.
        let said = '';
        child.stdout.on('data', (d) => (said += d));
        child.stderr.on('data', (d) => (said += d));
        child.on('close', (c) => resolve({ code: c ?? -1, said }));
      });
    for (const args of [
      ['--stream', '-', '--json', 'Hi.'],
      ['--stream', '-', '-o', join(dir, 'x.mp3'), 'Hi.'],
    ]) {
      const result = await run(args);
      expect(result.code).toBe(2);
      expect(result.said).toMatch(/--stream/);
    }
  }, 60_000);
});
