import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer, Socket, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from './helpers/http.js';
import { deleteKeys, redisOrSkip, startWorker, testRedisUrl, uniquePrefix, type RunningWorker } from './helpers/redis.js';
import { removeDir } from './helpers/server.js';

/**
 * A synthesis worker whose queue connection is dropped by Redis while BullMQ sets it up (between the
 * connect and its INFO version check; a Redis that restarts or dies as the worker starts). BullMQ keeps
 * that failed set-up for good, and a worker run on it failed every fetch at once and asked again at once:
 * it spun at 100% CPU in microtasks, never took a job, and starved its own SIGTERM handler.
 *
 * A proxy in front of the shared Redis resets the first two connections that send INFO (the worker's command and blocking connections), so the drop lands
 * at the same point on every run (the test's own keys only; nothing of Redis itself is stopped).
 */
const redis = await redisOrSkip('worker-redis-reset');

/** CPU time (user + system, in ms) of a Linux process so far, from /proc. */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Forwards to Redis, but resets the first two client connections that send INFO (the worker's two). */
function resettingProxy(target: URL): { server: Server; resets: () => number; sockets: Set<Socket> } {
  let resets = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = new Socket();
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    upstream.connect(Number(target.port || 6379), target.hostname);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('data', (chunk) => client.write(chunk));
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.on('data', (chunk) => {
      if (resets < 2 && /\r\nINFO\r\n/i.test(chunk.toString('latin1'))) {
        resets++;
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
  });
  return { server, resets: () => resets, sockets };
}

describe.skipIf(!redis || process.platform !== 'linux')('a worker whose Redis connection drops while it starts', () => {
  const prefix = uniquePrefix('worker-reset');
  let proxy: ReturnType<typeof resettingProxy>;
  let dataDir: string;
  let worker: RunningWorker | undefined;

  beforeAll(async () => {
    const target = new URL(testRedisUrl());
    proxy = resettingProxy(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    dataDir = await mkdtemp(join(tmpdir(), 'agent-tts-worker-reset-'));
  });

  afterAll(async () => {
    if (worker && worker.process.exitCode === null && worker.process.signalCode === null) await worker.kill();
    for (const socket of proxy?.sockets ?? []) socket.destroy();
    await new Promise((resolve) => proxy?.server.close(resolve));
    if (dataDir) await removeDir(dataDir);
    if (redis) {
      await deleteKeys(redis, prefix);
      redis.destroy();
    }
  });

  it('does not spin, starts taking jobs once Redis answers, and exits on SIGTERM within its grace period', async () => {
    const target = new URL(testRedisUrl());
    const port = (proxy.server.address() as { port: number }).port;
    const grace = 3_000;
    worker = await startWorker({
      REDIS_URL: `redis://127.0.0.1:${port}${target.pathname}`,
      REDIS_PREFIX: prefix,
      DATA_DIR: dataDir,
      SHUTDOWN_GRACE_MS: String(grace),
    });
    const pid = worker.process.pid ?? 0;
    for (let i = 0; i < 100 && proxy.resets() < 2; i++) await sleep(50);
    expect(proxy.resets(), 'the proxy reset the connections that asked INFO').toBe(2);

    // Before: a CPU core in full (the fetch loop never waited); now the worker idles while it waits.
    const before = await cpuMs(pid);
    const started = performance.now();
    await sleep(2_000);
    const share = (await cpuMs(pid)) - before;
    expect(share / (performance.now() - started), `CPU share over 2 s\n${worker.logs().split('\n').slice(-5).join('\n')}`).toBeLessThan(0.3);

    await worker.waitForLog('agent-tts worker ready: taking jobs', 200);
    expect(worker.logs()).toContain('redis connection failed while starting; starting again');

    worker.process.kill('SIGTERM');
    for (let waited = 0; worker.process.exitCode === null && waited < grace + 4_000; waited += 100) await sleep(100);
    expect(worker.process.exitCode, worker.logs().split('\n').slice(-5).join('\n')).toBe(0);
  }, 60_000);
});
