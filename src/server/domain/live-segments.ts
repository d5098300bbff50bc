import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import type { BlobStorage } from '../ports/index.js';

/**
 * The audio of a running job published as segment objects of the blob storage, for stream listeners in
 * processes that do not run it (the distributed mode: API and worker on different machines, no shared
 * disk; docs/api-rules.md#streaming-audio). Keys beside the job's files, flat (no directories):
 *
 * - `<job>.live`: the run being made, `{"run": id}`, and once all its audio is published `{"run": id, "size": n}`;
 *   deleted with the job's files (job-files.ts jobKeys).
 * - `<job>.live.<run>.<seq>`: the run's audio from segment 0, in order: the exact bytes of the final file.
 *
 * A segment is published once SEGMENT_BYTES are buffered or SEGMENT_DELAY_MS after its first byte,
 * whichever comes first. The run deletes its segments once the job is settled; a run that starts deletes
 * those the previous run (a dead worker's) left.
 */
export const SEGMENT_BYTES = 256 * 1024;
const SEGMENT_DELAY_MS = 400;
/** How many segment keys one removal deletes before it checks that more are there. */
const REMOVE_BATCH = 100;

export const liveKey = (jobId: string): string => `${jobId}.live`;
export const segmentKey = (jobId: string, run: string, seq: number): string => `${jobId}.live.${run}.${seq}`;

/** What `<job>.live` says: the run being made and, once all its audio is published, its size. */
export interface LiveRunMark {
  run: string;
  size?: number;
}

/** The run `<job>.live` names; undefined when there is none (or it cannot be read as one). */
export async function readLiveMark(blobs: BlobStorage, jobId: string): Promise<LiveRunMark | undefined> {
  const bytes = await blobs.read(liveKey(jobId));
  if (!bytes) return undefined;
  try {
    const mark = JSON.parse(new TextDecoder().decode(bytes)) as LiveRunMark;
    return typeof mark.run === 'string' ? mark : undefined;
  } catch {
    return undefined;
  }
}

const encodeMark = (mark: LiveRunMark) => new TextEncoder().encode(JSON.stringify(mark));

/** Deletes the segments of `run`, in batches, while there are more (they are published in order, without gaps). */
async function removeSegments(blobs: BlobStorage, jobId: string, run: string): Promise<void> {
  for (let seq = 0; ; seq += REMOVE_BATCH) {
    await blobs.delete(Array.from({ length: REMOVE_BATCH }, (_, i) => segmentKey(jobId, run, seq + i)));
    if (!(await blobs.stat(segmentKey(jobId, run, seq + REMOVE_BATCH)))) return;
  }
}

/**
 * One run's publication of its audio as segments. Writes are buffered and published in the background,
 * one segment at a time in order; a writer holds at most one segment in flight and one being filled.
 * A publication that fails stops (logged): the run goes on, its listeners end abnormally.
 */
export class LiveSegmentWriter {
  private buffer: Uint8Array[] = [];
  private buffered = 0;
  private seq = 0;
  private size = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private publishing: Promise<void> = Promise.resolve();
  private failed = false;

  private constructor(
    private readonly blobs: BlobStorage,
    private readonly jobId: string,
    readonly run: string,
    private readonly log: Logger,
  ) {}

  /**
   * A new run of `jobId`: named in `<job>.live` first, in the background (the synthesis does not wait for
   * the store); the previous run's segments are then removed, in the background too.
   */
  static start(blobs: BlobStorage, jobId: string, log: Logger): LiveSegmentWriter {
    const writer = new LiveSegmentWriter(blobs, jobId, randomUUID(), log);
    writer.publishing = (async () => {
      const previous = await readLiveMark(blobs, jobId);
      await blobs.put(liveKey(jobId), encodeMark({ run: writer.run }), 'application/json');
      if (previous && previous.run !== writer.run) {
        removeSegments(blobs, jobId, previous.run).catch((error: unknown) =>
          log.warn({ job_id: jobId, err: error }, 'live audio segments of a previous run not removed'),
        );
      }
    })().catch((error: unknown) => {
      writer.failed = true;
      log.warn({ job_id: jobId, err: error }, 'live audio of the job not published; stream listeners elsewhere wait for the stored audio');
    });
    return writer;
  }

  /** Buffers bytes; waits only while a full segment is still being published (back-pressure). */
  async write(bytes: Uint8Array): Promise<void> {
    if (this.failed || bytes.byteLength === 0) return;
    this.buffer.push(bytes.slice());
    this.buffered += bytes.byteLength;
    if (this.buffered >= SEGMENT_BYTES) {
      await this.publishing;
      this.flush();
    } else {
      this.timer ??= setTimeout(() => this.flush(), SEGMENT_DELAY_MS);
    }
  }

  /** Publishes what is buffered, then marks the run's audio whole (`size`) in `<job>.live`. */
  async finish(): Promise<void> {
    this.flush();
    await this.publishing;
    if (this.failed) return;
    await this.blobs.put(liveKey(this.jobId), encodeMark({ run: this.run, size: this.size }), 'application/json').catch((error: unknown) => {
      this.failed = true;
      this.log.warn({ job_id: this.jobId, err: error }, 'live audio of the job not marked whole; its stream listeners end short');
    });
  }

  /** Stops publishing and deletes the run's segments (the job is settled, or the run stopped). */
  async discard(): Promise<void> {
    this.failed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.publishing;
    const count = this.seq;
    if (count > 0) await this.blobs.delete(Array.from({ length: count }, (_, i) => segmentKey(this.jobId, this.run, i))).catch(() => undefined);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.failed || this.buffered === 0) return;
    const bytes = Buffer.concat(this.buffer, this.buffered);
    this.buffer = [];
    this.buffered = 0;
    const seq = this.seq++;
    this.publishing = this.publishing.then(async () => {
      if (this.failed) return;
      try {
        await this.blobs.put(segmentKey(this.jobId, this.run, seq), bytes, 'audio/mpeg');
        this.size += bytes.byteLength;
      } catch (error) {
        this.failed = true;
        this.log.warn({ job_id: this.jobId, err: error }, 'live audio segment not published; the stream listeners of the job end short, the job goes on');
      }
    });
  }
}
