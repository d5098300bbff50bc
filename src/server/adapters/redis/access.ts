import { RedisKeys } from './keys.js';
import { asRedisUnavailable, withinDeadline, type RedisClient } from './client.js';
import { type DecodedRecords, decodedRecordsOf } from './decoded-records.js';
import type { Hash } from './hashes.js';

/**
 * What every repository of the Redis store works through: the shared client, the deployment's key
 * names, the deadline every operation runs within, and the reads a caching client may answer itself.
 */
export class RedisAccess {
  readonly keys: RedisKeys;
  /** With a caching client: decoded accounts, keys and jobs, dropped on Redis's invalidations. */
  private readonly decoded: DecodedRecords | undefined;

  constructor(
    readonly client: RedisClient,
    prefix: string,
  ) {
    this.keys = new RedisKeys(prefix);
    this.decoded = decodedRecordsOf(client);
  }

  /**
   * Every operation runs through here: within the client's command deadline (see withinDeadline), and
   * an unreachable Redis is reported as such (see asRedisUnavailable).
   */
  async guard<T>(what: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await withinDeadline(this.client, what, operation);
    } catch (error) {
      throw asRedisUnavailable(error, what, this.client);
    }
  }

  async hash(key: string): Promise<Hash> {
    await this.invalidationsIn();
    return (await this.client.hGetAll(key)) as unknown as Hash;
  }

  /** What `read` makes of `key`: from the decoded records when the client caches reads (see `keep` there). */
  async cached<T>(key: string, read: () => Promise<T>, keep?: (value: T) => boolean): Promise<T> {
    await this.invalidationsIn();
    return this.decoded ? this.decoded.get(key, read, keep) : read();
  }

  /** The hash at `key`, decoded. */
  record<T>(key: string, decode: (hash: Hash) => T, keep?: (value: T) => boolean): Promise<T> {
    return this.cached(key, async () => decode((await this.client.hGetAll(key)) as unknown as Hash), keep);
  }

  /**
   * With a client that caches reads (createRedisClient's `cacheReads`), a read may be answered from
   * the cache without a round trip. Redis sends the invalidation of a key before the writer gets its
   * answer, so it is on this connection's socket before anything that follows the write can reach this
   * process; waiting for the end of the event loop's current I/O phase lets the client read it first.
   */
  invalidationsIn(): Promise<void> | undefined {
    return this.client.clientSideCache ? endOfPhase() : undefined;
  }
}

let phaseEnd: Promise<void> | undefined;

/**
 * Resolves after the event loop's current I/O phase: one promise and one immediate for every read
 * waiting in this turn (a Redis poll makes four), not one each.
 */
function endOfPhase(): Promise<void> {
  phaseEnd ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      phaseEnd = undefined;
      resolve();
    }),
  );
  return phaseEnd;
}
