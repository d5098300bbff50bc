/** An inclusive byte range of a stored file. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A job's audio being written: nothing shows under the job's key until `commit`. */
export interface AudioWriter {
  /** Appends bytes in order; resolves once they are accepted (back-pressure for the encoder). */
  write(bytes: Uint8Array): Promise<void>;
  /** Makes what was written the job's audio (replacing any), at once for every reader. */
  commit(): Promise<{ size: number }>;
  /** Discards what was written; the job's committed audio, if any, is untouched. Safe to call twice. */
  abort(): Promise<void>;
}

/** The audio storage's backend cannot be reached (an object store down): retry later. */
export class AudioStorageUnavailableError extends Error {
  override readonly name = 'AudioStorageUnavailableError';
}

/**
 * Audio files addressed by job id, never by path, so that a backend is one adapter: a local directory
 * (default) or an object store. Partial writes of a job are kept apart from finished audio, so a dead
 * run's leftovers can be found without listing every stored file.
 */
export interface AudioStorage {
  /** Starts writing a job's audio from a stream of encoded bytes. */
  createWriter(jobId: string): Promise<AudioWriter>;
  /** Stores a finished file (e.g. an imported recording) as a job's audio. */
  putFile(jobId: string, path: string): Promise<{ size: number }>;
  stat(jobId: string): Promise<{ size: number } | undefined>;
  /** The job's audio, whole or one byte range (already checked against `stat`); undefined when absent. */
  open(jobId: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined>;
  /**
   * Stores a job's word timings (the WordTimingsFile as JSON) beside its audio, replacing any, whole or
   * not at all for every reader (an extension beyond the base API: jobs that asked for `timestamps`).
   */
  putTimings(jobId: string, bytes: Uint8Array): Promise<void>;
  /** The job's stored word timings; undefined when it has none. */
  readTimings(jobId: string): Promise<Uint8Array | undefined>;
  /** Deletes the job's audio and its word timings, if any. */
  delete(jobId: string): Promise<void>;
  /** Deletes the audio (and word timings) of several jobs, as `delete` does each, in as few backend requests as it allows (the retention sweep). */
  deleteMany(jobIds: readonly string[]): Promise<void>;
  /**
   * Removes partial writes of this job left by interrupted runs: those untouched for `olderThanMs`
   * (default: the adapter's own notion of stale, since another run may still be writing).
   */
  removeLeftovers(jobId: string, olderThanMs?: number): Promise<void>;
  /** Ids of jobs that have partial writes untouched for `olderThanMs` (default as above). */
  listLeftovers(olderThanMs?: number): Promise<string[]>;
  /** Throws when the backend cannot be used (readiness). */
  ping(): Promise<void>;
}

/** A local copy of one job's audio as it is made: a file only this process reads. */
export interface AudioSpoolFile {
  /** Where it is, for `AudioStorage.putFile` once `close` has resolved. */
  readonly path: string;
  /** Appends bytes in order. */
  write(bytes: Uint8Array): Promise<void>;
  /** Ends the writing (the file is complete). */
  close(): Promise<void>;
  /** Removes the file. Safe to call twice. */
  discard(): Promise<void>;
}

/**
 * Local files that keep a job's audio while it is streamed to an audio store that may fail (an
 * object store): when the store cannot be reached, the finished audio is saved from the copy once
 * the store answers again, instead of being synthesized again.
 */
export interface AudioSpool {
  create(jobId: string): Promise<AudioSpoolFile>;
}
