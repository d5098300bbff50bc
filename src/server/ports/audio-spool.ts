/** A local copy of one job's audio as it is made: a file only this process reads. */
export interface AudioSpoolFile {
  /** Where it is, for `AudioStorage.putFile` (domain/job-files.ts) once `close` has resolved. */
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
