import type { Logger } from '../log.js';
import type { LiveRun } from './live-audio.js';
import { type AudioSink, type AudioSpoolFile, AudioStorageUnavailableError } from '../ports/index.js';
import type { AudioStorage, AudioWriter } from './job-files.js';

/** The audio store unreachable, whether thrown directly or as the cause of a synthesis failure (a sink write). */
export function storeUnreachable(error: unknown): error is Error {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AudioStorageUnavailableError) return true;
  }
  return false;
}

/**
 * The audio of one job run on its way into the storage (job-runner.ts): a partial write of the store
 * that the audio streams into as it is made and, with a spool file, a local copy of it. An audio store
 * that cannot be reached then stops the streaming write, not the run: the audio goes on into the spool
 * and is saved from it once the synthesis is done.
 */
export class JobAudioWrite {
  /** Whether the job's audio is in place (committed, or saved from the spool). */
  committed = false;
  /** The store failure that stopped the streaming write: the spool holds the audio from then on. */
  private outage: Error | undefined;
  private readonly opening: Promise<AudioWriter>;
  /** What the synthesis writes into. */
  readonly sink: AudioSink = { write: (bytes) => this.write(bytes) };

  constructor(
    private readonly jobId: string,
    audio: AudioStorage,
    private spooled: AudioSpoolFile | undefined,
    private readonly log: Logger,
    /** The live copy stream listeners read (live-audio.ts); its failure ends their streams, not the run. */
    private live?: LiveRun,
  ) {
    // The audio storage gets ready (a dead run's leftovers removed, the partial write started) while the
    // first chunks are synthesized: the first bytes wait for it, the synthesis does not. Its failure
    // (the store unreachable) is the run's, as when it came first, unless the spool outlives it.
    this.opening = (async () => {
      await audio.removeLeftovers(jobId);
      return audio.createWriter(jobId);
    })();
    this.opening.catch(() => undefined);
  }

  /** True when the spool outlives `error` (the store unreachable): the streaming write is then given up. */
  private outlived(error: unknown): boolean {
    if (!this.spooled || !storeUnreachable(error)) return false;
    if (!this.outage) {
      this.outage = error;
      this.log.warn(
        { job_id: this.jobId, err: error },
        'audio store unreachable; the audio goes on into the spool and is saved from it when the store answers',
      );
      // Discarded in the background: a hung store must not hold the synthesis up.
      this.opening.then((w) => w.abort()).catch(() => undefined);
    }
    return true;
  }

  private async write(bytes: Uint8Array): Promise<void> {
    if (this.live) {
      try {
        await this.live.write(bytes);
        // When each piece became audible (wall clock, sub-millisecond), for the stream benchmark's
        // delivery times (bench/benchmarks/stream.ts); at LOG_LEVEL=debug only.
        if (this.log.isLevelEnabled('debug')) {
          this.log.debug({ job_id: this.jobId, live_bytes: this.live.written, at_ms: performance.timeOrigin + performance.now() }, 'live audio written');
        }
      } catch (error) {
        this.log.warn({ job_id: this.jobId, err: error }, 'live audio file failed; the stream listeners of the job are cut off, the job goes on');
        this.live.end();
        this.live = undefined;
      }
    }
    if (this.spooled) {
      try {
        await this.spooled.write(bytes);
      } catch (error) {
        // Once the store is out, the spool is all there is; before, the run goes on streaming only.
        if (this.outage) throw error;
        this.log.warn({ job_id: this.jobId, err: error }, 'audio spool failed; the job streams to the audio store only');
        const dropped = this.spooled;
        this.spooled = undefined;
        await dropped.discard().catch(() => undefined);
      }
    }
    if (this.outage) return;
    try {
      await (await this.opening).write(bytes);
    } catch (error) {
      if (!this.outlived(error)) throw error;
    }
  }

  /**
   * Puts the audio in place once the synthesis is done: commits the streaming write or, when the store's
   * outage stopped it, saves the spool file with `saveFile`. False when `saveFile` was interrupted.
   */
  async commit(saveFile: (path: string) => Promise<boolean>): Promise<boolean> {
    if (!this.outage) {
      try {
        await (await this.opening).commit();
        this.committed = true;
      } catch (error) {
        if (!this.outlived(error)) throw error;
      }
    }
    if (!this.committed) {
      await this.spooled!.close();
      if (!(await saveFile(this.spooled!.path))) return false;
      this.committed = true;
    }
    return true;
  }

  /**
   * What the run failed on, given what it threw: the storage failing to get ready, whatever the synthesis
   * did meanwhile, unless the spool outlives it (then the run's own failure). A streaming write still
   * open is aborted.
   */
  async failure(thrown: unknown): Promise<unknown> {
    const openError = await this.opening.then(
      () => undefined,
      (e: unknown) => e ?? new Error('the audio storage failed to open a write'),
    );
    const error = openError !== undefined && !(this.spooled && storeUnreachable(openError)) ? openError : thrown;
    if (!this.committed && !this.outage && openError === undefined) await (await this.opening).abort().catch(() => undefined);
    return error;
  }

  /** Removes the spool file, if any. */
  async discard(): Promise<void> {
    await this.spooled?.discard().catch(() => undefined);
  }
}
