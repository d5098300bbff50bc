import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConformanceFixtures } from '../src/contract/fixtures.js';
import { ROOT } from './helpers/server.js';

const BIN = join(ROOT, 'bin/agent-tts-sandbox.js');
const dir = mkdtempSync(join(tmpdir(), 'sandbox-bin-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the bin and resolves with what it printed once it says it has started. */
function start(args: string[]): Promise<{ child: ChildProcess; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
      if (/Started in \d+ ms/.test(stdout)) resolve({ child, stdout });
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
    for (const state of ['active_free', 'active_pro', 'active_ultimate', 'inactive_subscription', 'no_api_access', 'minutes_almost_used', 'minutes_used_up', 'revoked']) {
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
    const moved = await fetch(fixtures.clock!.url, { method: 'POST', body: JSON.stringify({ advance_seconds: 5 }) });
    expect(moved.status).toBe(200);
    expect(((await moved.json()) as { offset_seconds: number }).offset_seconds).toBeGreaterThanOrEqual(5);

    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    expect(await closed).toBe(0);
  }, 60_000);

  it('refuses a bad --port with exit code 2', async () => {
    const child = spawn(process.execPath, [BIN, '--port', 'x'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toBe('agent-tts-sandbox: --port: expected a port 0-65535, got "x"\n');
  }, 30_000);
});
