import { spawn, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/server/config.js';
import { ROOT, startServer, type RunningServer } from './helpers/server.js';

/**
 * A newcomer's first requests, scripted: the shell blocks of the README's "First request in one
 * minute", run as written, with only what a person fills in themselves: the account id and the key
 * the previous commands printed, and the test server's address in place of the default one. What is
 * asserted is what a newcomer meets: every command works, and no command waits out a 429 in silence.
 */
const README = join(ROOT, 'README.md');
// A shorter window than the default minute, so the test does not sit out a whole one.
const WINDOW_SECONDS = 20;

async function section(): Promise<string> {
  const readme = await readFile(README, 'utf8');
  const start = readme.indexOf('### First request in one minute');
  expect(start, 'the README has a "First request in one minute" section').toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start);
  return readme.slice(start, end);
}

/** The commands of the section's ```sh blocks: comments dropped, continuation lines joined. */
function commandsOf(text: string): string[] {
  const commands: string[] = [];
  for (const [, block] of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    const joined = block!.replace(/\\\n\s*/g, ' ');
    for (const line of joined.split('\n')) {
      const command = line.replace(/\s+#.*$/, '').trim();
      if (command !== '' && !command.startsWith('#')) commands.push(command);
    }
  }
  return commands;
}

interface Ran {
  command: string;
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
  /** POSTs the server refused with 429 while the command ran. */
  refused: number;
}

function refusedPosts(logs: string): number {
  let count = 0;
  for (const line of logs.split('\n')) {
    let entry: { msg?: string; method?: string; path?: string; status?: number };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue; // not a log line, or one cut at the edge of the slice
    }
    if (entry.msg === 'request' && entry.method === 'POST' && entry.path === '/v1/agent-tts' && entry.status === 429) count++;
  }
  return count;
}

describe("README, first request: a newcomer's first hour", () => {
  let server: RunningServer;
  let dir: string;
  let text: string;
  /** The newcomer's shell: what `export` set, and the values they copied from the output. */
  let shell: Record<string, string>;
  const filled: Record<string, string> = {};

  beforeAll(async () => {
    server = await startServer({ seed: false, env: { RATE_WINDOW_SECONDS: String(WINDOW_SECONDS) } });
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-newcomer-'));
    text = await section();
    // The command line's default address is the server's default one; this server has its own.
    shell = { ...server.env, AGENT_TTS_BASE_URL: server.baseUrl, XDG_CONFIG_HOME: join(dir, 'config') };
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Runs one command of the section in the repository, as typed, with the placeholders filled in. */
  async function type(command: string): Promise<Ran> {
    const exported = /^export (\w+)=(\S+)$/.exec(command);
    if (exported) {
      // `export AGENT_TTS_API_KEY=tts_…`: the newcomer pastes the key the previous command printed.
      expect(exported[2], command).toBe('tts_…');
      shell[exported[1]!] = filled.key!;
      return { command, code: 0, stdout: '', stderr: '', ms: 0, refused: 0 };
    }
    let line = command.replaceAll('http://127.0.0.1:8080', server.baseUrl).replace(/ -o hello\.mp3\b/, ` -o ${join(dir, 'hello.mp3')}`);
    if (line.includes('<account-id>')) line = line.replaceAll('<account-id>', filled.accountId!);
    const before = server.logs().length;
    const started = Date.now();
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('bash', ['-c', line], { cwd: ROOT, env: { ...process.env, ...shell }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });
    const ms = Date.now() - started;
    // The server's log line of the last answer may still be on its way through the pipe.
    await new Promise((r) => setTimeout(r, 500));
    const ran = { command, ...result, ms, refused: refusedPosts(server.logs().slice(before)) };
    expect(ran.code, `${command}\n${ran.stdout}\n${ran.stderr}`).toBe(0);
    if (command.includes('account create')) {
      filled.accountId = (JSON.parse(ran.stdout.slice(ran.stdout.indexOf('{'))) as { id: string }).id;
    }
    if (command.includes('key create')) filled.key = /^tts_[0-9a-f]{8}_[0-9a-f]{48}$/m.exec(ran.stdout)![0];
    return ran;
  }

  /** The promise of the task: a 429 is either not met, or said out loud, with the wait and its cause. */
  function expectNoSilentWait(ran: Ran): void {
    if (ran.refused === 0) return;
    if (ran.command.startsWith('curl')) {
      // curl waits for nothing: it prints the refusal, which names the wait.
      const body = JSON.parse(ran.stdout) as { error?: { code: string; message: string } };
      expect(body.error?.code, ran.stdout).toBe('RATE_LIMITED');
      expect(body.error?.message).toMatch(/Wait \d+ seconds? \(Retry-After\)/);
      return;
    }
    expect(ran.stderr, `${ran.command} waited ${ran.ms} ms after a 429 without saying so`).toMatch(
      new RegExp(`rate limited: 1 POST per ${WINDOW_SECONDS} s for this key; retrying in \\d+ s \\(Retry-After\\)…`),
    );
    expect(ran.stderr).toMatch(/agent-tts-sandbox.*RATE_POST_LIMIT=100/);
  }

  it('shows the limits a newcomer meets and both ways around them, with settings that exist', () => {
    expect(text).toMatch(/once a minute/);
    expect(text).toMatch(/one active key/);
    expect(text).toContain('429 RATE_LIMITED');
    expect(text).toContain('npm run sandbox');
    expect(text).toContain('agent-tts-sandbox');
    const variables = [...text.matchAll(/`(RATE_[A-Z_]+)(?:=[^`]*)?`/g)].map((m) => m[1]!);
    expect(variables).toContain('RATE_POST_LIMIT');
    // Each variable named is one the server reads.
    const config = loadConfig({ DATA_DIR: dir, RATE_POST_LIMIT: '100', RATE_GET_LIMIT: '200', RATE_WINDOW_SECONDS: '7' });
    expect(config.rateLimits).toEqual({ post: 100, get: 200, windowMs: 7000 });
    for (const name of variables) expect(['RATE_POST_LIMIT', 'RATE_GET_LIMIT', 'RATE_WINDOW_SECONDS'], name).toContain(name);
  });

  it('makes every Idempotency-Key of its curl examples with what every system has (no uuidgen)', async () => {
    const readme = await readFile(README, 'utf8');
    expect(readme).not.toContain('$(uuidgen)');
    const curl = commandsOf(text).find((c) => c.startsWith('curl'))!;
    const key = /Idempotency-Key: \$\((.+?)\)"/.exec(curl)?.[1];
    expect(key, curl).toBeDefined();
    expect(execFileSync('bash', ['-c', key!], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } })).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\n$/,
    );
  });

  it('follows the section twice in a row: every command works, and no 429 is waited out in silence', async () => {
    const commands = commandsOf(text);
    expect(commands.some((c) => c.startsWith('node src/client/bin/agent-tts.js speak'))).toBe(true);
    expect(commands.some((c) => c.startsWith('curl'))).toBe(true);
    const runs: Ran[] = [];
    for (let pass = 1; pass <= 2; pass++) for (const command of commands) runs.push(await type(command));
    for (const ran of runs) expectNoSilentWait(ran);
    // The same key POSTs twice in each pass: the second within the window is refused, and said so.
    expect(runs.reduce((sum, r) => sum + r.refused, 0)).toBeGreaterThan(0);
  }, 180_000);

  it("then asks again at once with the same key: the command line's wait is announced, then it succeeds", async () => {
    const speak = commandsOf(text).find((c) => c.startsWith('node src/client/bin/agent-tts.js speak'))!;
    const ran = await type(speak);
    expect(ran.refused).toBeGreaterThan(0);
    expectNoSilentWait(ran);
    expect(ran.stdout).toMatch(/^Saved .*hello\.mp3 \(\d+ bytes\)/);
  }, 120_000);

  it('leaves the files it generates out of git: the fixtures files hold full keys', () => {
    for (const path of ['.agent-tts/fixtures.server.json', '.agent-tts/fixtures.sandbox.json', 'fixtures.json']) {
      expect(() => execFileSync('git', ['check-ignore', '-q', path], { cwd: ROOT }), path).not.toThrow();
    }
  });
});
