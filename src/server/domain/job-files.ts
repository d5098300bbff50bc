import type { BlobStorage, BlobWriter, ByteRange } from '../ports/index.js';
import { liveKey } from './live-segments.js';

/** A job's timings files: the word timings (JSON) and the captions rendered from them (WebVTT, SubRip). */
export type TimingsFormat = 'json' | 'vtt' | 'srt';

/** One of a job's stored files, as `stat` and `open` address it: its audio, or one of its timings files. */
export type JobFile = 'audio' | TimingsFormat;

/** A job's audio being written: nothing shows of it until `commit` (a BlobWriter of its key). */
export type AudioWriter = BlobWriter;

/**
 * A job's files (its audio, word timings and captions) addressed by job id, never by path or key:
 * JobFiles below, over a BlobStorage, or a test's wrapper of it.
 * Partial writes of a job are kept apart from finished audio, so a dead run's leftovers can be found
 * without listing every stored file.
 */
export interface AudioStorage {
  /** Starts writing a job's audio from a stream of encoded bytes. */
  createWriter(jobId: string): Promise<AudioWriter>;
  /** Stores a finished file (e.g. an imported recording) as a job's audio. */
  putFile(jobId: string, path: string): Promise<{ size: number }>;
  /** The size of one of the job's stored files (default: its audio), read from its metadata only; undefined when absent. */
  stat(jobId: string, file?: JobFile): Promise<{ size: number } | undefined>;
  /**
   * One of the job's stored files (default: its audio) as a stream (never held whole), whole or one
   * byte range (already checked against `stat`); undefined when absent.
   */
  open(jobId: string, file?: JobFile, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined>;
  /**
   * Stores one of a job's timings files beside its audio, replacing any, whole or not at all for every
   * reader (an extension beyond the base API: jobs that asked for `timestamps`): the word timings
   * (`json`, the WordTimingsFile) or the captions rendered from them once (`vtt`, `srt`).
   */
  putTimings(jobId: string, bytes: Uint8Array, format?: TimingsFormat): Promise<void>;
  /** One of the job's stored timings files, whole (default: the word timings); undefined when it has none. */
  readTimings(jobId: string, format?: TimingsFormat): Promise<Uint8Array | undefined>;
  /** Deletes the job's audio and its timings files (word timings and captions), if any. */
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

/** The key of a job's audio. */
const audioKey = (jobId: string): string => `${jobId}.mp3`;

/** The key of a job's word timings (json) or of its captions (vtt, srt), beside its audio. */
const timingsKey = (jobId: string, format: TimingsFormat = 'json'): string => (format === 'json' ? `${jobId}.timings.json` : `${jobId}.captions.${format}`);

/** The key of one of a job's files: its audio or one of its timings files. */
export const jobFileKey = (jobId: string, file: JobFile): string => (file === 'audio' ? audioKey(jobId) : timingsKey(jobId, file));

/**
 * Every key of a job's files: its audio, word timings and captions, and the mark of its last run's live
 * audio, `<job>.live` (live-segments.ts) (what deleting a job removes).
 */
export const jobKeys = (jobId: string): string[] => [
  audioKey(jobId),
  timingsKey(jobId, 'json'),
  timingsKey(jobId, 'vtt'),
  timingsKey(jobId, 'srt'),
  liveKey(jobId),
];

const SUFFIXES = ['.mp3', '.timings.json', '.captions.vtt', '.captions.srt', '.live'];

/**
 * The job a key is one of the files of; undefined for a key that is no job's file. A bare job id is
 * the job's too: partial writes of a previous version were kept per job, not per file.
 */
export function jobOfKey(key: string): string | undefined {
  const suffix = SUFFIXES.find((s) => key.endsWith(s));
  const jobId = suffix ? key.slice(0, -suffix.length) : key;
  return jobId && !jobId.includes('.') && !jobId.includes('/') ? jobId : undefined;
}

/** The stored type of each file (what a reader of a bucket sees; the routes set their own). */
const CONTENT_TYPES: Record<JobFile, string> = { audio: 'audio/mpeg', json: 'application/json', vtt: 'text/vtt', srt: 'application/x-subrip' };

/**
 * A job's files over a key-addressed BlobStorage: `<job>.mp3`, its word timings `<job>.timings.json`
 * and its captions `<job>.captions.vtt` and `.captions.srt`, side by side (and, in the distributed
 * mode, the mark of its run's live audio `<job>.live`; live-segments.ts). Deleting a job deletes all
 * five; a job's leftovers are the partial writes of any key beginning with its id (job ids are UUIDs:
 * none begins another).
 */
export class JobFiles implements AudioStorage {
  constructor(readonly blobs: BlobStorage) {}

  createWriter(jobId: string): Promise<AudioWriter> {
    return this.blobs.createWriter(audioKey(jobId), CONTENT_TYPES.audio);
  }

  putFile(jobId: string, path: string): Promise<{ size: number }> {
    return this.blobs.put(audioKey(jobId), { path }, CONTENT_TYPES.audio);
  }

  stat(jobId: string, file: JobFile = 'audio'): Promise<{ size: number } | undefined> {
    return this.blobs.stat(jobFileKey(jobId, file));
  }

  open(jobId: string, file: JobFile = 'audio', range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined> {
    return this.blobs.open(jobFileKey(jobId, file), range);
  }

  async putTimings(jobId: string, bytes: Uint8Array, format: TimingsFormat = 'json'): Promise<void> {
    await this.blobs.put(timingsKey(jobId, format), bytes, CONTENT_TYPES[format]);
  }

  readTimings(jobId: string, format: TimingsFormat = 'json'): Promise<Uint8Array | undefined> {
    return this.blobs.read(timingsKey(jobId, format));
  }

  delete(jobId: string): Promise<void> {
    return this.blobs.delete(jobKeys(jobId));
  }

  deleteMany(jobIds: readonly string[]): Promise<void> {
    return this.blobs.delete(jobIds.flatMap(jobKeys));
  }

  removeLeftovers(jobId: string, olderThanMs?: number): Promise<void> {
    return this.blobs.removeLeftovers(jobId, olderThanMs);
  }

  async listLeftovers(olderThanMs?: number): Promise<string[]> {
    const jobs = (await this.blobs.listLeftovers(olderThanMs)).map(jobOfKey);
    return [...new Set(jobs.filter((id): id is string => id !== undefined))];
  }

  ping(): Promise<void> {
    return this.blobs.ping();
  }
}
