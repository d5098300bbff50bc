import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMp3, getJob, pollUntilDone, postJob, sleep } from './helpers/http.js';
import { removeDir, ROOT } from './helpers/server.js';
import { freePort } from '@agent-tts/bench/harness/server-process.js';

/**
 * docs/distributed.md runs as written on one machine: its shell blocks marked
 * `<!-- distributed-guide: … -->` are taken from the page and run by bash in an empty directory, with
 * the programs of this checkout on PATH for those `npm install -g` would install (the install lines are
 * the only ones left out) and every port of the guide moved to a free one (its own redis-server
 * included). A job is then submitted on one API instance, polled on the other and its audio decoded.
 */
const hasRedis = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    execFileSync('redis-cli', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const GUIDE = join(ROOT, 'docs/distributed.md');
const GUIDE_PORTS = [6379, 8080, 8081, 8090, 8091, 9101, 9000];

function block(markdown: string, name: string): string[] {
  const m = new RegExp(`<!-- distributed-guide: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(markdown);
  if (!m) throw new Error(`docs/distributed.md has no block marked "distributed-guide: ${name}"`);
  return m[1]!.split('\n');
}

describe.skipIf(!hasRedis && process.env.CI !== 'true')('docs/distributed.md, run as written', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let ports: Map<number, number>;
  let markdown: string;
  const running: ChildProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-guide-'));
    const bin = join(dir, '.bin');
    await mkdir(bin);
    for (const name of ['agent-tts-server', 'agent-tts-worker', 'agent-tts-admin']) {
      await writeFile(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'src/server/bin', `${name}.js`)}" "$@"\n`);
      await chmod(join(bin, name), 0o755);
    }
    await symlink(join(ROOT, 'node_modules/.bin/s3rver'), join(bin, 's3rver'));
    ports = new Map();
    for (const port of GUIDE_PORTS) ports.set(port, await freePort());
    markdown = await readFile(GUIDE, 'utf8');
    env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, LOG_LEVEL: 'info' };
    for (const name of ['REDIS_URL', 'REDIS_PREFIX', 'DATA_DIR', 'PUBLIC_BASE_URL', 'AUDIO_STORE', 'PORT', 'HOST']) delete env[name];
  });

  afterAll(async () => {
    for (const child of running) stopGroup(child);
    await sleep(500);
    for (const child of running) stopGroup(child, 'SIGKILL');
    await removeDir(dir);
  });

  function stopGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): void {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // The group is gone.
    }
  }

  /** Runs `lines` with bash in the guide's directory; the processes it starts in the background keep running. */
  async function run(lines: string[]): Promise<ChildProcess> {
    const script = lines
      .filter((line) => !/^npm install\b/.test(line))
      .map((line) => line.replace(/\b(6379|8080|8081|8090|8091|9101|9000)\b/g, (p) => String(ports.get(Number(p)))))
      .join('\n');
    const child = spawn('bash', ['-e', '-c', script], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    running.push(child);
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const timer = setTimeout(() => stopGroup(child, 'SIGKILL'), 90_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(timer);
    expect(code, `the guide's commands failed:\n${script}\n---\n${output}`).toBe(0);
    return child;
  }

  /** The seeded key, a job posted on the first instance, polled on the second, its audio decoded from the URL it gives. */
  async function submitAndHear(): Promise<void> {
    const fixtures = JSON.parse(await readFile(join(dir, '.agent-tts/fixtures.server.json'), 'utf8'));
    const key = fixtures.keys.active[0] as string;
    const api1 = `http://127.0.0.1:${ports.get(8080)}`;
    const api2 = `http://127.0.0.1:${ports.get(8081)}`;
    expect(fixtures.base_url).toBe(api1);
    // The API instances may still be starting.
    let posted = await postJob(api1, key, { text: 'Hello from the distributed guide.' }).catch(() => undefined);
    for (let i = 0; i < 150 && posted === undefined; i++) {
      await sleep(200);
      posted = await postJob(api1, key, { text: 'Hello from the distributed guide.' }).catch(() => undefined);
    }
    expect(posted, 'the first API instance never answered').toBeDefined();
    expect([200, 202], JSON.stringify(posted!.body)).toContain(posted!.status);
    const id: string = posted!.body.job_id;
    // The second instance may still be starting.
    for (let i = 0; i < 150 && (await getJob(api2, key, id).catch(() => undefined)) === undefined; i++) await sleep(200);
    const done = await pollUntilDone(api2, key, id, 60_000);
    const job = done.body as { status: string; audio_url: string };
    expect(job.status, JSON.stringify(done.body)).toBe('completed');
    expect(job.audio_url.startsWith(`${api1}/`)).toBe(true);
    const audio = await fetch(job.audio_url);
    expect(audio.status).toBe(200);
    expect((await decodeMp3(new Uint8Array(await audio.arrayBuffer()))).seconds).toBeGreaterThan(1);
  }

  it('with a shared directory: Redis, two API instances, a worker, the admin', { timeout: 180_000 }, async () => {
    const shell = await run(block(markdown, 'one-machine'));
    try {
      await submitAndHear();
    } finally {
      // The next block takes the same ports (its Redis too: it starts it again, from the same directory).
      stopGroup(shell, 'SIGKILL');
      await sleep(1000);
    }
  });

  it('with s3rver: the object store, on the Redis started above', { timeout: 180_000 }, async () => {
    // The Redis lines of the first block (the guide's "the Redis started above"), run again: the first
    // block's processes, Redis among them, were stopped as one group.
    const redisLines = block(markdown, 'one-machine').filter((line) => /^mkdir|^redis-server|^until redis-cli/.test(line));
    expect(redisLines).toHaveLength(3);
    await run(redisLines);
    await run(block(markdown, 's3rver'));
    await submitAndHear();
    const objects = execFileSync('find', [join(dir, 's3rver-data'), '-name', '*.mp3*'], { encoding: 'utf8' });
    expect(objects, 'the audio is in the bucket').toMatch(/audio/);
  });
});
