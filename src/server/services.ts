import { join } from 'node:path';
import { createSynthesizer, type Synthesizer } from '../synth/index.js';
import { LocalAudioStorage } from './adapters/local-audio-storage.js';
import { LocalJobQueue } from './adapters/local-queue.js';
import { MemoryRateLimiter } from './adapters/memory-rate-limiter.js';
import { SqliteStore } from './adapters/sqlite-store.js';
import type { Config } from './config.js';
import { JobRunner } from './domain/job-runner.js';
import { JobService } from './domain/jobs.js';
import { KeyUsageRecorder } from './domain/key-usage.js';
import { AudioUrlSigner } from './domain/signing.js';
import { createOpsMetrics, instrumentRunner, type OpsMetrics } from './http/ops.js';
import type { Logger } from './log.js';
import type { AudioStorage, JobQueue, RateLimiter, Store } from './ports.js';

export interface Services {
  config: Config;
  store: Store;
  limiter: RateLimiter;
  audio: AudioStorage;
  synth: Synthesizer;
  runner: JobRunner;
  queue: JobQueue;
  jobs: JobService;
  signer: AudioUrlSigner;
  keyUsage: KeyUsageRecorder;
  metrics: OpsMetrics;
  /** Jobs left processing by a previous run (a crash or a shutdown) are queued again. */
  resumeInterrupted(): Promise<number>;
  close(): Promise<void>;
}

export async function openStore(config: Config): Promise<Store> {
  if (config.redisUrl) {
    // Loaded only in distributed mode, so the embedded default starts without node-redis and BullMQ.
    const { openRedisStore } = await import('./distributed/services.js');
    return openRedisStore(config);
  }
  return new SqliteStore(join(config.dataDir, 'agent-tts.sqlite'));
}

export function createSynth(config: Config): Synthesizer {
  return createSynthesizer({
    engine: config.engine,
    threads: config.synthThreads,
    upstream: { ...config.upstream, retries: 3 },
  });
}

/** Wires the embedded default: SQLite, in-process rate limiter and queue, worker-thread synthesis. */
export async function createServices(config: Config, log: Logger): Promise<Services> {
  if (config.redisUrl) {
    const { createDistributedServices } = await import('./distributed/services.js');
    return createDistributedServices(config, log);
  }
  const store = await openStore(config);
  const limiter = new MemoryRateLimiter();
  const audio = new LocalAudioStorage(join(config.dataDir, 'audio'));
  const synth = createSynth(config);
  const runner = new JobRunner(store, audio, synth, log);
  const metrics = createOpsMetrics();
  const queue = new LocalJobQueue(instrumentRunner(runner, store, metrics), config.jobConcurrency, log);
  metrics.observeQueue(() => queue.stats());
  const jobs = new JobService(store, queue, limiter, synth, config, runner);
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
      const ids = await store.listProcessingJobIds();
      for (const id of ids) await queue.enqueue(id);
      return ids.length;
    },
    async close() {
      await queue.close();
      await keyUsage.close();
      await synth.close();
      await limiter.close();
      await store.close();
    },
  };
}
