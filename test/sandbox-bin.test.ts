import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConformanceFixtures } from '../src/contract/fixtures.js';
import { ROOT } from './helpers/server.js';

const BIN = join(ROOT, 'src/sandbox/bin/agent-tts-sandbox.js');
const dir = mkdtempSync(join(tmpdir(), 'sandbox-bin-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the bin and resolves with what it printed once it says it has started (`stderr()`: what it wrote there so far). */
function start(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ child: ChildProcess; stdout: string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
      if (/Started in \d+ ms/.test(stdout)) resolve({ child, stdout, stderr: () => stderr });
    });
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => reject(new Error(`agent-tts-sandbox exited (${code}) before starting: ${stderr}${stdout}`)));
  });
}

describe('agent-tts-sandbox (the bin)', () => {
  it('starts, prints its URL, the test keys and its start time, answers marked, and writes fixtures that validate', async () => {
    const out = join(dir, 'fixtures.json');
    const { child, stdout } = await start(['--port', '0', '--fixtures', out]);
    const baseUrl = /agent-tts sandbox on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
    expect(baseUrl).toBeDefined();
    for (const state of [
      'active_free',
      'active_pro',
      'active_ultimate',
      'inactive_subscription',
      'no_api_access',
      'minutes_almost_used',
      'minutes_used_up',
      'revoked',
    ]) {
      expect(stdout).toMatch(new RegExp(`^  ${state} +tts_[0-9a-f]{8}_[0-9a-f]{48}$`, 'm'));
    }
    expect(stdout).toMatch(/Started in \d+ ms \(process start to listening\)/);

    const listing = await fetch(`${baseUrl}/sandbox`);
    expect(listing.headers.get('agent-tts-sandbox')).toBe('1');
    const body = (await listing.json()) as { keys: Record<string, string> };
    expect(stdout).toContain(body.keys.active_pro);

    const fixtures = ConformanceFixtures.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(fixtures.base_url).toBe(baseUrl);
    expect(fixtures.clock?.url).toBe(`${baseUrl}/sandbox/clock`);
    expect(fixtures.keys.active.length).toBeGreaterThanOrEqual(8);
    expect(fixtures.keys.acceptance).toHaveLength(64);
    const moved = await fetch(fixtures.clock!.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ advance_seconds: 5 }),
    });
    expect(moved.status).toBe(200);
    expect(((await moved.json()) as { offset_seconds: number }).offset_seconds).toBeGreaterThanOrEqual(5);

    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    expect(await closed).toBe(0);
  }, 60_000);

  it('refuses writes to /sandbox/* from web pages: another Origin (403), a body not declared JSON (400)', async () => {
    const { child, stdout } = await start(['--port', '0']);
    const baseUrl = /agent-tts sandbox on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)![1]!;
    const clock = `${baseUrl}/sandbox/clock`;
    // What a page elsewhere can send without a preflight.
    const simple = await fetch(clock, {
      method: 'POST',
      headers: { Origin: 'https://evil.example', 'Content-Type': 'text/plain' },
      body: '{"set": "2030-01-01T00:00:00Z"}',
    });
    expect(simple.status).toBe(403);
    expect(simple.headers.get('agent-tts-sandbox')).toBe('1');
    const plain = await fetch(clock, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{"advance_seconds": 60}' });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as { error: { message: string } }).error.message).toMatch(/^Content-Type must be application\/json/);
    const untyped = await fetch(clock, { method: 'POST', body: new TextEncoder().encode('{"advance_seconds": 60}') });
    expect(untyped.status).toBe(400);
    const preflight = await fetch(clock, { method: 'OPTIONS', headers: { Origin: 'http://localhost:3000', 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect((await fetch(`${baseUrl}/sandbox/requests`, { method: 'DELETE' })).status).toBe(200);
    const state = (await (await fetch(clock)).json()) as { offset_seconds: number };
    expect(state.offset_seconds).toBe(0);
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await closed;
  }, 60_000);

  it('refuses a --host that is not a loopback address without --allow-remote, with exit code 2', async () => {
    for (const host of ['0.0.0.0', '::']) {
      const child = spawn(process.execPath, [BIN, '--host', host], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let stdout = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.stdout.on('data', (d) => (stdout += d));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toBe(
        `agent-tts-sandbox: --host ${host} is not a loopback address: every machine that can reach it would get the test keys (GET /sandbox) and could move the clock and read the request journal. ` +
          'Add --allow-remote to listen there anyway (on a network you trust), or use 127.0.0.1, ::1 or localhost.\n',
      );
    }
  }, 30_000);

  it('with --allow-remote on 0.0.0.0: prints where it is bound and reachable, and warns on stderr', async () => {
    const { child, stdout, stderr } = await start(['--host', '0.0.0.0', '--allow-remote']);
    const port = /^Listening on 0\.0\.0\.0:(\d+), reachable at (.+)$/m.exec(stdout);
    expect(port).not.toBeNull();
    const urls = port![2]!.split(', ');
    expect(urls).toContain(`http://127.0.0.1:${port![1]}`);
    expect(stdout).toContain(`agent-tts sandbox on http://127.0.0.1:${port![1]} `);
    for (let i = 0; i < 50 && !stderr().includes('\n'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(stderr()).toMatch(
      new RegExp(
        `^agent-tts-sandbox: warning: listening on 0\\.0\\.0\\.0 \\(--allow-remote\\), ports ${port![1]} and \\d+: anyone who can reach them gets the test keys \\(GET /sandbox\\)`,
      ),
    );
    for (const url of urls) expect((await fetch(`${url}/sandbox`)).headers.get('agent-tts-sandbox')).toBe('1');
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    expect(await closed).toBe(0);
  }, 60_000);

  it('starts on another loopback address without --allow-remote and names the flag in --help', async () => {
    const { child, stdout, stderr } = await start(['--host', 'localhost']);
    expect(stdout).toMatch(/^agent-tts sandbox on http:\/\/localhost:\d+ /);
    expect(stdout).not.toContain('Listening on');
    expect(stderr()).toBe('');
    child.kill('SIGTERM');
    const help = spawn(process.execPath, [BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    help.stdout.on('data', (d) => (text += d));
    expect(await new Promise((resolve) => help.on('close', resolve))).toBe(0);
    expect(text).toMatch(/--allow-remote +listen on a --host that is not a loopback address/);
    expect(text).toContain('a loopback address (127.x.y.z, ::1,\n                  localhost) unless --allow-remote is given');
  }, 60_000);

  it('reads settings from the environment and from flags named after them (the flag wins), and warns of those that do not apply', async () => {
    const env = { ...process.env, RATE_POST_LIMIT: '2', PLAN_MINUTES_FREE: '9', REDIS_URL: 'redis://user:hunter2@127.0.0.1:6379' };
    const { child, stdout, stderr } = await start(['--public-base-url', 'http://proxy.test:8443', '--plan-minutes-free', '4'], env);
    expect(stdout).toMatch(/^agent-tts sandbox on http:\/\/proxy\.test:8443 \(voice catalog on http:\/\/127\.0\.0\.1:\d+\)$/m);
    const own = /^Listening on 127\.0\.0\.1:\d+, reachable at (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout)?.[1];
    expect(own).toBeDefined();
    expect(stdout).toContain(
      'Settings: RATE_POST_LIMIT=2 (environment), PLAN_MINUTES_FREE=4 (--plan-minutes-free), PUBLIC_BASE_URL=http://proxy.test:8443 (--public-base-url)',
    );
    for (let i = 0; i < 50 && !stderr().includes('\n'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(stderr()).toBe(
      'agent-tts-sandbox: warning: REDIS_URL is set in the environment but does not apply to the sandbox (the distributed mode’s; the sandbox’s store, queue and rate limiter are in-process): ignored.\n',
    );
    const keys = ((await (await fetch(`${own}/sandbox`)).json()) as { keys: Record<string, string> }).keys;
    const post = () =>
      fetch(`${own}/v1/agent-tts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys.active_free}`, 'Content-Type': 'application/json' },
        body: '{"text": "Hi."}',
      });
    const first = (await (await post()).json()) as { audio_url: string; billing: { monthly_minutes_limit: number } };
    expect(first.audio_url).toMatch(/^http:\/\/proxy\.test:8443\/v1\/audio\//);
    expect(first.billing.monthly_minutes_limit).toBe(4);
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(429);
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    expect(await closed).toBe(0);
  }, 60_000);

  it('refuses a bad setting with exit code 2, naming the flag or the variable and what is allowed', async () => {
    const run = async (args: string[], env: NodeJS.ProcessEnv = process.env) => {
      const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise((resolve) => child.on('close', resolve));
      return { code, stderr };
    };
    expect(await run(['--rate-post-limit', '0'])).toEqual({
      code: 2,
      stderr:
        'agent-tts-sandbox: Invalid configuration:\n  --rate-post-limit (RATE_POST_LIMIT): must be a whole number from 1 to 1000000000 (requests a window); it is below 1\n',
    });
    expect(await run([], { ...process.env, PUBLIC_BASE_URL: 'https://proxy.test/?x=1' })).toEqual({
      code: 2,
      stderr: 'agent-tts-sandbox: Invalid configuration:\n  PUBLIC_BASE_URL: must not have a query (?…) or fragment (#…): paths are appended to it\n',
    });
    expect(await run([], { ...process.env, PORT: 'eighty' })).toEqual({ code: 2, stderr: 'agent-tts-sandbox: PORT: expected a port 0-65535, got "eighty"\n' });
    expect(await run(['--redis-url', 'redis://127.0.0.1'])).toEqual({
      code: 2,
      stderr:
        'agent-tts-sandbox: --redis-url: REDIS_URL does not apply to the sandbox (the distributed mode’s; the sandbox’s store, queue and rate limiter are in-process). Its settings are listed by --help.\n',
    });
  }, 30_000);

  it('lists its settings and --validate-responses in --help', async () => {
    const help = spawn(process.execPath, [BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    help.stdout.on('data', (d) => (text += d));
    expect(await new Promise((resolve) => help.on('close', resolve))).toBe(0);
    expect(text).toMatch(/^ {2}--public-base-url <url> +PUBLIC_BASE_URL \(default the API listener\): origin clients reach the API on/m);
    expect(text).toMatch(/^ {2}--rate-post-limit <n> +RATE_POST_LIMIT \(default 1\): POSTs per key per window$/m);
    expect(text).toMatch(/^ {2}--plan-minutes-ultimate <min> +PLAN_MINUTES_ULTIMATE \(default 3000\)/m);
    expect(text).toContain('  --validate-responses\n');
  }, 30_000);

  it('refuses a bad --port with exit code 2', async () => {
    const child = spawn(process.execPath, [BIN, '--port', 'x'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toBe('agent-tts-sandbox: --port: expected a port 0-65535, got "x"\n');
  }, 30_000);
});
