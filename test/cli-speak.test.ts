import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MPEGDecoder } from 'mpg123-decoder';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';
import { listen, type ListeningServer } from './helpers/in-process.js';

const BIN = join(ROOT, 'src/client/bin/agent-tts.js');

interface CliResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Runs the real command (bin/agent-tts.js over dist/) with only the given environment. */
function runCli(args: string[], env: Record<string, string>, input = '', cwd = ROOT): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, cwd, stdio: 'pipe' });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr }));
    child.stdin.end(input);
  });
}

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

const SENTENCE = 'Speech from the command line, saved as an MP3 file.';

describe('agent-tts speak (inline completion)', () => {
  let server: ListeningServer;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    // A generous POST bucket: this file submits several jobs with one key.
    server = await listen({ RATE_POST_LIMIT: '100' });
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-cli-speak-'));
    env = {
      AGENT_TTS_BASE_URL: server.baseUrl,
      AGENT_TTS_VOICES_URL: server.voicesUrl,
      AGENT_TTS_API_KEY: server.fixtures.keys.active[0]!,
      XDG_CONFIG_HOME: join(dir, 'config'),
    };
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('writes a playable MP3 whose length matches the reported duration', async () => {
    const out = join(dir, 'hello.mp3');
    const result = await runCli(['speak', SENTENCE, '-o', out, '--json', '--voice', 'st_m2', '--speed', '1.1', '--language', 'en'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout.toString()) as {
      ok: boolean;
      job: { job_id: string; audio: { duration_seconds: number; voice: string; speed: number } };
      file: { path: string; bytes: number };
    };
    expect(report.ok).toBe(true);
    expect(report.job.audio).toMatchObject({ voice: 'st_m2', speed: 1.1 });
    const bytes = new Uint8Array(await readFile(out));
    expect(report.file).toEqual({ path: out, bytes: bytes.length });
    const audio = await measureMp3(bytes);
    expect(audio.errors).toBe(0);
    expect(audio.nonZero).toBeGreaterThan(1000);
    const reported = report.job.audio.duration_seconds;
    expect(reported).toBeGreaterThan(1);
    expect(Math.abs(audio.seconds - reported)).toBeLessThan(Math.max(0.15, reported * 0.05));
  });

  it('reads the text from a file, from "-" and from standard input, with the same result', async () => {
    const file = join(dir, 'text.txt');
    await writeFile(file, SENTENCE);
    const runs = [
      await runCli(['speak', SENTENCE, '--no-download', '--json'], env),
      await runCli(['speak', '-f', file, '--no-download', '--json'], env),
      await runCli(['speak', '-', '--no-download', '--json'], env, SENTENCE),
      await runCli(['speak', '--no-download', '--json'], env, SENTENCE),
    ];
    const durations = runs.map((r) => {
      expect(r.code).toBe(0);
      return (JSON.parse(r.stdout.toString()) as { job: { audio: { duration_seconds: number } } }).job.audio.duration_seconds;
    });
    expect(new Set(durations).size).toBe(1);
    // A different text gives a different result, so the equality above is about the text.
    const other = await runCli(['speak', '--no-download', '--json'], env, `${SENTENCE} And one more sentence after it.`);
    expect((JSON.parse(other.stdout.toString()) as { job: { audio: { duration_seconds: number } } }).job.audio.duration_seconds).toBeGreaterThan(durations[0]!);
  });

  it('writes the MP3 to stdout with -o - and its summary to stderr', async () => {
    const result = await runCli(['speak', SENTENCE, '-o', '-'], env);
    expect(result.code).toBe(0);
    expect((await measureMp3(new Uint8Array(result.stdout))).nonZero).toBeGreaterThan(0);
    expect(result.stderr).toMatch(/Saved audio to stdout \(\d+ bytes\)/);
  });

  it('warns on stderr when the audio was spoken by another voice than the one asked for (an id the catalog does not list)', async () => {
    const unlisted = await runCli(['speak', SENTENCE, '--no-download', '--json', '--voice', 'af_nobody'], env);
    expect(unlisted.code).toBe(0);
    const job = JSON.parse(unlisted.stdout.toString()).job as { audio: { voice: string } };
    expect(job.audio.voice).toBe('af_nicole');
    expect(unlisted.stderr).toContain(
      "agent-tts: warning: the audio was spoken by af_nicole, not af_nobody: the deployment's voice catalog does not list af_nobody",
    );
    const listed = await runCli(['speak', SENTENCE, '--no-download', '--voice', 'af_nicole'], env);
    expect(listed.code).toBe(0);
    expect(listed.stderr).not.toContain('warning');
  });

  it('saves to ./<job_id>.mp3 by default and prints a summary', async () => {
    const cwd = await mkdtemp(join(dir, 'cwd-'));
    const result = await runCli(['speak', 'Default output file name.'], env, '', cwd);
    expect(result.code).toBe(0);
    const files = await readdir(cwd);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f-]{36}\.mp3$/);
    expect(result.stdout.toString()).toContain(`Saved ${files[0]}`);
    expect(result.stdout.toString()).toContain(`Job ${files[0]!.replace('.mp3', '')}`);
  });

  it('refuses empty text and missing text with usage errors (exit 2)', async () => {
    const empty = await runCli(['speak', '-o', join(dir, 'x.mp3')], env, '   \n');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('empty');
    const both = await runCli(['speak', 'text', '-f', 'file.txt'], env);
    expect(both.code).toBe(2);
    const missing = await runCli(['speak', '-f', join(dir, 'missing.txt')], env);
    expect(missing.code).toBe(11);
    expect(missing.stderr).toContain('no such file');
    expect(missing.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('checks where it will write before it sends anything: no request, no job, nothing charged (exit 11)', async () => {
    const requests = () =>
      server
        .logs()
        .split('\n')
        .filter((line) => line.includes('"msg":"request"')).length;
    const before = { requests: requests(), logs: server.logs().length };
    for (const [args, reason] of [
      [['-o', '/nonexistent/x.mp3'], 'the directory /nonexistent does not exist'],
      [['-o', join(dir, 'missing-dir', 'x.mp3')], `the directory ${join(dir, 'missing-dir')} does not exist`],
      [['-o', dir], 'it is a directory'],
      [['--output', '/nonexistent/x.mp3'], 'the directory /nonexistent does not exist'],
    ] as const) {
      const result = await runCli(['speak', SENTENCE, ...args], env);
      expect(result.code, result.stderr).toBe(11);
      expect(result.stderr).toContain(`Error: Cannot write the audio to ${args[1]}: ${reason}. Nothing was sent to the service.`);
      expect(result.stdout.toString()).toBe('');
    }
    // The same refusal in --json, for scripts.
    const json = await runCli(['speak', SENTENCE, '--json', '-o', '/nonexistent/x.mp3'], env);
    expect(json.code).toBe(11);
    expect(JSON.parse(json.stdout.toString())).toMatchObject({ ok: false, exit_code: 11, error: { code: 'LOCAL_FILE' } });
    // status -o checks first too, before asking for the job.
    const status = await runCli(['status', '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f', '-o', '/nonexistent/x.mp3'], env);
    expect(status.code).toBe(11);
    await new Promise((r) => setTimeout(r, 300));
    expect(requests()).toBe(before.requests);
    expect(server.logs().slice(before.logs)).not.toContain('/v1/agent-tts');
  });

  it('still reads the former --output, with a one-line notice', async () => {
    const out = join(dir, 'former-flag.mp3');
    const result = await runCli(['speak', SENTENCE, '--output', out], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('agent-tts: --output is now --out; the old name still works for now.\n');
    expect((await readFile(out)).length).toBeGreaterThan(0);
  });

  it('has help for the command', async () => {
    const result = await runCli(['speak', '--help'], env);
    expect(result.code).toBe(0);
    expect(result.stdout.toString()).toContain('Usage: agent-tts speak');
    expect(result.stdout.toString()).toContain('Exit codes:');
  });
});

describe('agent-tts speak (202 path)', () => {
  let server: ListeningServer;
  let dir: string;
  beforeAll(async () => {
    server = await listen({ INLINE_WAIT_MS: '1' });
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-cli-202-'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('polls to completion with plain progress lines on a non-terminal stderr, then downloads', async () => {
    const out = join(dir, 'long.mp3');
    const text = 'A job that does not finish inside the inline wait. '.repeat(6);
    const result = await runCli(['speak', text, '-o', out], {
      AGENT_TTS_BASE_URL: server.baseUrl,
      AGENT_TTS_API_KEY: server.fixtures.keys.active[0]!,
      XDG_CONFIG_HOME: join(dir, 'config'),
    });
    expect(result.code).toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^job [0-9a-f-]{36}: processing( \d+%)?, \d+\.\ds elapsed, next check in \d/);
    expect(result.stderr).not.toContain('\x1b['); // no terminal control codes in a log
    const jobId = /job ([0-9a-f-]{36})/.exec(lines[0]!)![1]!;
    expect(result.stdout.toString()).toContain(`Job ${jobId}`);
    expect((await measureMp3(new Uint8Array(await readFile(out)))).nonZero).toBeGreaterThan(1000);

    // status of the finished job shows it completed, with the same audio available.
    const status = await runCli(['status', jobId, '--json'], {
      AGENT_TTS_BASE_URL: server.baseUrl,
      AGENT_TTS_API_KEY: server.fixtures.keys.active[0]!,
      XDG_CONFIG_HOME: join(dir, 'config'),
    });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout.toString())).toMatchObject({ ok: true, job: { status: 'completed', job_id: jobId } });
  });

  it('status --wait follows a processing job to the end', async () => {
    const env = { AGENT_TTS_BASE_URL: server.baseUrl, AGENT_TTS_API_KEY: server.fixtures.keys.active[1]!, XDG_CONFIG_HOME: join(dir, 'config') };
    const submitted = await runCli(['speak', 'Submitted, then awaited with status.', '--no-download', '--timeout', '0.001', '--json'], env);
    // A tiny --timeout gives up at once with exit 10 and the job id, and the job goes on.
    expect(submitted.code).toBe(10);
    const error = (JSON.parse(submitted.stdout.toString()) as { error: { code: string; job_id: string } }).error;
    expect(error.code).toBe('TIMEOUT');
    const out = join(dir, 'waited.mp3');
    const waited = await runCli(['status', error.job_id, '--wait', '-o', out], env);
    expect(waited.code).toBe(0);
    expect(waited.stdout.toString()).toContain(`Job ${error.job_id}: completed`);
    expect((await measureMp3(new Uint8Array(await readFile(out)))).nonZero).toBeGreaterThan(0);
  });
});

describe('agent-tts speak --timeout past the inline wait', () => {
  let server: ListeningServer;
  let dir: string;
  beforeAll(async () => {
    // The service holds the POST for 2 s, then answers 202 with a retry_after_seconds far past --timeout.
    server = await listen({ INLINE_WAIT_MS: '2000', SHUTDOWN_GRACE_MS: '1000' });
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-cli-timeout-'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("waits the whole --timeout, says how long it waited, and shows the last answer's request id", async () => {
    const file = join(dir, 'long.txt');
    await writeFile(file, 'The long text goes on, sentence after sentence, so that it cannot finish in seconds. '.repeat(1200));
    const started = Date.now();
    const result = await runCli(['speak', '-f', file, '--timeout', '3', '--no-download'], {
      AGENT_TTS_BASE_URL: server.baseUrl,
      AGENT_TTS_API_KEY: server.fixtures.keys.active[0]!,
      XDG_CONFIG_HOME: join(dir, 'config'),
    });
    expect(result.code).toBe(10);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
    expect(result.stderr).toMatch(/Error TIMEOUT: Job [0-9a-f-]{36} was still processing after \d+(\.\d)? s \(timeout 3 s\)/);
    expect(result.stderr).toMatch(/Request id: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\n/);
    expect(result.stderr).not.toContain('no answer from the service');
  });
});
