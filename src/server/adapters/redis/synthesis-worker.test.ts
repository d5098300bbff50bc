import { Queue, type RedisConnection } from 'bullmq';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { eventually, redisForFile, testRedisUrl } from '../../../../test/helpers/redis.js';
import { loadDistributedSettings } from '../../config/distributed.js';
import { bullConnection } from './bullmq.js';
import { closeRedisClient, createRedisClient } from './client.js';
import { RedisKeys, SYNTHESIS_QUEUE } from './keys.js';
import { SynthesisWorker } from './synthesis-worker.js';

const { redis, prefix } = await redisForFile('SynthesisWorker on a dropped blocking connection', 'worker-spin');

/** CPU used by this process, in percent of the wall time, over `ms`, and how late a timer of `ms` fired. */
async function cpuOver(ms: number): Promise<{ cpuPercent: number; timerLateMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const used = process.cpuUsage(cpu);
  const wall = performance.now() - started;
  return { cpuPercent: ((used.user + used.system) / 1000 / wall) * 100, timerLateMs: wall - ms };
}

describe.skipIf(!redis)('SynthesisWorker when its blocking connection is dropped while it runs', () => {
  it('does not spin (CPU stays low, timers run on time), takes jobs again, and closes within its grace', async () => {
    const url = testRedisUrl();
    const settings = loadDistributedSettings({});
    const publisher = createRedisClient(url, { name: 'worker-spin-test' });
    const ran: string[] = [];
    const worker = new SynthesisWorker({
      url,
      prefix,
      runner: {
        run: async (jobId) => {
          ran.push(jobId);
          return true;
        },
      },
      publisher,
      concurrency: 2,
      settings,
      log: pino({ level: 'silent' }),
    });
    const queue = new Queue(SYNTHESIS_QUEUE, { connection: bullConnection(url), prefix: new RedisKeys(prefix).bullPrefix() });
    try {
      await worker.ready();
      // What BullMQ's stuck-read watchdog does to the worker's blocking connection before it reconnects
      // it: disconnect it. Left disconnected (a reconnect that did not take), every job fetch answered
      // at once with "nothing", and the fetch loop spun at full CPU, starving timers and signal handlers.
      const internals = worker as unknown as { worker: { backend: { blockingConnection: RedisConnection } } };
      await internals.worker.backend.blockingConnection.disconnect();

      const spent = await cpuOver(2_000);
      expect(spent.cpuPercent).toBeLessThan(30);
      expect(spent.timerLateMs).toBeLessThan(500);

      // The worker reconnects and takes jobs again.
      await queue.add('synthesize', {}, { jobId: 'after-drop' });
      await eventually(() => ran.includes('after-drop'), 'the job queued after the drop to run', 200, 100);

      const closing = performance.now();
      await worker.close(5_000);
      expect(performance.now() - closing).toBeLessThan(5_500);
    } finally {
      await worker.close(1_000);
      await queue.close();
      await closeRedisClient(publisher);
    }
  });
});
