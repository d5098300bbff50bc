import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientClock } from '../clock.js';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import { EXIT } from './exit-codes.js';
import { run } from './run.js';

/** The command's polling on an injected clock, and `--sandbox-clock`, against a sandbox: real HTTP, no real waiting. */
let sandbox: RunningSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox({ env: { RATE_POST_LIMIT: '20' } });
  await sandbox.clock.freeze();
  dir = await mkdtemp(join(tmpdir(), 'agent-tts-cli-clock-'));
  // A first asynchronous job, so that the timings below are not those of the process's warm-up.
  await cli(['speak', 'Warm-up. sandbox:async=1', '--no-download'], sandbox.keys.active_ultimate, sandbox.clock.client);
});
afterAll(async () => {
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs `agent-tts <args>` in this process (stderr not a terminal), with the sandbox as its service. */
async function cli(args: string[], key: string, clock?: ClientClock, baseUrl = sandbox.baseUrl) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  stdin.end();
  const env = { AGENT_TTS_BASE_URL: baseUrl, AGENT_TTS_API_KEY: key, XDG_CONFIG_HOME: join(dir, 'config') };
  const started = performance.now();
  const code = await run(args, { stdin, stdout, stderr, env, signal: new AbortController().signal, clock });
  return { code, out, err, realMs: performance.now() - started };
}

const sandboxMs = () => sandbox.clock.now().getTime();

describe('agent-tts on an injected clock', () => {
  it('speak polls a 30 s job on the clock: progress in its time, no real wait, no poll too soon', async () => {
    const key = sandbox.keys.active_pro;
    const before = sandboxMs();
    const result = await cli(['speak', 'A long one. sandbox:async=30', '--no-download'], key, sandbox.clock.client);
    expect(result.code, result.err).toBe(EXIT.OK);
    // Real time well under the 30 s a real wait would take, with room for a loaded machine.
    expect(result.realMs).toBeLessThan(10_000);
    expect(sandboxMs() - before).toBe(30_000);
    const lines = result.err.trim().split('\n');
    expect(lines[0]).toMatch(/^job [0-9a-f-]{36}: processing 0%, 0\.0s elapsed, next check in 30s$/);
    expect(lines.at(-2)).toMatch(/^job [0-9a-f-]{36}: completed 100%, 30s elapsed$/);
    expect(result.out).toMatch(/^http:\/\/.*\.mp3\?/);
    sandbox.journal.expectNoFlags({ key: key.slice(0, 12) });
  });

  it('status --wait polls on the clock, and --timeout is measured on it', async () => {
    const key = sandbox.keys.active_free;
    const beforeSubmit = sandboxMs();
    const submitted = await cli(['speak', 'Later. sandbox:async=120', '--no-download', '--json', '--timeout', '1'], key, sandbox.clock.client);
    // The 202 said to come back in 120 s: with --timeout 1 the one look at the job is after 1 s of the
    // clock (frozen: only the command's wait moved it), not after a second of real time.
    expect(submitted.code).toBe(EXIT.TIMEOUT);
    expect(sandboxMs() - beforeSubmit).toBe(1_000);
    const jobId = /"job_id":\s*"([0-9a-f-]{36})"/.exec(submitted.out)?.[1];
    expect(jobId).toBeDefined();
    const before = sandboxMs();
    const waited = await cli(['status', jobId!, '--wait'], key, sandbox.clock.client);
    expect(waited.code, waited.err).toBe(EXIT.OK);
    expect(waited.realMs).toBeLessThan(10_000);
    expect(waited.out).toContain(`Job ${jobId}: completed`);
    expect(sandboxMs() - before).toBeGreaterThanOrEqual(118_000);
    expect(sandboxMs() - before).toBeLessThanOrEqual(120_000);
  });

  it('--sandbox-clock advances the sandbox’s clock over HTTP instead of waiting', async () => {
    const key = sandbox.keys.active_ultimate;
    const before = sandboxMs();
    const result = await cli(['speak', 'Forty seconds. sandbox:async=40', '--no-download', '--sandbox-clock'], key);
    expect(result.code, result.err).toBe(EXIT.OK);
    expect(result.realMs).toBeLessThan(10_000);
    expect(sandboxMs() - before).toBe(40_000);
    expect(result.err).toMatch(/completed 100%, 40s elapsed/);
    sandbox.journal.expectNoFlags({ key: key.slice(0, 12) });
  });

  it('--sandbox-clock with a test clock’s key advances that clock, not the global one', async () => {
    const clock = await sandbox.createClock({ freeze: true });
    try {
      const key = clock.keys.active_ultimate;
      const before = { global: sandboxMs(), test: clock.now().getTime() };
      // A --timeout bounds the run should the job's clock stand still while another moves.
      const result = await cli(['speak', 'Forty seconds on a test clock. sandbox:async=40', '--no-download', '--sandbox-clock', '--timeout', '300'], key);
      expect(result.code, result.err).toBe(EXIT.OK);
      expect(result.realMs).toBeLessThan(10_000);
      expect(result.err).toMatch(/completed 100%, 40s elapsed/);
      expect(clock.now().getTime() - before.test).toBe(40_000);
      expect(sandboxMs()).toBe(before.global);
    } finally {
      await clock.delete();
    }
  });

  it('--sandbox-clock refuses a base URL that is not a sandbox before sending anything to it', async () => {
    const seen: string[] = [];
    const server: Server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const result = await cli(['speak', 'Hello.', '--no-download', '--sandbox-clock'], sandbox.keys.active_pro, undefined, url);
      expect(result.code).toBe(EXIT.USAGE);
      expect(result.err).toContain(`--sandbox-clock: ${url}/sandbox/clock is not a sandbox's test clock`);
      expect(seen).toEqual(['GET /sandbox/clock']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
