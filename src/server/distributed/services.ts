import { join } from 'node:path';
import { LocalAudioStorage, SHARED_PART_STALE_MS } from '../adapters/local-audio-storage.js';
import { RedisJobQueue } from '../adapters/redis-job-queue.js';
import { RedisRateLimiter } from '../adapters/redis-rate-limiter.js';
import { RedisStore } from '../adapters/redis-store.js';
import type { Config } from '../config.js';
import { JobRunner } from '../domain/job-runner.js';
import { JobService } from '../domain/jobs.js';
import { KeyUsageRecorder } from '../domain/key-usage.js';
import { AudioUrlSigner } from '../domain/signing.js';
import { createOpsMetrics, instrumentRunner } from '../http/ops.js';
import type { Logger } from '../log.js';
import type { Services } from '../services.js';
import { createSynth } from '../services.js';
import { estimateOnlySynthesizer } from './estimate-only-synth.js';
import { closeRedisClient, createRedisClient } from './redis.js';
import { loadDistributedSettings } from './settings.js';
import { SynthesisWorker } from './synthesis-worker.js';

/** The store of a distributed deployment, for the admin CLI: it owns (and closes) its connection. */
export function openRedisStore(config: Config, name = 'agent-tts-admin'): RedisStore {
  const settings = loadDistributedSettings();
  const client = createRedisClient(config.redisUrl!, { name, commandTimeoutMs: settings.commandTimeoutMs });
  return new RedisStore(client, config.redisPrefix, true);
}

/**
 * Wires an API process of the distributed mode: Redis store and rate limiter (one connection, shared),
 * the BullMQ queue with its announcement subscriber, audio in the shared DATA_DIR/audio, and — unless
 * LOCAL_WORKERS=false — a synthesis worker in this process too. Connections are made in the background
 * and re-made after an outage; until Redis answers, requests get INTERNAL_ERROR and /readyz 503.
 */
export function createDistributedServices(config: Config, log: Logger): Services {
  const url = config.redisUrl!;
  const settings = loadDistributedSettings();
  const redis = createRedisClient(url, { name: 'agent-tts-api', commandTimeoutMs: settings.commandTimeoutMs, log });
  const store = new RedisStore(redis, config.redisPrefix);
  const limiter = new RedisRateLimiter(redis, config.redisPrefix);
  const audio = new LocalAudioStorage(join(config.dataDir, 'audio'), SHARED_PART_STALE_MS);
  const metrics = createOpsMetrics();
  const synth = config.localWorkers ? createSynth(config) : estimateOnlySynthesizer(config);
  const runner = new JobRunner(store, audio, synth, log);
  const queue = new RedisJobQueue({ url, prefix: config.redisPrefix, store, publisher: redis, settings, log });
  metrics.observeQueue(() => queue.stats());
  const worker = config.localWorkers
    ? new SynthesisWorker({
        url,
        prefix: config.redisPrefix,
        runner: instrumentRunner(runner, store, metrics),
        publisher: redis,
        concurrency: config.jobConcurrency,
        settings,
        log,
      })
    : undefined;
  // Live progress only helps retry_after_seconds when this process runs the job; other processes'
  // jobs are estimated from the progress their workers write to the store.
  const jobs = new JobService(store, queue, limiter, synth, config, worker ? runner : undefined);
  const signer = new AudioUrlSigner(config.urlSigningSecret, config.audioUrlTtlSeconds);
  const keyUsage = new KeyUsageRecorder(store);
  return {
    config,
    store,
    limiter,
    audio,
    synth,
    runner,
    queue,
    jobs,
    signer,
    keyUsage,
    metrics,
    async resumeInterrupted() {
      queue.startReconciling();
      // Redis may not answer yet: then the periodic sweep does this once it does.
      return queue.reconcile().catch((error: unknown) => {
        log.warn({ err: error }, 'queue reconcile at start failed; the periodic sweep retries');
        return 0;
      });
    },
    async close() {
      // A local worker finishes its jobs within the grace, then hands the rest back to the queue.
      await worker?.close(config.shutdownGraceMs);
      await queue.close();
      await keyUsage.close().catch(() => undefined);
      await synth.close();
      await limiter.close();
      await store.close();
      await closeRedisClient(redis);
    },
  };
}
