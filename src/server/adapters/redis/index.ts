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
 * store and the queue's announcements, one for the rate limiter when the first caches its reads; the
 * BullMQ queue and workers make their own.
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
  // The rate limiter's connection of its own, never caching: Redis tracks the keys a script reads for
  // the connection that ran it, so on a caching connection every check would be answered by an
  // invalidation of its bucket at the next one (a push message per request, and the decoded records'
  // generation bumped under every read in flight). Made on first use; a process without a limiter
  // (a worker) opens none.
  let limiterClient: RedisClient | undefined;
  return {
    settings,
    client,
    store,
    limiter: () => {
      limiterClient ??= options.cacheReads ? createRedisClient(url, { name: `${name}-limits`, commandTimeoutMs: settings.commandTimeoutMs, log }) : client;
      return new RedisRateLimiter(limiterClient, config.redisPrefix);
    },
    queue: () => new RedisJobQueue({ url, prefix: config.redisPrefix, store, publisher: client, settings, log }),
    worker: (runner, concurrency) => new SynthesisWorker({ url, prefix: config.redisPrefix, runner, publisher: client, concurrency, settings, log }),
    close: async () => {
      if (limiterClient && limiterClient !== client) await closeRedisClient(limiterClient);
      await closeRedisClient(client);
    },
  };
}
