import { setTimeout as sleep } from 'node:timers/promises';
import { WaitingError, Worker, type Job } from 'bullmq';
import type { JobRun } from '../../ports/index.js';
import type { Logger } from '../../log.js';
import { bullConnection } from './bullmq.js';
import { RedisKeys, SYNTHESIS_QUEUE } from './keys.js';
import { reconnectDelay, withinDeadline, type RedisClient } from './client.js';
import { redactUrl as redactRedisUrl } from '../../redact.js';
import type { DistributedSettings } from '../../config/distributed.js';
import { withTimeout } from '../../timeout.js';

export interface SynthesisWorkerOptions {
  url: string;
  prefix: string;
  /** Runs a job to its end: synthesizes, then settles or fails it in the store. */
  runner: JobRun;
  /** The process's command client, for announcing finished jobs. */
  publisher: RedisClient;
  concurrency: number;
  settings: DistributedSettings;
  log: Logger;
}

/**
 * Running jobs are interrupted and handed back this long before the end of the grace period (at most
 * half of a shorter one), so that the whole close fits the grace period (SHUTDOWN_GRACE_MS).
 */
const CLOSE_MARGIN_MS = 5_000;

const CONNECTION_ERROR = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|Socket closed|Connection is closed|client is closed|Disconnects client/i;

/**
 * Takes synthesis jobs from the shared queue and runs them, `concurrency` at a time. A job holds a
 * lock while it runs (renewed at half QUEUE_LOCK_MS); when a worker dies, its lock lapses and another
 * worker's stalled-job check puts the job back in the queue (QUEUE_STALLED_CHECK_MS), so it is run
 * again from the start — the store settles a job once, so it is charged once.
 */
export class SynthesisWorker {
  private worker: Worker;
  private readonly keys: RedisKeys;
  private readonly abort = new AbortController();
  /** Ends the wait between two attempts to start taking jobs, at close. */
  private readonly stopStarting = new AbortController();
  private readonly running = new Set<string>();
  private readonly started: Promise<void>;
  private lastConnectionWarning = 0;

  constructor(private readonly opts: SynthesisWorkerOptions) {
    this.keys = new RedisKeys(opts.prefix);
    this.worker = this.createWorker();
    this.started = this.startTaking();
    // Awaited by ready(), which a caller may never call: a rejection there is not left unhandled.
    this.started.catch(() => undefined);
  }

  /**
   * A BullMQ worker that does not run yet (autorun off): it takes jobs only once its connections are
   * ready, see startTaking.
   */
  private createWorker(): Worker {
    const { opts } = this;
    const worker = new Worker(SYNTHESIS_QUEUE, (job, token) => this.process(job, token), {
      connection: bullConnection(opts.url),
      prefix: this.keys.bullPrefix(),
      concurrency: opts.concurrency,
      lockDuration: opts.settings.lockMs,
      stalledInterval: opts.settings.stalledCheckMs,
      maxStalledCount: opts.settings.maxStalled,
      autorun: false,
    });
    worker.on('error', (error: Error) => {
      // An outage makes every reconnect attempt an error: one line per 30 s says it well enough. An
      // error without a message is what the queue's blocking reads raise when Redis stalls (no
      // answer within their deadline): the same outage, and the line says so.
      if (CONNECTION_ERROR.test(error.message) || !error.message) {
        if (Date.now() - this.lastConnectionWarning < 30_000) return;
        this.lastConnectionWarning = Date.now();
        const described = error.message || `${error.name || 'Error'} without a message: Redis did not answer in time`;
        opts.log.warn({ redis: redactRedisUrl(opts.url), error: described }, 'worker: redis unreachable or stalled; reconnecting');
        return;
      }
      opts.log.error({ err: error }, `worker error: ${error.message}`);
    });
    worker.on('stalled', (jobId: string) => {
      opts.log.warn({ job_id: jobId }, 'job stalled (its worker stopped renewing its lock); queued again');
    });
    worker.on('failed', (job: Job | undefined, error: Error) => {
      if (!job) return;
      const final = job.attemptsMade >= (job.opts.attempts ?? 1);
      opts.log[final ? 'error' : 'warn'](
        { job_id: job.id, attempt: job.attemptsMade, err: error },
        final ? 'job run failed for good' : 'job run failed; it will be retried',
      );
    });
    return worker;
  }

  /**
   * Runs the worker once its connections are ready; a worker whose connection failed while it was
   * being set up is replaced by a new one, until one is ready or the worker is closed.
   *
   * BullMQ sets a connection up once (connect, then INFO for the server's version) and keeps that
   * promise: when Redis drops the connection in the middle (an ECONNRESET, a restart), the promise
   * stays rejected for good, and every command of the worker fails at once with that same error. Its
   * fetch loop treats an error other than ECONNREFUSED or a closed connection as a job error and asks
   * again at once, without waiting: a worker run on such a connection spins on microtasks at 100% CPU,
   * never takes a job even when Redis is back, and starves the event loop of timers and signals, so
   * SIGTERM no longer stops it.
   */
  private async startTaking(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.worker.waitUntilReady();
        break;
      } catch (error) {
        if (this.stopStarting.signal.aborted) return;
        const broken = this.worker;
        this.opts.log.warn({ redis: redactRedisUrl(this.opts.url), err: error }, 'worker: redis connection failed while starting; starting again');
        await withTimeout(broken.close(true), 5_000, 'broken worker close').catch(() => undefined);
        // Cut short by close(): an AbortError, which the check below answers.
        await sleep(reconnectDelay(attempt), undefined, { signal: this.stopStarting.signal }).catch(() => undefined);
        if (this.stopStarting.signal.aborted) return;
        this.worker = this.createWorker();
      }
    }
    if (this.stopStarting.signal.aborted) return;
    this.worker.run().catch((error: unknown) => this.opts.log.error({ err: error }, 'worker stopped taking jobs'));
  }

  /** Resolves once the worker is connected and taking jobs. */
  async ready(): Promise<void> {
    await this.started;
    if (this.stopStarting.signal.aborted) throw new Error('the worker was closed before it could take jobs');
  }

  /** Readiness: the worker is taking jobs (its store client's ping covers Redis itself). */
  async ping(): Promise<void> {
    if (!this.worker.isRunning()) throw new Error('the worker is not taking jobs (starting, or shutting down)');
  }

  get activeJobs(): number {
    return this.running.size;
  }

  private async process(job: Job, token: string | undefined): Promise<void> {
    const jobId = job.id!;
    this.running.add(jobId);
    this.opts.log.info({ job_id: jobId, attempt: job.attemptsMade + 1 }, 'job started');
    try {
      // An audio store that cannot be reached is waited out inside the run (the runner's outage budget),
      // the job's lock renewed meanwhile; a run that throws is retried by BullMQ after its backoff.
      const ended = await this.opts.runner.run(jobId, this.abort.signal);
      if (!ended) {
        // Shutdown interrupted it: hand it back to the queue at once, without using up an attempt,
        // so another worker starts it now rather than after the lock lapses.
        await job.moveToWait(token);
        this.opts.log.info({ job_id: jobId }, 'job handed back to the queue (shutdown)');
        throw new WaitingError();
      }
      await withinDeadline(this.opts.publisher, 'announce', () => this.opts.publisher.publish(this.keys.jobFinishedChannel(), jobId)).catch(
        (error: unknown) => {
          this.opts.log.warn({ job_id: jobId, err: error }, 'finish not announced; waiting requests see it in the store');
        },
      );
    } finally {
      this.running.delete(jobId);
    }
  }

  /**
   * Stops taking jobs and lets the running ones finish until shortly before the end of `graceMs`; the
   * ones still running then are interrupted and handed back to the queue for another worker. The close
   * ends within `graceMs`, Redis reachable or not.
   */
  async close(graceMs: number): Promise<void> {
    this.stopStarting.abort();
    const closing = this.worker.close();
    const timer = setTimeout(
      () => {
        if (this.running.size > 0) this.opts.log.info({ jobs: [...this.running] }, 'shutdown grace nearly over; handing running jobs back');
        this.abort.abort();
      },
      graceMs - Math.min(CLOSE_MARGIN_MS, graceMs / 2),
    );
    timer.unref();
    try {
      // BullMQ waits for Redis to close cleanly; without Redis that could be forever.
      await withTimeout(closing, graceMs, 'worker close');
    } catch (error) {
      this.opts.log.warn({ err: error }, 'worker did not close cleanly; its jobs are recovered by the stalled-job check');
    } finally {
      clearTimeout(timer);
    }
  }
}
