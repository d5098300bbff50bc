import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKER_MAIN, freePort } from '@agent-tts/bench/harness/server-process.js';
import { NodeProcess } from '@agent-tts/bench/harness/node-process.js';
import { createClient } from 'redis';
import { afterAll } from 'vitest';
import type { RedisClient } from '../../src/server/adapters/redis/client.js';

/** Tests use a database of their own on the shared Redis, and only keys under their own prefixes. */
const TEST_REDIS_DB = 11;

/** `TEST_REDIS_URL` (default the local Redis), on database 11 unless the URL names one. */
export function testRedisUrl(): string {
  const url = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  if (url.pathname === '' || url.pathname === '/') url.pathname = `/${TEST_REDIS_DB}`;
  return url.toString();
}

/** A key prefix no other test run uses; everything under it is deleted by `deleteKeys`. */
export function uniquePrefix(label: string): string {
  return `agent-tts-test:${label}:${randomBytes(4).toString('hex')}:`;
}

export type TestRedisClient = RedisClient;

/** Connects once, without retrying: undefined when nothing answers (the suite then skips). */
export async function connectTestRedis(url = testRedisUrl()): Promise<TestRedisClient | undefined> {
  const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 1_500 } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch {
    if (client.isOpen) client.destroy();
    return undefined;
  }
}

/** Is this a CI run (CI=true), where a missing component is a failure, never a skip? */
export const inCi = (): boolean => process.env.CI === 'true' || process.env.CI === '1';

/**
 * For `describe.skipIf(!redis)`: a client when Redis answers, else undefined and one plain line saying
 * the suite is skipped and why, so a run without Redis passes and says so. With CI=true a missing
 * Redis (no TEST_REDIS_URL, or nothing answering there) throws instead: CI cannot pass by skipping
 * the distributed mode.
 */
export async function redisOrSkip(suite: string): Promise<TestRedisClient | undefined> {
  const url = testRedisUrl();
  const shown = url.replace(/\/\/[^@]*@/, '//***@');
  if (inCi() && !process.env.TEST_REDIS_URL) {
    throw new Error(`CI=true and TEST_REDIS_URL is not set: the Redis suite "${suite}" must run (run .ci/ensure-redis.sh and source .ci/redis.env)`);
  }
  const client = await connectTestRedis(url);
  if (!client) {
    if (inCi()) throw new Error(`CI=true and no Redis answers at ${shown}: the Redis suite "${suite}" must run, not skip`);
    console.log(`Redis suite skipped (${suite}): no Redis at ${shown}`);
  }
  return client;
}

/**
 * A test file's Redis (undefined when the suite skips, as `redisOrSkip` says) and a key prefix of its
 * own: after the file's tests, the keys under the prefix are deleted and the client closed.
 */
export async function redisForFile(suite: string, label: string): Promise<{ redis: TestRedisClient | undefined; prefix: string }> {
  const redis = await redisOrSkip(suite);
  const prefix = uniquePrefix(label);
  afterAll(async () => {
    if (!redis) return;
    await deleteKeys(redis, prefix);
    redis.destroy();
  });
  return { redis, prefix };
}

/** Deletes every key under a prefix (SCAN + UNLINK, bounded per round): never FLUSHDB on a shared Redis. */
export async function deleteKeys(client: TestRedisClient, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  for (let round = 0; round < 10_000; round++) {
    const page = await client.scan(cursor, { MATCH: `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, COUNT: 500 });
    if (page.keys.length > 0) deleted += await client.unlink(page.keys);
    cursor = String(page.cursor);
    if (cursor === '0') break;
  }
  return deleted;
}

/** Waits, bounded by a number of rounds (never by a measured time), until `check` is truthy. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  rounds = 300,
  everyMs = 100,
): Promise<T> {
  let lastError: unknown;
  for (let i = 0; i < rounds; i++) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`gave up waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
}

export interface RunningWorker {
  process: ChildProcess;
  /** Origin of its operations listener, when started with WORKER_OPS_PORT. */
  opsUrl?: string;
  logs(): string;
  /** Resolves once a log line contains `text` (bounded: `rounds` of 50 ms). */
  waitForLog(text: string, rounds?: number): Promise<void>;
  /** SIGTERM, then waits for the exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash). */
  kill(): Promise<void>;
}

/** Starts a synthesis worker process (built, in `dist/`) and waits until it has started. */
export async function startWorker(env: Record<string, string>): Promise<RunningWorker> {
  const worker = NodeProcess.spawn('agent-tts worker', WORKER_MAIN, { env: { SYNTH_THREADS: '1', LOG_LEVEL: 'info', ...env } });
  const waitForLog = (text: string, rounds = 600) => worker.waitForLog(text, rounds * 50);
  await waitForLog('agent-tts worker started');
  const opsPort = /"ops_port":(\d+)/.exec(worker.log())?.[1];
  return {
    process: worker.child,
    opsUrl: opsPort ? `http://127.0.0.1:${opsPort}` : undefined,
    logs: () => worker.log(),
    waitForLog,
    stop: () => worker.stop(),
    kill: () => worker.kill(),
  };
}

export interface OwnRedis {
  url: string;
  port: number;
  dir: string;
  /** SIGKILL: no shutdown save; what survives is what the append-only file already holds. */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory (it reloads the append-only file). */
  start(): Promise<void>;
  /** Stops it for good (SIGKILL; the directory is temporary). */
  stop(): Promise<void>;
  /**
   * SIGSTOP: the process stops answering but its connections stay open (the kernel still accepts and
   * acknowledges), as behind a partition that drops packets. `thaw()` (SIGCONT) lets it go on.
   */
  freeze(): void;
  thaw(): void;
}

/**
 * A redis-server of the test's own on a free port, with an append-only file fsynced on every write
 * in a temporary directory, for tests that kill and restart Redis (never the shared instance).
 */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'agent-tts-redis-'));
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}/0`;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--protected-mode', 'no'],
      { stdio: 'ignore' },
    );
    child.on('error', () => undefined);
    await eventually(
      async () => {
        const client = await connectTestRedis(url);
        if (!client) return false;
        // A restarted server answers LOADING until it has replayed its append-only file.
        const ok = await client.ping().then(
          () => true,
          () => false,
        );
        client.destroy();
        return ok;
      },
      `redis-server on port ${port}`,
      200,
      50,
    );
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  };
  const signal = (name: NodeJS.Signals) => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill(name);
  };
  const stop = async () => {
    signal('SIGCONT');
    await kill();
  };
  await start();
  return { url, port, dir, kill, start, stop, freeze: () => signal('SIGSTOP'), thaw: () => signal('SIGCONT') };
}

/** Is a redis-server binary on PATH (needed only by the test that restarts its own Redis)? */
export async function hasRedisServerBinary(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = spawn('redis-server', ['--version'], { stdio: 'ignore' });
    probe.on('error', () => resolve(false));
    probe.on('exit', (code) => resolve(code === 0));
  });
}

/** Waits (bounded) until a server answers /healthz: after a restart, before talking to it. */
export async function waitUntilAnswering(baseUrl: string): Promise<void> {
  await eventually(async () => (await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) })).status === 200, `${baseUrl}/healthz`);
}
