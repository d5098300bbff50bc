/**
 * The audio of a running job as it is made, kept where listeners of its stream URL read it in pieces
 * (an extension beyond the base API: docs/api-rules.md#streaming-audio). Apart from the AudioStorage:
 * a local file of the process that runs the job, written beside the storage's own write.
 */

/** One listener's reading of a live file: a handle of its own, which outlives the file's removal. */
export interface LiveAudioReader {
  /** Up to `length` bytes from `position` (fewer only at the end of what was written). */
  read(position: number, length: number): Promise<Uint8Array>;
  /** Safe to call twice. */
  close(): Promise<void>;
}

/** The live copy of one run's audio. */
export interface LiveAudioFile {
  /** Appends bytes in order; resolves once a reader opened after it can read them. */
  write(bytes: Uint8Array): Promise<void>;
  /** A reader of the file; undefined once the file is removed. */
  openReader(): Promise<LiveAudioReader | undefined>;
  /** Removes the file (readers already open go on reading). Safe to call twice. */
  discard(): Promise<void>;
}

export interface LiveAudioFiles {
  create(jobId: string): Promise<LiveAudioFile>;
}
