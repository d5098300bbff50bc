import type { Server } from 'node:http';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { LocalAudioStorage, SHARED_PART_STALE_MS } from './adapters/local-audio-storage.js';
import { RedisStore } from './adapters/redis-store.js';
import { ConfigError, loadConfig } from './config.js';
import { closeRedisClient, createRedisClient, redactRedisUrl } from './distributed/redis.js';
import { loadDistributedSettings } from './distributed/settings.js';
import { SynthesisWorker } from './distributed/synthesis-worker.js';
import { createWorkerOpsApp } from './distributed/worker-ops.js';
import { JobRunner } from './domain/job-runner.js';
import { createOpsMetrics, instrumentRunner } from './http/ops.js';
import { createLogger } from './log.js';
import { handleProcessArgs, WORKER_HELP } from './process-args.js';
import { createSynth } from './services.js';

/**
 * A synthesis worker process of the distributed mode (`agent-tts-worker`, `npm run worker`): takes
 * jobs from the Redis queue, synthesizes them into the shared audio directory and settles them in the
 * store. Run as many as the machines allow; on SIGTERM it stops taking jobs, lets the running ones
 * finish within SHUTDOWN_GRACE_MS and hands the rest back to the queue.
 */
async function main(): Promise<void> {
  handleProcessArgs('agent-tts-worker', WORKER_HELP);
  let config;
  let settings;
  try {
    config = loadConfig();
    settings = loadDistributedSettings();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`agent-tts-worker: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (!config.redisUrl) {
    process.stderr.write('agent-tts-worker: REDIS_URL is not set; workers take their jobs from the Redis queue of a distributed deployment.\n');
    process.exit(2);
  }
  const url = config.redisUrl;
  const log = createLogger(config.logLevel, 'agent-tts-worker');
  const redis = createRedisClient(url, { name: 'agent-tts-worker', commandTimeoutMs: settings.commandTimeoutMs, log });
  const store = new RedisStore(redis, config.redisPrefix);
  const audio = new LocalAudioStorage(join(config.dataDir, 'audio'), SHARED_PART_STALE_MS);
  const synth = createSynth(config);
  const metrics = createOpsMetrics();
  const runner = new JobRunner(store, audio, synth, log);
  const worker = new SynthesisWorker({
    url,
    prefix: config.redisPrefix,
    runner: instrumentRunner(runner, store, metrics),
    publisher: redis,
    concurrency: config.jobConcurrency,
    settings,
    log,
  });

  let ops: Server | undefined;
  if (settings.workerOpsPort !== undefined) {
    const app = createWorkerOpsApp({ store, log, metrics, queue: { ping: () => worker.ping() } });
    ops = await new Promise<Server>((resolve, reject) => {
      const server = serve({ fetch: app.fetch, port: settings.workerOpsPort, hostname: config.host }, () => resolve(server as Server)) as Server;
      server.once('error', reject);
    });
  }
  const opsPort = ops ? (ops.address() as { port: number }).port : undefined;
  log.info(
    { redis: redactRedisUrl(url), prefix: config.redisPrefix, concurrency: config.jobConcurrency, data_dir: config.dataDir, ops_port: opsPort },
    'agent-tts worker started',
  );
  // Without Redis at start, this waits (reconnecting) rather than exiting: workers come up in any order.
  worker
    .ready()
    .then(() => log.info({ concurrency: config.jobConcurrency }, 'agent-tts worker ready: taking jobs'))
    .catch((error: unknown) => log.error({ err: error }, 'worker could not start taking jobs'));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, running: worker.activeJobs }, 'worker shutting down: no new jobs; running jobs finish or go back to the queue');
    await worker.close(config.shutdownGraceMs);
    if (ops) await new Promise<void>((resolve) => ops.close(() => resolve()));
    await synth.close();
    await closeRedisClient(redis);
    log.info('worker stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`agent-tts-worker: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
