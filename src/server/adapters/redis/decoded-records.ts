import type { RedisClient } from './client.js';

/** Records kept: past this many, the one kept longest goes first. */
const ENTRIES = 10_000;

/**
 * Decoded records (an account, a key, a job…) of the keys a caching client read, kept beside the
 * client's reply cache and dropped with it: on every invalidation Redis sends for a key (server-
 * assisted, `CLIENT TRACKING`), on a flush of everything, and whenever the connection errs, ends or
 * comes back (tracking starts over on a new connection). A hit costs a Map lookup, where a hit in the
 * reply cache costs building its cache key, a `structuredClone` of the reply and decoding it again.
 *
 * A value read while an invalidation arrived is not kept: Redis may send a key's invalidation right
 * behind the reply that read it (in the same packet), and the client handles it before the reader's
 * continuation runs, so the reader must not store what it got. Callers must not modify what they get.
 */
export class DecodedRecords {
  private readonly records = new Map<string, unknown>();
  /** Counts invalidations and clears: a read that saw it change does not store its value. */
  private generation = 0;

  constructor(client: RedisClient) {
    const cache = client.clientSideCache;
    if (!cache) throw new Error('DecodedRecords needs a client created with cacheReads');
    cache.on('invalidate', (key: string | Buffer | null) => {
      this.generation++;
      if (key === null) this.records.clear();
      else this.records.delete(key.toString());
    });
    const clear = () => {
      this.generation++;
      this.records.clear();
    };
    client.on('error', clear);
    client.on('end', clear);
    client.on('ready', clear);
  }

  /**
   * The record at `key`: kept, or read with `read` and kept unless an invalidation came meanwhile or
   * `keep` says no (a running job, whose progress changes and whose text may be long).
   */
  async get<T>(key: string, read: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
    if (this.records.has(key)) return this.records.get(key) as T;
    const generation = this.generation;
    const value = await read();
    if (generation === this.generation && keep(value)) {
      if (this.records.size >= ENTRIES) this.records.delete(this.records.keys().next().value as string);
      this.records.set(key, value);
    }
    return value;
  }

  get size(): number {
    return this.records.size;
  }
}

const shared = new WeakMap<RedisClient, DecodedRecords>();

/** One set of decoded records per caching client (the stores sharing a client share it); none without caching. */
export function decodedRecordsOf(client: RedisClient): DecodedRecords | undefined {
  if (!client.clientSideCache) return undefined;
  let records = shared.get(client);
  if (!records) {
    records = new DecodedRecords(client);
    shared.set(client, records);
  }
  return records;
}
