import { EventEmitter } from 'node:events';
import { RetryLaterError, type JobRun } from '../domain/job-runner.js';
import type { Logger } from '../log.js';
import type { JobQueue, QueueStats } from '../ports.js';

/** Runs a job gets when the audio store cannot be reached, and the wait before the second (doubled for each next). */
export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
}

/** The embedded mode's policy: that of the distributed mode's defaults (QUEUE_ATTEMPTS=3, BullMQ's exponential backoff from 1 s). */
export const LOCAL_RETRY_POLICY: RetryPolicy = { attempts: 3, backoffMs: 1_000 };

/**
 * In-process queue of the embedded default: jobs run FIFO, a few at a time (their chunks share the
 * synthesis thread pool). Finishing is announced on an EventEmitter, which is what inline waits use.
 * A run that cannot reach the audio store (RetryLaterError) is run again after a backoff, up to the
 * policy's attempts; the last run fails the job.
 */
export class LocalJobQueue implements JobQueue {
  private readonly pending: string[] = [];
  private readonly queued = new Set<string>();
  private running = 0;
  private readonly finished = new EventEmitter();
  private readonly abort = new AbortController();
  private readonly active = new Set<Promise<void>>();
  /** Runs made of jobs waiting out a backoff, and their timers. */
  private readonly attemptsMade = new Map<string, number>();
  private readonly backoffs = new Set<NodeJS.Timeout>();

  constructor(
    private readonly runner: JobRun,
    private readonly concurrency: number,
    private readonly log: Logger,
    private readonly retry: RetryPolicy = LOCAL_RETRY_POLICY,
  ) {
    this.finished.setMaxListeners(0);
  }

  async enqueue(jobId: string): Promise<void> {
    if (this.abort.signal.aborted || this.queued.has(jobId)) return;
    this.queued.add(jobId);
    this.pending.push(jobId);
    this.pump();
  }

  private pump(): void {
    while (this.running < this.concurrency && this.pending.length > 0 && !this.abort.signal.aborted) {
      const jobId = this.pending.shift()!;
      const attempt = (this.attemptsMade.get(jobId) ?? 0) + 1;
      this.running++;
      const task = this.runner
        .run(jobId, this.abort.signal, { number: attempt, of: this.retry.attempts })
        .then(
          (ended) => {
            if (ended) this.finished.emit(jobId);
            return false;
          },
          (error: unknown) => {
            if (error instanceof RetryLaterError) return true;
            this.log.error({ err: error, job_id: jobId }, 'job runner error');
            return false;
          },
        )
        .then((again) => {
          this.running--;
          this.active.delete(task);
          if (again && !this.abort.signal.aborted) this.runAgainLater(jobId, attempt);
          else {
            this.queued.delete(jobId);
            this.attemptsMade.delete(jobId);
          }
          this.pump();
        });
      this.active.add(task);
    }
  }

  /** The job stays queued (an enqueue meanwhile adds nothing) and goes to the back of the line after the backoff. */
  private runAgainLater(jobId: string, attemptsMade: number): void {
    this.attemptsMade.set(jobId, attemptsMade);
    const timer = setTimeout(
      () => {
        this.backoffs.delete(timer);
        this.pending.push(jobId);
        this.pump();
      },
      this.retry.backoffMs * 2 ** (attemptsMade - 1),
    );
    this.backoffs.add(timer);
  }

  waitForFinish(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.finished.off(jobId, done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.finished.on(jobId, done);
      // A signal that has already fired never fires 'abort' again.
      if (signal?.aborted) done();
      else signal?.addEventListener('abort', done, { once: true });
    });
  }

  async stats(): Promise<QueueStats> {
    return { waiting: this.pending.length, active: this.running, delayed: this.backoffs.size };
  }

  /** Interrupts running jobs (they stay processing and resume at the next start) and waits for them. */
  async close(): Promise<void> {
    this.abort.abort();
    this.pending.length = 0;
    // Jobs waiting out a backoff stay processing, like interrupted ones: they run at the next start.
    for (const timer of this.backoffs) clearTimeout(timer);
    this.backoffs.clear();
    await Promise.allSettled([...this.active]);
  }
}
