import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MPEGDecoder } from 'mpg123-decoder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentTtsClient } from '../src/client/client.js';
import { AgentTtsError } from '../src/client/errors.js';
import { renderSrt, renderWebVtt } from '../src/contract/captions.js';
import { wordTimingsFileExample } from '../src/contract/examples.js';
import { MOCK_API_KEY } from '../conformance/fixtures-file.js';
import { ROOT, removeDir } from './helpers/server.js';
import { freePort } from '@agent-tts/bench/harness/server-process.js';

/** Plays an MP3 through a decoder: its length in seconds, and how many frames it could not decode. */
async function decode(bytes: Uint8Array): Promise<{ seconds: number; errors: number }> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const decoded = decoder.decode(bytes);
    return { seconds: decoded.samplesDecoded / decoded.sampleRate, errors: decoded.errors.length };
  } finally {
    decoder.free();
  }
}

/** Runs the real command (bin/agent-tts.js over dist/) with only the given environment. */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'src/client/bin/agent-tts.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end();
  });
}

/** The typed client and the command line against the mock (the agent-tts-mock bin, real Prism): a job from submission to its files. */
describe('mock: our own client downloads the files the mock answers with', () => {
  let mock: ChildProcess;
  let baseUrl: string;
  let prismPort: number;
  let dir: string;
  let output = '';

  beforeAll(async () => {
    const port = await freePort();
    prismPort = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-mock-client-'));
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AGENT_TTS_MOCK_')));
    mock = spawn(process.execPath, [join(ROOT, 'mock/bin/agent-tts-mock.js'), '--port', String(port)], {
      env: { ...env, AGENT_TTS_MOCK_PRISM_PORT: String(prismPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    mock.stdout!.on('data', (d) => (output += d));
    mock.stderr!.on('data', (d) => (output += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the mock did not start:\n${output}`)), 90_000);
      mock.stdout!.on('data', () => {
        if (output.includes('Prism is listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
      mock.once('exit', (code) => reject(new Error(`the mock exited with ${code}:\n${output}`)));
    });
  }, 120_000);

  afterAll(async () => {
    if (mock && mock.exitCode === null) {
      const exited = new Promise((resolve) => mock.once('exit', resolve));
      mock.kill('SIGTERM');
      await exited;
    }
    if (dir) await removeDir(dir);
  });

  it('submits, polls, and downloads the audio and the WebVTT, SRT and JSON through the typed client (examples chosen with the headers option)', async () => {
    const client = new AgentTtsClient({ baseUrl, apiKey: MOCK_API_KEY });
    const submitted = await client.submit({ text: 'Hello from agent-tts.', timestamps: 'word' }, { headers: { Prefer: 'code=202, example=processing' } });
    expect(submitted.job.status).toBe('processing');
    const job = await client.poll(submitted.job.job_id, { headers: { Prefer: 'code=200, example=completed_with_timings' } });
    expect(job.status).toBe('completed');
    // The files are on the mock's own origin, not on the examples' https://tts.example.com.
    for (const url of [job.audio_url, job.timings!.json_url, job.timings!.vtt_url, job.timings!.srt_url]) expect(new URL(url).origin).toBe(baseUrl);

    const audio = await client.openAudio(job);
    expect(audio.contentType).toBe('audio/mpeg');
    const bytes = new Uint8Array(await new Response(audio.body).arrayBuffer());
    expect(bytes.length).toBe(audio.sizeBytes);
    const played = await decode(bytes);
    expect(played.errors).toBe(0);
    expect(played.seconds).toBeGreaterThan(0.4);
    expect(await client.download(job)).toEqual(bytes);

    expect(await client.downloadCaptions(job, 'vtt')).toBe(renderWebVtt(wordTimingsFileExample));
    expect(await client.downloadCaptions(job, 'srt')).toBe(renderSrt(wordTimingsFileExample));
    expect(await client.downloadCaptions(job, 'json')).toEqual(wordTimingsFileExample);
  });

  it('streams a processing job’s audio from its stream_url on the mock’s own origin: the bytes its audio_url serves, through client.stream()', async () => {
    const client = new AgentTtsClient({ baseUrl, apiKey: MOCK_API_KEY });
    const submitted = await client.submit({ text: 'Hello from agent-tts.' }, { headers: { Prefer: 'code=202, example=processing' } });
    if (submitted.job.status !== 'processing') throw new Error(`expected the processing example, got ${submitted.job.status}`);
    const streamUrl = submitted.job.stream_url ?? '';
    expect(new URL(streamUrl).origin).toBe(baseUrl);
    expect(new URL(streamUrl).pathname).toBe(`/v1/stream/${submitted.job.job_id}.mp3`);
    const polled = await client.getJob(submitted.job.job_id, { headers: { Prefer: 'code=200, example=processing' } });
    expect(polled.status === 'processing' && new URL(polled.stream_url ?? '').origin).toBe(baseUrl);

    const raw = await fetch(streamUrl);
    expect([raw.status, raw.headers.get('content-type'), raw.headers.get('cache-control'), raw.headers.get('content-length')]).toEqual([
      200,
      'audio/mpeg',
      'no-store',
      null,
    ]);
    await raw.arrayBuffer();
    const streamed = new Uint8Array(await new Response(await client.stream(submitted.job)).arrayBuffer());
    const played = await decode(streamed);
    expect(played.errors).toBe(0);
    expect(played.seconds).toBeGreaterThan(0.4);
    const done = await client.poll(submitted.job.job_id);
    expect(streamed).toEqual(await client.download(done));
  });

  it('refuses a malformed stream URL with the document’s 404 NOT_FOUND, as the server does', async () => {
    const res = await fetch(`${baseUrl}/v1/stream/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f.mp3?expires=soon&sig=x`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string } };
    expect(body.error.code).toBe('NOT_FOUND');
  });

  it('answers captions with the charset of the text formats, as the server does', async () => {
    const client = new AgentTtsClient({ baseUrl, apiKey: MOCK_API_KEY });
    const { job } = await client.submit({ text: 'Hello from agent-tts.', timestamps: 'word' });
    if (job.status !== 'completed') throw new Error(`expected the completed job, got ${job.status}`);
    const types: Record<string, string | null> = {};
    for (const format of ['json', 'vtt', 'srt'] as const) types[format] = (await fetch(job.timings![`${format}_url`])).headers.get('content-type');
    expect(types).toEqual({ json: 'application/json', vtt: 'text/vtt; charset=utf-8', srt: 'application/x-subrip; charset=utf-8' });
  });

  it('answers a submission asking for word timings with the example that has them, and one without with the base example', async () => {
    const client = new AgentTtsClient({ baseUrl, apiKey: MOCK_API_KEY });
    const withTimings = (await client.submit({ text: 'Hi', timestamps: 'word' })).job;
    const without = (await client.submit({ text: 'Hi' })).job;
    expect([withTimings.status, 'timings' in withTimings]).toEqual(['completed', true]);
    expect([without.status, 'timings' in without]).toEqual(['completed', false]);
  });

  it('sends the client-wide headers option with every API request: Prefer chooses the 429 example', async () => {
    const client = new AgentTtsClient({ baseUrl, apiKey: MOCK_API_KEY, headers: { Prefer: 'code=429, example=rate_limited' }, retry: { maxAttempts: 1 } });
    const error = await client.submit({ text: 'Hi' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentTtsError);
    expect([(error as AgentTtsError).code, (error as AgentTtsError).status]).toEqual(['RATE_LIMITED', 429]);
  });

  it('runs Prism on the port AGENT_TTS_MOCK_PRISM_PORT names, behind the mock', async () => {
    const res = await fetch(`http://127.0.0.1:${prismPort}/api/v1/voices`);
    expect(res.status).toBe(200);
    expect(output).not.toContain(`127.0.0.1:${prismPort}`);
  });

  it('agent-tts speak --stream - writes the mock’s MP3 to stdout', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'src/client/bin/agent-tts.js'), 'speak', '--stream', '-', 'Hello from agent-tts.'], {
      env: { PATH: process.env.PATH ?? '', AGENT_TTS_BASE_URL: baseUrl, AGENT_TTS_API_KEY: MOCK_API_KEY, XDG_CONFIG_HOME: join(dir, 'config') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect([code, stderr]).toEqual([0, expect.stringContaining('Streamed')]);
    const bytes = new Uint8Array(Buffer.concat(out));
    expect((await decode(bytes)).errors).toBe(0);
    const client = new AgentTtsClient({ baseUrl, apiKey: MOCK_API_KEY });
    const { job } = await client.submit({ text: 'Hi' });
    if (job.status !== 'completed') throw new Error(`expected the completed job, got ${job.status}`);
    expect(bytes).toEqual(await client.download(job));
  });

  it('agent-tts speak saves the audio and the captions from the mock', async () => {
    const mp3 = join(dir, 'hello.mp3');
    const vtt = join(dir, 'hello.vtt');
    const json = join(dir, 'hello.json');
    const result = await runCli(['speak', 'Hello from agent-tts.', '-o', mp3, '--captions', vtt, '--timings', json], {
      AGENT_TTS_BASE_URL: baseUrl,
      AGENT_TTS_API_KEY: MOCK_API_KEY,
      XDG_CONFIG_HOME: join(dir, 'config'),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect((await decode(new Uint8Array(await readFile(mp3)))).errors).toBe(0);
    expect(await readFile(vtt, 'utf8')).toBe(renderWebVtt(wordTimingsFileExample));
    expect(JSON.parse(await readFile(json, 'utf8'))).toEqual(wordTimingsFileExample);
  });
});
