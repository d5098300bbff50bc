import type { Logger } from '../../log.js';
import type { JobRun } from '../../ports/index.js';
import type { Config } from '../../config.js';
import { closeRedisClient, createRedisClient, type RedisClient } from './client.js';
import { RedisJobQueue } from './job-queue.js';
import { RedisRateLimiter } from './rate-limiter.js';
import type { DistributedSettings } from '../../config/distributed.js';
import { RedisStore } from './store.js';
import { SynthesisWorker } from './synthesis-worker.js';

/**
 * The Redis side of a distributed deployment for one process: one command connection shared by the
 * store, the rate limiter and the queue's announcements; the BullMQ queue and workers make their own.
 * Loaded only when REDIS_URL is set, so the embedded default starts without node-redis and BullMQ.
 */
export interface RedisBackends {
  settings: DistributedSettings;
  client: RedisClient;
  store: RedisStore;
  limiter(): RedisRateLimiter;
  queue(): RedisJobQueue;
  worker(runner: JobRun, concurrency: number): SynthesisWorker;
  close(): Promise<void>;
}

/** `cacheReads`: the command connection caches what it reads, invalidated by Redis (see createRedisClient). */
export function openRedisBackends(
  config: Config,
  settings: DistributedSettings,
  log: Logger,
  name: string,
  options: { cacheReads?: boolean } = {},
): RedisBackends {
  const url = config.redisUrl!;
  const client = createRedisClient(url, { name, commandTimeoutMs: settings.commandTimeoutMs, cacheReads: options.cacheReads, log });
  const store = new RedisStore(client, config.redisPrefix);
  return {
    settings,
    client,
    store,
    limiter: () => new RedisRateLimiter(client, config.redisPrefix),
    queue: () => new RedisJobQueue({ url, prefix: config.redisPrefix, store, publisher: client, settings, log }),
    worker: (runner, concurrency) => new SynthesisWorker({ url, prefix: config.redisPrefix, runner, publisher: client, concurrency, settings, log }),
    close: () => closeRedisClient(client),
  };
}
