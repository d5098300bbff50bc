import { ConnectionClosedError, RedisConnection, createNodeRedisClient, type JobsOptions, type RedisOptions } from 'bullmq';
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
    return failWhenClosed(createNodeRedisClient(raw), raw);
  };
}

type BullClient = ReturnType<typeof createNodeRedisClient>;

/**
 * BullMQ's node-redis adapter answers a blocking read (BZPOPMIN, XREAD) or a script on a client it has
 * disconnected with null, as if the read timed out or the script found nothing: that keeps its own close
 * quiet. But when the worker's blocking connection is left disconnected while the worker runs (its
 * stuck-read watchdog disconnects it, and the reconnect does not take), every job fetch then returns at
 * once, without an error, so BullMQ's fetch loop neither backs off nor reconnects: it spins in
 * microtasks at full CPU, and the timers and signal handlers of the process (SIGTERM) never run. A
 * command issued on a closed client fails here with BullMQ's own connection error instead, which its
 * worker answers by reconnecting and waiting before the next fetch.
 */
function failWhenClosed(client: BullClient, raw: { isOpen: boolean }): BullClient {
  const guarded = new Set<PropertyKey>(['bzpopmin', 'xread', 'runCommand']);
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (!guarded.has(property) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (!raw.isOpen) return Promise.reject(new ConnectionClosedError());
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
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
