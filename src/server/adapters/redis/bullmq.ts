import { RedisConnection, createNodeRedisClient, type JobsOptions, type RedisOptions } from 'bullmq';
import { createClient } from 'redis';
import type { DistributedSettings } from '../../config/distributed.js';
import { reconnectDelay } from './client.js';

let installed = false;

/**
 * BullMQ's default driver is ioredis; the project keeps one Redis client library, so every connection
 * BullMQ opens is a node-redis client, through its client factory. These clients have no command
 * timeout: a worker blocks on BZPOPMIN for seconds at a time, and queue commands wait out a reconnect.
 */
function useNodeRedisForBullMQ(): void {
  if (installed) return;
  installed = true;
  RedisConnection.clientFactory = (opts: RedisOptions) => {
    const url = typeof opts.url === 'string' ? opts.url : `redis://${opts.host ?? '127.0.0.1'}:${opts.port ?? 6379}`;
    const raw = createClient({
      url,
      name: typeof opts.connectionName === 'string' ? opts.connectionName : undefined,
      socket: { reconnectStrategy: reconnectDelay, connectTimeout: 5_000 },
    });
    return createNodeRedisClient(raw);
  };
}

/** Connection options for a BullMQ Queue or Worker (the factory above turns them into a node-redis client). */
export function bullConnection(url: string): RedisOptions {
  useNodeRedisForBullMQ();
  return { url };
}

/**
 * Options of every synthesis job. The BullMQ job id is the agent-tts job id, so queueing a job twice
 * (an API retry, the reconcile sweep) is a no-op while it is in the queue. The store is the source of
 * truth; the queue only says who runs what.
 */
export function synthesisJobOptions(settings: DistributedSettings): JobsOptions {
  return {
    attempts: settings.attempts,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: true,
    // Kept a while for inspection; the reconcile sweep fails their store records.
    removeOnFail: { age: 7 * 86_400, count: 10_000 },
  };
}
