import type { Logger } from '../log.js';
import type { BlobStorage, JobRepository, LiveAudioFile, LiveAudioFiles } from '../ports/index.js';
import type { AudioStorage } from './job-files.js';
import { LiveSegmentReader, STREAM_PIECE_BYTES, StreamEndedError } from './live-segment-reader.js';
import { readLiveMark } from './live-segments.js';

/** How often a listener of a job that runs elsewhere (or has not started) asks the store again. */
const STORE_POLL_MS = 1000;
/** As often, when the job's run may publish segments (the distributed mode): the first bytes wait for it. */
const SEGMENT_POLL_MS = 250;

type RunState = 'running' | 'done' | 'ended';

/**
 * One run's audio as it is made: appended to a live file, with the count of bytes written and a wake-up
 * for listeners at each write and at the end.
 */
export class LiveRun {
  written = 0;
  state: RunState = 'running';
  private waiters: (() => void)[] = [];

  constructor(private readonly file: LiveAudioFile) {}

  async write(bytes: Uint8Array): Promise<void> {
    if (this.state !== 'running') return;
    await this.file.write(bytes);
    this.written += bytes.byteLength;
    this.wake();
  }

  /** The job is completed: what was written is its audio. */
  finish(): void {
    if (this.state === 'running') this.state = 'done';
    this.wake();
  }

  /** The run stopped short (failed, interrupted, or its live file failed): listeners end abnormally. */
  end(): void {
    if (this.state === 'running') this.state = 'ended';
    this.wake();
  }

  /** Resolves at the next write or end. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  openReader() {
    return this.file.openReader();
  }

  discard(): Promise<void> {
    return this.file.discard();
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const resolve of waiting) resolve();
  }
}

export interface LiveAudioDeps {
  store: Pick<JobRepository, 'getJob'>;
  audio: Pick<AudioStorage, 'open'>;
  /**
   * Where runs in other processes publish their audio as segments (the distributed mode; live-segments.ts):
   * a listener of a job that does not run here reads them. Without it, such a listener waits for the stored file.
   */
  segments?: BlobStorage;
}

/** Where a process that runs jobs keeps their live files, and where it reports a file it cannot make. */
export interface LiveAudioRuns {
  files: LiveAudioFiles;
  log: Logger;
}

/**
 * The audio of the jobs this process runs, while they run (docs/api-rules.md#streaming-audio): the job
 * runner begins a run, writes into it beside the audio storage, and finishes or ends it; listeners of the
 * stream URL read it from byte 0 in pieces of STREAM_PIECE_BYTES, woken by each write.
 *
 * A job this process does not run (one that waits for its turn, or, in the distributed mode, runs on
 * another worker) is waited for: the listener asks the store every STORE_POLL_MS, and joins the run when
 * it starts here, or serves the stored file once the job is completed. With `segments` (the distributed
 * mode) it asks every SEGMENT_POLL_MS, and follows the run another process publishes as segments once
 * one is named (live-segment-reader.ts).
 */
export class LiveAudio {
  private readonly runs = new Map<string, LiveRun>();
  private readonly starts = new Map<string, Set<() => void>>();

  constructor(
    private readonly deps: LiveAudioDeps,
    private readonly running?: LiveAudioRuns,
  ) {}

  /** Starts the live copy of a run of `jobId`; undefined when its file cannot be made (listeners then wait for the stored file). */
  async begin(jobId: string): Promise<LiveRun | undefined> {
    if (!this.running) return undefined;
    let file: LiveAudioFile;
    try {
      file = await this.running.files.create(jobId);
    } catch (error) {
      this.running.log.warn({ job_id: jobId, err: error }, 'live audio file not available; stream listeners of the job wait for the stored audio');
      return undefined;
    }
    const run = new LiveRun(file);
    this.runs.set(jobId, run);
    for (const wake of this.starts.get(jobId) ?? []) wake();
    this.starts.delete(jobId);
    return run;
  }

  /** Ends a run (abnormally unless finished) and removes its live file; listeners already reading go on. */
  async close(jobId: string, run: LiveRun): Promise<void> {
    run.end();
    if (this.runs.get(jobId) === run) this.runs.delete(jobId);
    await run.discard().catch(() => undefined);
  }

  /** The audio of a processing (or completed) job from byte 0, as it is made; errors with StreamEndedError when the job fails. */
  listen(jobId: string): ReadableStream<Uint8Array> {
    let run: LiveRun | undefined;
    let reader: Awaited<ReturnType<LiveRun['openReader']>>;
    let stored: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let remote: LiveSegmentReader | undefined;
    let position = 0;
    // Set when the listener goes away: a pending read then stops waiting instead of polling on.
    let cancelled = false;
    const next = async (): Promise<Uint8Array | undefined> => {
      for (;;) {
        if (cancelled) {
          // What it opened meanwhile is let go.
          await release();
          return undefined;
        }
        if (stored) {
          const chunk = await stored.read();
          return chunk.done ? undefined : chunk.value;
        }
        if (remote) return remote.next(() => cancelled);
        if (run && reader) {
          if (position < run.written) {
            const bytes = await reader.read(position, Math.min(STREAM_PIECE_BYTES, run.written - position));
            position += bytes.byteLength;
            return bytes;
          }
          if (run.state === 'done') return undefined;
          if (run.state === 'ended') throw new StreamEndedError('the job stopped before its audio was complete');
          await run.changed();
          continue;
        }
        const current = this.runs.get(jobId);
        if (current) {
          const opened = await current.openReader();
          if (opened) {
            [run, reader] = [current, opened];
            continue;
          }
        }
        const job = await this.deps.store.getJob(jobId);
        if (job?.status === 'completed') {
          const file = await this.deps.audio.open(jobId);
          if (!file) throw new StreamEndedError('the audio of the job is gone');
          stored = file.getReader();
          continue;
        }
        if (job?.status !== 'processing') throw new StreamEndedError('the job failed or is gone');
        remote = await this.publishedRun(jobId);
        if (!remote) await this.startOrTimeout(jobId);
      }
    };
    const release = async () => {
      await remote?.release();
      await reader?.close();
      await stored?.cancel().catch(() => undefined);
    };
    const cancel = async () => {
      cancelled = true;
      await release();
    };
    return new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const bytes = await next();
            if (cancelled) return;
            if (bytes) return controller.enqueue(bytes);
            await release();
            controller.close();
          } catch (error) {
            await release();
            controller.error(error);
          }
        },
        cancel,
      },
      { highWaterMark: 0 },
    );
  }

  /** A reader of the run of `jobId` another process publishes as segments; undefined when none is named (yet). */
  private async publishedRun(jobId: string): Promise<LiveSegmentReader | undefined> {
    const { segments, store, audio } = this.deps;
    if (!segments) return undefined;
    const mark = await readLiveMark(segments, jobId);
    return mark && new LiveSegmentReader({ blobs: segments, store, audio, pollMs: SEGMENT_POLL_MS }, jobId, mark.run);
  }

  /** Resolves when a run of `jobId` begins here, or after STORE_POLL_MS (SEGMENT_POLL_MS with segments). */
  private startOrTimeout(jobId: string): Promise<void> {
    return new Promise((resolve) => {
      const waiting = this.starts.get(jobId) ?? new Set<() => void>();
      this.starts.set(jobId, waiting);
      const wake = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        if (waiting.size === 0 && this.starts.get(jobId) === waiting) this.starts.delete(jobId);
        resolve();
      };
      const timer = setTimeout(wake, this.deps.segments ? SEGMENT_POLL_MS : STORE_POLL_MS);
      waiting.add(wake);
    });
  }
}
