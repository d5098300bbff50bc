import { EventEmitter } from 'node:events';
import type { Logger } from '../log.js';
import type { JobQueue, JobRun, QueueStats } from '../ports/index.js';

/**
 * In-process queue of the embedded default: jobs run FIFO, a few at a time (their chunks share the
 * synthesis thread pool). Finishing is announced on an EventEmitter, which is what inline waits use.
 * An audio store that cannot be reached is waited out inside the run (JobRunner's outage budget).
 */
export class LocalJobQueue implements JobQueue {
  private readonly pending: string[] = [];
  private readonly queued = new Set<string>();
  private running = 0;
  private readonly finished = new EventEmitter();
  private readonly abort = new AbortController();
  private readonly active = new Set<Promise<void>>();

  constructor(
    private readonly runner: JobRun,
    private readonly concurrency: number,
    private readonly log: Logger,
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
      const jobId = this.pending.shift();
      if (jobId === undefined) break;
      this.running++;
      const task = this.runner
        .run(jobId, this.abort.signal)
        .then(
          (ended) => {
            if (ended) this.finished.emit(jobId);
          },
          (error: unknown) => {
            this.log.error({ err: error, job_id: jobId }, 'job runner error');
          },
        )
        .then(() => {
          this.running--;
          this.active.delete(task);
          this.queued.delete(jobId);
          this.pump();
        });
      this.active.add(task);
    }
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
    return { waiting: this.pending.length, active: this.running };
  }

  /** Interrupts running jobs (they stay processing and resume at the next start) and waits for them. */
  async close(): Promise<void> {
    this.abort.abort();
    this.pending.length = 0;
    await Promise.allSettled([...this.active]);
  }
}
