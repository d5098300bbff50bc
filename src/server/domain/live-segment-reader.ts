import { setTimeout as sleep } from 'node:timers/promises';
import type { BlobStorage, JobRepository } from '../ports/index.js';
import type { AudioStorage } from './job-files.js';
import { readLiveMark, segmentKey } from './live-segments.js';

/** The stream of a job that failed (or whose run stopped) ends with it: the HTTP layer closes the connection short. */
export class StreamEndedError extends Error {
  override readonly name = 'StreamEndedError';
}

/** How long a listener waits before it reads again a segment read short. */
const SHORT_READ_RETRY_MS = 50;

/** The most a listener hands on at once: a segment is read whole, then given out in pieces of this size. */
export const STREAM_PIECE_BYTES = 64 * 1024;

export interface LiveSegmentReaderDeps {
  blobs: BlobStorage;
  store: Pick<JobRepository, 'getJob'>;
  audio: Pick<AudioStorage, 'open'>;
  /** How long a listener waits before it asks again for a segment not published yet. */
  pollMs: number;
}

/**
 * One listener's reading of a run published as segments (live-segments.ts), from byte 0: segment 0, 1, …
 * as they appear, asked for again every `pollMs`; its memory is one segment. A segment is taken only once
 * its bytes are as many as its stored size says. When the next segment is
 * missing and `<job>.live` marks the listener's run whole, the job completed: the rest comes from the
 * stored audio from the listener's byte position (the run deletes its segments once the job is settled).
 * If `<job>.live` names another run (the worker died and the job runs again), or the job failed or is
 * gone, the stream ends abnormally (StreamEndedError): never a short body that looks whole.
 */
export class LiveSegmentReader {
  private seq = 0;
  private position = 0;
  private pending: Uint8Array | undefined;
  private stored: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(
    private readonly deps: LiveSegmentReaderDeps,
    private readonly jobId: string,
    private readonly run: string,
  ) {}

  /** The next piece of audio; undefined at the end of the job's audio (or once `cancelled`). */
  async next(cancelled: () => boolean): Promise<Uint8Array | undefined> {
    const { blobs, store, audio, pollMs } = this.deps;
    for (;;) {
      if (cancelled()) return undefined;
      if (this.stored) {
        const chunk = await this.stored.read();
        return chunk.done ? undefined : chunk.value;
      }
      if (this.pending && this.pending.byteLength > 0) {
        const piece = this.pending.subarray(0, STREAM_PIECE_BYTES);
        this.pending = this.pending.subarray(piece.byteLength);
        this.position += piece.byteLength;
        return piece;
      }
      const key = segmentKey(this.jobId, this.run, this.seq);
      const segment = await blobs.read(key);
      if (segment) {
        // A store may show an object before all its bytes can be read (s3rver does): read again until whole.
        if ((await blobs.stat(key))?.size !== segment.byteLength) {
          await sleep(SHORT_READ_RETRY_MS);
          continue;
        }
        this.seq++;
        this.pending = segment;
        continue;
      }
      const mark = await readLiveMark(blobs, this.jobId);
      if (mark?.run !== this.run) throw new StreamEndedError('the run of the job stopped before its audio was complete');
      const job = await store.getJob(this.jobId);
      if (mark.size !== undefined && job?.status === 'completed') {
        if (this.position >= mark.size) return undefined;
        const rest = await audio.open(this.jobId, 'audio', { start: this.position, end: mark.size - 1 });
        if (!rest) throw new StreamEndedError('the audio of the job is gone');
        this.stored = rest.getReader();
        continue;
      }
      if (job?.status !== 'processing') throw new StreamEndedError('the job failed or is gone');
      await sleep(pollMs);
    }
  }

  async release(): Promise<void> {
    this.pending = undefined;
    await this.stored?.cancel().catch(() => undefined);
  }
}
