import type { AudioSink, Synthesizer, SynthesisProgress } from '../../synth/index.js';
import { SynthesisError } from '../../synth/index.js';
import { NEW_IDEMPOTENCY_KEY_PHRASE } from '../../contract/errors.js';

/** The message of a job the speech engine failed (docs/api-rules.md#idempotency rule 5: retry with a new key). */
export const PROVIDER_FAILURE_MESSAGE = `The speech engine failed on this job. Retry with backoff, using a ${NEW_IDEMPOTENCY_KEY_PHRASE}.`;
/** The message of a job whose audio could not be saved: the audio store stayed unreachable through every run. */
export const STORE_FAILURE_MESSAGE = `The audio store could not be reached to save this job's audio. Retry with backoff, using a ${NEW_IDEMPOTENCY_KEY_PHRASE}.`;
import type { Logger } from '../log.js';
import { AudioStorageUnavailableError, type AudioStorage, type Clock, type Store, systemClock } from '../ports.js';
import { secondsToCentiminutes } from './usage.js';

/** Which run of its job this is, of how many the queue's retry policy gives it. */
export interface RunAttempt {
  number: number;
  of: number;
}

/**
 * A run that could not reach the audio store, and is not its job's last: the job stays processing, and
 * the queue runs it again after its backoff (BullMQ's attempts, or the in-process queue's).
 */
export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
}

/** The audio store unreachable, whether thrown directly or as the cause of a synthesis failure (a sink write). */
function storeUnreachable(error: unknown): error is Error {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AudioStorageUnavailableError) return true;
  }
  return false;
}

export interface LiveProgress {
  fraction: number;
  elapsedMs: number;
}

/** What runs a job to its end (the runner itself, or the runner instrumented with metrics). */
export interface JobRun {
  /**
   * False when the job was interrupted (shutdown) and stays processing. Rejects with RetryLaterError
   * when the audio store could not be reached and `attempt` is not the last (default: the only one).
   */
  run(jobId: string, signal?: AbortSignal, attempt?: RunAttempt): Promise<boolean>;
}

/** Store writes of progress are throttled: polling reads it, and it need not be exact to the chunk. */
const PROGRESS_WRITE_INTERVAL_MS = 500;

/**
 * Runs one job: synthesizes its text into the audio storage, streaming, then settles it (completed, usage charged) or
 * fails it (reservation released). Shared by the in-process queue and the distributed workers.
 */
export class JobRunner implements JobRun {
  /** Progress of the jobs running in this process, for honest retry_after_seconds. */
  readonly live = new Map<string, LiveProgress>();

  constructor(
    private readonly store: Store,
    private readonly audio: AudioStorage,
    private readonly synth: Synthesizer,
    private readonly log: Logger,
    /** Job timestamps (completed_at, processing time); progress writes stay throttled in real time. */
    private readonly clock: Clock = systemClock,
  ) {}

  /** Returns false when the job was not run to an end (aborted for shutdown; it stays processing). */
  async run(jobId: string, signal?: AbortSignal, attempt: RunAttempt = { number: 1, of: 1 }): Promise<boolean> {
    const job = await this.store.getJob(jobId);
    if (!job || job.status !== 'processing') return true;
    const started = this.clock.now();
    let lastWrite = 0;
    this.live.set(jobId, { fraction: job.progress, elapsedMs: 0 });
    const onProgress = (p: SynthesisProgress) => {
      this.live.set(jobId, { fraction: p.fraction, elapsedMs: p.elapsedMs });
      const now = Date.now();
      if (now - lastWrite >= PROGRESS_WRITE_INTERVAL_MS) {
        lastWrite = now;
        this.store.updateProgress(jobId, p.fraction).catch((error: unknown) => this.log.warn({ err: error, job_id: jobId }, 'progress not saved'));
      }
    };
    // The audio storage gets ready (a dead run's leftovers removed, the partial write started) while the
    // first chunks are synthesized: the first bytes wait for it, the synthesis does not. Its failure
    // (the store unreachable) is the run's, as when it came first.
    const opening = (async () => {
      await this.audio.removeLeftovers(jobId);
      return this.audio.createWriter(jobId);
    })();
    opening.catch(() => undefined);
    const sink: AudioSink = { write: async (bytes) => (await opening).write(bytes) };
    let committed = false;
    try {
      const result = await this.synth.synthesize(
        { text: job.text, voice: job.voice, language: job.language, speed: job.speed },
        sink,
        { onProgress, signal },
      );
      await (await opening).commit();
      committed = true;
      // This run's audio is in place; any other partial write of the job belongs to a dead run (or to
      // one that lost its queue lock, which can no longer settle the job): remove them whatever their age,
      // while the job is settled. Best effort: the audio is committed, so a failure here (or a crash in
      // between) leaves them to the periodic leftover sweep rather than failing the job.
      const cleared = this.audio
        .removeLeftovers(jobId, 0)
        .catch((error: unknown) => this.log.warn({ job_id: jobId, err: error }, 'leftovers of the job not removed; the leftover sweep takes them'));
      const completedAt = this.clock.now();
      const settling = this.store.completeJob(jobId, {
        durationSeconds: Math.round(result.durationSeconds * 1000) / 1000,
        fileSizeBytes: result.bytes,
        completedAt,
        processingTimeMs: completedAt - job.createdAt,
        chargedCentiminutes: secondsToCentiminutes(result.durationSeconds),
      });
      const [settled] = await Promise.all([settling, cleared]);
      if (!settled && !(await this.store.getJob(jobId).catch(() => undefined))) {
        // The record went while the job ran (its retention ended, e.g. a plan with 0 days): its audio goes too.
        await this.audio.delete(jobId).catch(() => undefined);
      }
      this.log.info({ job_id: jobId, audio_seconds: result.durationSeconds, wall_ms: completedAt - started }, 'job completed');
      return true;
    } catch (thrown) {
      // The storage failing to get ready is what the run failed on, whatever the synthesis did meanwhile.
      const openError = await opening.then(
        () => undefined,
        (e: unknown) => e ?? new Error('the audio storage failed to open a write'),
      );
      const error = openError ?? thrown;
      if (!committed && openError === undefined) await (await opening).abort().catch(() => undefined);
      if (signal?.aborted) {
        this.log.info({ job_id: jobId }, 'job interrupted by shutdown; it resumes at the next start');
        return false;
      }
      const unreachable = storeUnreachable(error);
      if (unreachable && attempt.number < attempt.of) {
        this.log.warn({ job_id: jobId, attempt: attempt.number, of: attempt.of, err: error }, 'audio store unreachable; the job runs again after the backoff');
        throw new RetryLaterError(error.message, { cause: error });
      }
      // An audio store that stays unreachable is an upstream service failing: the spec's provider error.
      const provider = unreachable || (error instanceof SynthesisError && error.code === 'TTS_PROVIDER_ERROR');
      const code = provider ? 'TTS_PROVIDER_ERROR' : 'INTERNAL_ERROR';
      const message = unreachable
        ? STORE_FAILURE_MESSAGE
        : provider
          ? PROVIDER_FAILURE_MESSAGE
          : `Synthesis failed on this job. Retry with backoff, using a ${NEW_IDEMPOTENCY_KEY_PHRASE}.`;
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
    } finally {
      this.live.delete(jobId);
    }
  }
}
