/** An inclusive byte range of a stored file. */
export interface ByteRange {
  start: number;
  end: number;
}

/** The storage's backend cannot be reached (an object store down): retry later. */
export class AudioStorageUnavailableError extends Error {
  override readonly name = 'AudioStorageUnavailableError';
}

/** A file being written under a key: nothing shows under the key until `commit`. */
export interface BlobWriter {
  /** Appends bytes in order; resolves once they are accepted (back-pressure for the encoder). */
  write(bytes: Uint8Array): Promise<void>;
  /** Makes what was written the key's file (replacing any), at once for every reader. */
  commit(): Promise<{ size: number }>;
  /** Discards what was written; the key's committed file, if any, is untouched. Safe to call twice. */
  abort(): Promise<void>;
}

/** What `put` stores: bytes in memory, or a local file (copied or uploaded, never moved). */
export type BlobSource = Uint8Array | { path: string };

/**
 * Files addressed by key, so that a backend is one adapter: a local directory (default) or an object
 * store. A key is one or more `/`-separated segments of letters, digits, `.`, `_` and `-`, none
 * starting with `.` (adapters refuse others: a key never escapes the storage, nor reaches its own
 * bookkeeping). What the keys mean (which are a job's files) is the domain's knowledge
 * (domain/job-files.ts). Partial writes are kept apart from finished files, each under its key, so a
 * dead writer's leftovers can be found without listing every stored file. A backend that cannot be
 * reached fails a call with AudioStorageUnavailableError.
 */
export interface BlobStorage {
  /** Starts writing the file of `key` from a stream of bytes; `contentType` is recorded where the backend keeps one. */
  createWriter(key: string, contentType?: string): Promise<BlobWriter>;
  /** Stores `source` as the file of `key`, replacing any, whole or not at all for every reader. */
  put(key: string, source: BlobSource, contentType?: string): Promise<{ size: number }>;
  /** The size of the file of `key`, read from its metadata only; undefined when absent. */
  stat(key: string): Promise<{ size: number } | undefined>;
  /**
   * The file of `key` as a stream (never held whole), whole or one byte range (already checked against
   * `stat`); undefined when absent.
   */
  open(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined>;
  /** The file of `key` read whole (a small file), within the backend's request deadline; undefined when absent. */
  read(key: string): Promise<Uint8Array | undefined>;
  /** Deletes the files of `keys`, in as few backend requests as it allows; an absent key is no error. */
  delete(keys: readonly string[]): Promise<void>;
  /**
   * The keys whose partial writes (left by writers that died) have all been untouched for `olderThanMs`
   * (default: the adapter's own notion of stale, since another writer may still be writing).
   */
  listLeftovers(olderThanMs?: number): Promise<string[]>;
  /**
   * Removes the partial writes untouched for `olderThanMs` (default as above) of the keys that begin
   * with `keyPrefix`. A live writer keeps its partial write fresh; one given up (aborted, committed)
   * leaves none.
   */
  removeLeftovers(keyPrefix: string, olderThanMs?: number): Promise<void>;
  /** Throws when the backend cannot be used (readiness). */
  ping(): Promise<void>;
}

/** Whether `key` is a key a BlobStorage takes (see BlobStorage). */
export function isBlobKey(key: string): boolean {
  return key.length <= 512 && key.split('/').every((segment) => /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(segment));
}
