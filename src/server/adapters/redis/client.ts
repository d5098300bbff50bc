import type { EventEmitter } from 'node:events';
import { ClientClosedError, ClientOfflineError, ConnectionTimeoutError, SocketClosedUnexpectedlyError, TimeoutError, createClient } from 'redis';
import type { Logger } from '../../log.js';
import { redactUrl as redactRedisUrl } from '../../redact.js';
import { StoreUnavailableError } from '../../ports/index.js';
import { ConnectionBreaker } from './connection-breaker.js';

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

/** Reconnects quickly at first, then every 2 s at most, with jitter so a fleet does not reconnect in step. */
export function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, 2000) + Math.floor(Math.random() * 100);
}

/**
 * Connection-state logging for a client: the first error after being ready is a warning, then at most
 * one line every 30 s while the outage lasts, and one line when it is back, so an outage of minutes
 * does not flood the log with a line per reconnect attempt.
 */
export function logConnectionState(client: EventEmitter, name: string, url: string, log: Logger): void {
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
 *
 * With `commandTimeoutMs`, the client also gets a deadline (see `withinDeadline`): node-redis drops a
 * command's own timeout once the command is written to the socket, so against a Redis that stops
 * answering without closing its connections (a frozen process, a partition that drops packets) a
 * written command would otherwise wait for ever.
 */
export function createRedisClient(url: string, options: RedisClientOptions) {
  const breaker = options.commandTimeoutMs ? new ConnectionBreaker() : undefined;
  const client = createClient({
    url,
    name: options.name,
    // `signal` reaches net.connect: pulling the breaker destroys this client's sockets (see ConnectionBreaker).
    socket: { reconnectStrategy: reconnectDelay, connectTimeout: 5_000, ...(breaker ? { signal: breaker as unknown as AbortSignal } : {}) },
    ...(options.cacheReads ? { RESP: 3 as const, clientSideCache: { ttl: 0, maxEntries: READ_CACHE_ENTRIES, evictPolicy: 'LRU' as const } } : {}),
    ...(options.commandTimeoutMs ? { commandOptions: { timeout: options.commandTimeoutMs } } : {}),
  });
  if (options.log) logConnectionState(client, options.name, url, options.log);
  else client.on('error', () => undefined);
  if (breaker && options.commandTimeoutMs) {
    const settings = {
      ms: options.commandTimeoutMs,
      breaker,
      clockOffsetMs: 0,
      lastBreak: Number.NEGATIVE_INFINITY,
      refused: false,
      log: options.log,
      name: options.name,
    };
    const deadline: ClientDeadline = Object.assign(settings, { sweep: new DeadlineSweep(settings) });
    deadlines.set(client, deadline);
    // A torn-down connection (the breaker's AbortError) is not a refusal: Redis may be there, silent.
    client.on('error', (error: Error) => {
      if (error?.name !== 'AbortError') deadline.refused = true;
    });
    client.on('ready', () => {
      deadline.refused = false;
    });
    // Redis's clock against ours, for fences (`fenceAt`): measured at every (re)connection.
    client.on('ready', () => void measureClockOffset(client, deadline));
  }
  // The first connection may fail; the reconnect strategy keeps trying and 'error' reports it.
  client.connect().catch(() => undefined);
  return client;
}

interface ClientDeadline {
  ms: number;
  breaker: ConnectionBreaker;
  /** Redis's clock minus this process's, in ms (0 until measured). */
  clockOffsetMs: number;
  /** When the breaker was last pulled (performance.now()): operations started before then already lost their connection. */
  lastBreak: number;
  /**
   * The last attempt to connect failed (refused, reset, no route), and none has succeeded since: a
   * command that then runs out of time is reported as Redis unreachable, not as slow to answer.
   */
  refused: boolean;
  log?: Logger;
  name: string;
  sweep: DeadlineSweep;
}

const deadlines = new WeakMap<object, ClientDeadline>();

async function measureClockOffset(client: RedisClient, deadline: ClientDeadline): Promise<void> {
  try {
    const before = Date.now();
    const [seconds, micros] = (await withinDeadline(client, 'TIME', () => client.sendCommand(['TIME']))) as [string, string];
    const after = Date.now();
    deadline.clockOffsetMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - Math.round((before + after) / 2);
  } catch {
    // Keeps the last figure; the next reconnection measures again.
  }
}

/**
 * Runs one operation (one or more commands) against a client made with `commandTimeoutMs`, and gives
 * up when that time is over: the operation rejects with RedisUnavailableError and the client's
 * connections are torn down (their replies can no longer be matched to the commands that are still
 * waiting), so node-redis reconnects and service resumes by itself once Redis answers. A command that
 * was written before the tear-down may still run when Redis wakes up: a write whose late effect
 * matters carries a fence (`fenceAt`). A client without a deadline runs the operation as it is.
 *
 * The deadlines of a client's operations are kept by one sweep (see `DeadlineSweep`), not a timer per
 * operation: an operation is given up between `commandTimeoutMs` and an eighth of it later.
 */
export function withinDeadline<T>(client: RedisClient, what: string, operation: () => Promise<T>): Promise<T> {
  const deadline = deadlines.get(client);
  if (!deadline) return operation();
  return new Promise<T>((resolve, reject) => {
    const pending: PendingOperation = { started: performance.now(), what, reject };
    deadline.sweep.add(pending);
    let running: Promise<T>;
    try {
      running = operation();
    } catch (error) {
      deadline.sweep.remove(pending);
      reject(error);
      return;
    }
    // After the deadline, the operation's own failure (the torn-down connection) is no one's to handle.
    running.then(
      (value) => {
        deadline.sweep.remove(pending);
        resolve(value);
      },
      (error: unknown) => {
        deadline.sweep.remove(pending);
        reject(error);
      },
    );
  });
}

interface PendingOperation {
  /** performance.now() when it began (a clock that never goes back): operations are added in this order. */
  started: number;
  what: string;
  reject: (error: Error) => void;
}

/**
 * The operations of one client waiting for Redis, oldest first, and the one timer that gives them up.
 * An operation costs a set insertion and a deletion, where it cost a timer set and cleared and a
 * Promise.race. The timer ticks every eighth of the deadline while anything is or was just pending,
 * and stops at the first tick that finds nothing.
 */
class DeadlineSweep {
  private readonly pending = new Set<PendingOperation>();
  private timer: NodeJS.Timeout | undefined;
  private readonly tickMs: number;

  constructor(private readonly deadline: Omit<ClientDeadline, 'sweep'>) {
    this.tickMs = Math.max(5, Math.ceil(deadline.ms / 8));
  }

  add(operation: PendingOperation): void {
    this.pending.add(operation);
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), this.tickMs);
      this.timer.unref();
    }
  }

  remove(operation: PendingOperation): void {
    this.pending.delete(operation);
  }

  private sweep(): void {
    if (this.pending.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    const now = performance.now();
    const { deadline } = this;
    for (const operation of this.pending) {
      // Oldest first: once one is within its time, so are all after it.
      if (now - operation.started < deadline.ms) break;
      this.pending.delete(operation);
      const error = deadline.refused
        ? new RedisUnavailableError(`Redis did not answer (${operation.what}): it cannot be reached`)
        : new RedisUnavailableError(`Redis did not answer (${operation.what}): no answer within ${deadline.ms} ms`, { timedOut: true });
      if (operation.started >= deadline.lastBreak) {
        deadline.lastBreak = now;
        const sockets = deadline.breaker.break(error);
        deadline.log?.warn(
          { client: deadline.name, operation: operation.what, timeout_ms: deadline.ms, connections: sockets },
          'redis did not answer within the command deadline; reconnecting',
        );
      }
      operation.reject(error);
    }
  }
}

/**
 * The time, on Redis's clock (ms since the epoch), after which an operation started now has been
 * given up by its caller: a script that receives it refuses to act later than that (see CREATE_JOB),
 * so a command written just before Redis froze cannot take effect after the client got its error.
 * Clients without a deadline get no fence (0: never refuse).
 */
export function fenceAt(client: RedisClient): number {
  const deadline = deadlines.get(client);
  return deadline ? Date.now() + deadline.clockOffsetMs + deadline.ms : 0;
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
export class RedisUnavailableError extends StoreUnavailableError {
  override name = 'RedisUnavailableError';
}

const UNAVAILABLE = [TimeoutError, ClientOfflineError, ClientClosedError, SocketClosedUnexpectedlyError, ConnectionTimeoutError];

/**
 * node-redis reports a command timeout with an empty message; this says what did not happen (for the
 * admin CLI's message and the logs). Other errors pass through unchanged.
 */
export function asRedisUnavailable(error: unknown, what: string, client?: RedisClient): unknown {
  // AbortError: the connection was torn down under the command (a deadline ran out; see withinDeadline).
  const torn = error instanceof Error && error.name === 'AbortError';
  if (!torn && !UNAVAILABLE.some((type) => error instanceof type)) return error;
  const detail =
    error instanceof TimeoutError
      ? 'no answer within the command timeout'
      : torn
        ? 'its connection was reset after a missed deadline'
        : (error as Error).message;
  const refused = client !== undefined && deadlines.get(client)?.refused === true;
  return new RedisUnavailableError(`Redis did not answer (${what}): ${detail}`, {
    cause: error,
    timedOut: !refused && (torn || error instanceof TimeoutError),
  });
}
