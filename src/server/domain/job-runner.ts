import { ENGINE_FAILURE_MESSAGE, PROVIDER_FAILURE_MESSAGE, STORE_FAILURE_MESSAGE } from './job-messages.js';
import type { Logger } from '../log.js';
import {
  type AudioSink,
  type AudioSpool,
  type BlobStorage,
  type AudioSpoolFile,
  type Clock,
  type JobRepository,
  type JobRun,
  SynthesisError,
  type SynthesisProgress,
  type Synthesizer,
  systemClock,
} from '../ports/index.js';
import type { AudioStorage } from './job-files.js';
import { toMillis } from '@agent-tts/contract/captions.js';
import { JobAudioWrite, storeUnreachable } from './job-audio.js';
import type { LiveAudio } from './live-audio.js';
import { LiveSegmentWriter } from './live-segments.js';
import { type JobTimingsFiles, wordTimingsFile } from './job-timings.js';
import { DEFAULT_STORE_OUTAGE, type StoreOutagePolicy, StoreOutageWait } from './store-outage.js';
import { secondsToCentiminutes } from './usage.js';

export interface LiveProgress {
  fraction: number;
  elapsedMs: number;
}

export interface JobRunnerOptions {
  /**
   * Where a copy of the audio is kept as it is made, so that an audio store that fails (an object
   * store) loses no synthesis: the audio is saved from the copy once the store answers again. Without
   * one (the local directory, which is the disk a copy would be on), an unreachable store fails the job.
   */
  spool?: AudioSpool;
  outage?: Partial<StoreOutagePolicy>;
  /** Where stream listeners read the audio of a running job as it is made (live-audio.ts). */
  live?: LiveAudio;
  /**
   * Where the audio of a running job is also published as segments, for stream listeners in other
   * processes (the distributed mode; live-segments.ts).
   */
  segments?: BlobStorage;
}

/** Store writes of progress are throttled: polling reads it, and it need not be exact to the chunk. */
const PROGRESS_WRITE_INTERVAL_MS = 500;

/**
 * Runs one job: synthesizes its text into the audio storage, streaming, then settles it (completed, usage charged) or
 * fails it (reservation released). Shared by the in-process queue and the distributed workers.
 *
 * A job that asked for word timings has them stored beside its audio, with its captions rendered once as
 * WebVTT and SRT (job-timings.ts), once the audio
 * is in place and before the job is marked completed: a completed job that asked always has them, and
 * a failure to store them fails the job as a failure to store its audio does (its audio deleted).
 *
 * With a spool, the audio is also written to a local file as it is made. An audio store that cannot be
 * reached (refused, or no answer within its deadline) then stops the streaming write, not the run: the
 * synthesis goes on into the file, and once it is done the file is uploaded, tried again with backoff
 * and jitter until the store answers or the outage budget is spent (store-outage.ts; the word timings
 * after it, within the same budget); the job stays processing (and, in
 * the distributed mode, claimed: BullMQ renews a running job's lock) meanwhile. The budget spent, the
 * job fails with TTS_PROVIDER_ERROR and its reservation is released. A process that dies loses its
 * spool: the job's next run synthesizes again.
 *
 * With live audio (live-audio.ts), the audio is also appended to a live file as it is made, for the
 * listeners of the job's stream URL: finished once the job is settled completed, ended abnormally otherwise.
 * With segments, it is also published as segment objects for listeners in other processes: marked whole
 * once the synthesis is done, deleted once the run ends (live-segments.ts).
 *
 * The progress shown never goes back: a run starts from what the job shows (a run again from the start
 * after its worker died holds it until it gets further), and the store only ever raises it.
 */
export class JobRunner implements JobRun {
  /** Progress of the jobs running in this process, for honest retry_after_seconds. */
  readonly live = new Map<string, LiveProgress>();
  private readonly spool?: AudioSpool;
  private readonly outage: StoreOutagePolicy;
  private readonly liveAudio?: LiveAudio;
  private readonly segments?: BlobStorage;

  constructor(
    private readonly store: JobRepository,
    private readonly audio: AudioStorage,
    private readonly synth: Synthesizer,
    private readonly log: Logger,
    /** Job timestamps (completed_at, processing time); progress writes and outage waits stay in real time. */
    private readonly clock: Clock = systemClock,
    options: JobRunnerOptions = {},
  ) {
    this.spool = options.spool;
    this.outage = { ...DEFAULT_STORE_OUTAGE, ...options.outage };
    this.liveAudio = options.live;
    this.segments = options.segments;
  }

  /** Returns false when the job was not run to an end (aborted for shutdown; it stays processing). */
  async run(jobId: string, signal?: AbortSignal): Promise<boolean> {
    const job = await this.store.getJob(jobId);
    if (job?.status !== 'processing') return true;
    const started = this.clock.now();
    const onProgress = this.progressListener(jobId, job.progress);
    const live = await this.liveAudio?.begin(jobId);
    const write = new JobAudioWrite(jobId, this.audio, await this.openSpool(jobId), this.log, live);
    const published = this.segments && LiveSegmentWriter.start(this.segments, jobId, this.log);
    const sink: AudioSink = published ? { write: (bytes) => write.sink.write(bytes).then(() => published.write(bytes)) } : write.sink;
    const saves = new StoreOutageWait(jobId, this.outage, this.log, signal);
    try {
      const { text, voice, language, speed, timestamps } = job;
      const result = await this.synth.synthesize({ text, voice, language, speed, ...(timestamps ? { timestamps } : {}) }, sink, {
        onProgress,
        signal,
      });
      await published?.finish();
      const timings = wordTimingsFile(job, result);
      const saved =
        (await write.commit((path) => saves.save('the audio', () => this.audio.putFile(jobId, path), 'audio saved from the spool'))) &&
        (!timings || (await saves.save('the word timings', () => this.saveTimings(jobId, timings))));
      if (!saved) {
        this.log.info({ job_id: jobId }, 'job interrupted by shutdown while waiting for the audio store; it runs again at the next start');
        return false;
      }
      const completedAt = await this.settle(jobId, job.createdAt, result.durationSeconds, result.bytes);
      live?.finish();
      this.log.info({ job_id: jobId, audio_seconds: result.durationSeconds, wall_ms: completedAt - started }, 'job completed');
      return true;
    } catch (thrown) {
      const error = await write.failure(thrown);
      if (signal?.aborted) {
        this.log.info({ job_id: jobId }, 'job interrupted by shutdown; it resumes at the next start');
        return false;
      }
      return this.fail(jobId, error);
    } finally {
      this.live.delete(jobId);
      // Unless finished above, the stream listeners of this run end abnormally (the job failed or stopped).
      if (live) await this.liveAudio?.close(jobId, live);
      await published?.discard();
      await write.discard();
    }
  }

  /** The captions first, then the word timings: each one PutObject or rename, so a retry after an outage repeats them whole. */
  private async saveTimings(jobId: string, files: JobTimingsFiles): Promise<void> {
    await this.audio.putTimings(jobId, files.vtt, 'vtt');
    await this.audio.putTimings(jobId, files.srt, 'srt');
    await this.audio.putTimings(jobId, files.json, 'json');
  }

  /**
   * Marks the job completed (usage charged) once its audio, and its word timings when it asked for them,
   * are in place; returns when. Any other partial write of the job belongs to a dead run (or to one that
   * lost its queue lock, which can no longer settle the job), or to this run's streaming write that the
   * store's outage stopped: they are removed whatever their age, while the job is settled. Best effort:
   * the audio is committed, so a failure there (or a crash in between) leaves them to the periodic
   * leftover sweep rather than failing the job.
   */
  private async settle(jobId: string, createdAt: number, durationSeconds: number, bytes: number): Promise<number> {
    const cleared = this.audio
      .removeLeftovers(jobId, 0)
      .catch((error: unknown) => this.log.warn({ job_id: jobId, err: error }, 'leftovers of the job not removed; the leftover sweep takes them'));
    const completedAt = this.clock.now();
    const settling = this.store.completeJob(jobId, {
      durationSeconds: toMillis(durationSeconds),
      fileSizeBytes: bytes,
      completedAt,
      processingTimeMs: completedAt - createdAt,
      chargedCentiminutes: secondsToCentiminutes(durationSeconds),
    });
    const [settled] = await Promise.all([settling, cleared]);
    if (!settled && !(await this.store.getJob(jobId).catch(() => undefined))) {
      // The record went while the job ran (its retention ended, e.g. a plan with 0 days): its audio goes too.
      await this.audio.delete(jobId).catch(() => undefined);
    }
    return completedAt;
  }

  /**
   * The run's progress listener: writes progress to the store (throttled) and to `live`. This process
   * shows only what the store holds: a run that dies, and the run after it, then never show less than
   * was shown.
   */
  private progressListener(jobId: string, initial: number): (p: SynthesisProgress) => void {
    let lastWrite = Number.NEGATIVE_INFINITY;
    let shown = initial;
    this.live.set(jobId, { fraction: shown, elapsedMs: 0 });
    return (p) => {
      // Real time elapsed (monotonic), not the injected clock: the throttle spares the store's writes.
      const now = performance.now();
      if (now - lastWrite < PROGRESS_WRITE_INTERVAL_MS) return;
      lastWrite = now;
      shown = Math.max(shown, p.fraction);
      const reached = { fraction: shown, elapsedMs: p.elapsedMs };
      this.store.updateProgress(jobId, reached.fraction).then(
        () => {
          const current = this.live.get(jobId);
          if (current && current.fraction <= reached.fraction) this.live.set(jobId, reached);
        },
        (error: unknown) => this.log.warn({ err: error, job_id: jobId }, 'progress not saved'),
      );
    };
  }

  /** Fails the job on `error` (its audio deleted, the reservation released), unless another run settled it meanwhile. */
  private async fail(jobId: string, error: unknown): Promise<boolean> {
    // An audio store that stays unreachable is an upstream service failing: the spec's provider error.
    const unreachable = storeUnreachable(error);
    const provider = unreachable || (error instanceof SynthesisError && error.code === 'TTS_PROVIDER_ERROR');
    const code = provider ? 'TTS_PROVIDER_ERROR' : 'INTERNAL_ERROR';
    const message = unreachable ? STORE_FAILURE_MESSAGE : provider ? PROVIDER_FAILURE_MESSAGE : ENGINE_FAILURE_MESSAGE;
    // Another run (a duplicate delivery in the distributed mode) may have settled the job meanwhile:
    // then its audio and status stand.
    const current = await this.store.getJob(jobId).catch(() => undefined);
    if (current && current.status !== 'processing') {
      this.log.warn({ job_id: jobId, err: error }, 'job run failed after another run settled the job; its result stands');
      return true;
    }
    await this.audio.delete(jobId).catch(() => undefined);
    await this.store.failJob(jobId, { code, message, completedAt: this.clock.now() });
    this.log.error({ job_id: jobId, err: error }, 'job failed');
    return true;
  }

  /** The job's spool file; none without a spool, or when it cannot be made (the run then streams only). */
  private async openSpool(jobId: string): Promise<AudioSpoolFile | undefined> {
    if (!this.spool) return undefined;
    try {
      return await this.spool.create(jobId);
    } catch (error) {
      this.log.warn({ job_id: jobId, err: error }, 'audio spool not available; the job streams to the audio store only');
      return undefined;
    }
  }
}
