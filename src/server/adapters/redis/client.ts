import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  SocketClosedUnexpectedlyError,
  TimeoutError,
  createClient,
} from 'redis';
import type { Logger } from '../../log.js';

export type RedisClient = ReturnType<typeof createRedisClient>;

export interface RedisClientOptions {
  /** Shown in `CLIENT LIST`, so an operator can tell the processes apart. */
  name: string;
  /**
   * Upper bound on any one command, queueing while disconnected included. Request-path clients set
   * it so an outage answers INTERNAL_ERROR in seconds instead of holding requests open; the clients
   * BullMQ blocks on (BZPOPMIN) must not have one.
   */
  commandTimeoutMs?: number;
  /**
   * Cache the replies of read commands (HGETALL, HMGET, GET…) in this process, with Redis's
   * server-assisted invalidation (RESP3 `CLIENT TRACKING`): Redis tells the client, on this same
   * connection, of every change to a key it read, before the writer gets its answer, so a cached
   * record is dropped rather than left to expire. A request then pays only for what it writes.
   */
  cacheReads?: boolean;
  log?: Logger;
}

/** Entries of the read cache (LRU beyond): keys, accounts, finished jobs and usage of active callers. */
const READ_CACHE_ENTRIES = 10_000;

/** `redis://user:secret@host:6379/2` → `redis://user:***@host:6379/2`: URLs reach logs only like this. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable REDIS_URL)';
  }
}

/** Reconnects quickly at first, then every 2 s at most, with jitter so a fleet does not reconnect in step. */
export function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, 2000) + Math.floor(Math.random() * 100);
}

/**
 * Connection-state logging for a client: the first error after being ready is a warning, then at most
 * one line every 30 s while the outage lasts, and one line when it is back, so an outage of minutes
 * does not flood the log with a line per reconnect attempt.
 */
export function logConnectionState(
  client: EventEmitter,
  name: string,
  url: string,
  log: Logger,
): void {
  let down = false;
  let lastLogged = 0;
  const target = redactRedisUrl(url);
  client.on('error', (error: Error) => {
    const now = Date.now();
    if (!down || now - lastLogged > 30_000) {
      log.warn({ redis: target, client: name, error: error.message }, 'redis unreachable; reconnecting');
      lastLogged = now;
    }
    down = true;
  });
  client.on('ready', () => {
    if (down) log.info({ redis: target, client: name }, 'redis connection restored');
    down = false;
  });
}

/**
 * A node-redis client that starts connecting at once and keeps reconnecting by itself. Commands sent
 * while it is connecting wait in its offline queue (bounded by `commandTimeoutMs` when set).
 */
export function createRedisClient(url: string, options: RedisClientOptions) {
  const client = createClient({
    url,
    name: options.name,
    socket: { reconnectStrategy: reconnectDelay, connectTimeout: 5_000 },
    ...(options.cacheReads ? { RESP: 3 as const, clientSideCache: { ttl: 0, maxEntries: READ_CACHE_ENTRIES, evictPolicy: 'LRU' as const } } : {}),
    ...(options.commandTimeoutMs ? { commandOptions: { timeout: options.commandTimeoutMs } } : {}),
  });
  if (options.log) logConnectionState(client, options.name, url, options.log);
  else client.on('error', () => undefined);
  // The first connection may fail; the reconnect strategy keeps trying and 'error' reports it.
  client.connect().catch(() => undefined);
  return client;
}

/** Closes a client politely when it is connected, and drops it at once when it is not. */
export async function closeRedisClient(client: RedisClient): Promise<void> {
  if (!client.isOpen) return;
  if (!client.isReady) {
    client.destroy();
    return;
  }
  await client.close().catch(() => client.destroy());
}

/** Redis did not answer: down, unreachable, or slower than the command timeout. */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

const UNAVAILABLE = [TimeoutError, ClientOfflineError, ClientClosedError, SocketClosedUnexpectedlyError, ConnectionTimeoutError];

/**
 * node-redis reports a command timeout with an empty message; this says what did not happen (for the
 * admin CLI's message and the logs). Other errors pass through unchanged.
 */
export function asRedisUnavailable(error: unknown, what: string): unknown {
  if (!UNAVAILABLE.some((type) => error instanceof type)) return error;
  const detail = error instanceof TimeoutError ? 'no answer within the command timeout' : (error as Error).message;
  return new RedisUnavailableError(`Redis did not answer (${what}): ${detail}`, { cause: error });
}

/**
 * A Lua script run with EVALSHA, falling back to EVAL when the server does not have it cached (after a
 * restart or a SCRIPT FLUSH). Redis runs a script as one atomic step: the basis of every
 * multi-key invariant of the distributed mode.
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    try {
      return await client.sendCommand(['EVALSHA', this.sha, ...tail]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.sendCommand(['EVAL', this.source, ...tail]);
    }
  }
}
