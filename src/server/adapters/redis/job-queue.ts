import { Queue } from 'bullmq';
import { NEW_IDEMPOTENCY_KEY_PHRASE } from '@agent-tts/contract/errors.js';
import { bullConnection, synthesisJobOptions } from './bullmq.js';
import { RedisKeys, SYNTHESIS_QUEUE } from './keys.js';
import { closeRedisClient, createRedisClient, logConnectionState, withinDeadline, type RedisClient } from './client.js';
import type { DistributedSettings } from '../../config/distributed.js';
import { withTimeout } from '../../timeout.js';
import type { Logger } from '../../log.js';
import type { JobQueue, QueueStats } from '../../ports/index.js';
import type { RedisStore } from './store.js';

/** Waiting requests re-read their job from the store this often, in case an announcement was lost. */
const STORE_RECHECK_MS = 1_000;

export interface RedisJobQueueOptions {
  url: string;
  prefix: string;
  store: RedisStore;
  /** The process's command client: announcements of jobs this process settles go out on it. */
  publisher: RedisClient;
  settings: DistributedSettings;
  log: Logger;
}

/**
 * The API side of the distributed queue: jobs go into a BullMQ queue that worker processes (on any
 * machine) take from; finished jobs are announced on a Redis channel, which is what inline waits
 * listen to. The store stays the source of truth: a job is created there first and queued after, and
 * a periodic reconcile sweep queues any processing job the queue does not hold (an enqueue lost to a
 * crash or an outage) and fails any whose queue entry failed for good — the outbox pattern.
 */
export class RedisJobQueue implements JobQueue {
  private readonly queue: Queue;
  private readonly subscriber: RedisClient;
  private readonly keys: RedisKeys;
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly recheckTimer: NodeJS.Timeout;
  private reconcileTimer?: NodeJS.Timeout;
  private reconciling = false;
  private rechecking = false;
  private closed = false;

  constructor(private readonly opts: RedisJobQueueOptions) {
    this.keys = new RedisKeys(opts.prefix);
    this.queue = new Queue(SYNTHESIS_QUEUE, {
      connection: bullConnection(opts.url),
      prefix: this.keys.bullPrefix(),
      defaultJobOptions: synthesisJobOptions(opts.settings),
    });
    logConnectionState(this.queue, 'bullmq-queue', opts.url, opts.log);
    this.subscriber = createRedisClient(opts.url, { name: 'agent-tts-api-events', log: opts.log });
    // node-redis keeps the subscription across reconnects; announcements made while it was away are
    // lost, so every wait is re-checked against the store when it comes back (and every second anyway).
    this.subscriber
      .subscribe(this.keys.jobFinishedChannel(), (jobId) => this.wake(jobId))
      .catch((error: unknown) => {
        opts.log.error({ err: error }, 'cannot subscribe to job announcements; inline waits rely on store re-checks');
      });
    this.subscriber.on('ready', () => void this.recheckWaiting());
    this.recheckTimer = setInterval(() => void this.recheckWaiting(), STORE_RECHECK_MS);
    this.recheckTimer.unref();
  }

  /** Starts the periodic reconcile sweep (API processes; several running it at once is harmless). */
  startReconciling(): void {
    if (this.reconcileTimer || this.closed) return;
    this.reconcileTimer = setInterval(() => {
      this.reconcile().catch((error: unknown) => this.opts.log.warn({ err: error }, 'queue reconcile failed; retrying later'));
    }, this.opts.settings.reconcileMs);
    this.reconcileTimer.unref();
  }

  /**
   * Hands the job to the queue without holding the request for it: the job is already safe in the
   * store, and an enqueue that Redis does not answer in time is made by the reconcile sweep later.
   */
  async enqueue(jobId: string): Promise<void> {
    this.bounded(this.queue.add('synthesize', {}, { jobId }), 'enqueue').catch((error: unknown) => {
      this.opts.log.warn({ job_id: jobId, err: error }, 'job not queued yet; the reconcile sweep will queue it');
    });
  }

  waitForFinish(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        const set = this.waiters.get(jobId);
        set?.delete(done);
        if (set?.size === 0) this.waiters.delete(jobId);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      let set = this.waiters.get(jobId);
      if (!set) {
        set = new Set();
        this.waiters.set(jobId, set);
      }
      set.add(done);
      if (signal?.aborted) done();
      else signal?.addEventListener('abort', done, { once: true });
    });
  }

  private wake(jobId: string): void {
    for (const done of [...(this.waiters.get(jobId) ?? [])]) done();
  }

  private async recheckWaiting(): Promise<void> {
    // One pass at a time: during an outage a pass lasts as long as its command timeouts.
    if (this.rechecking) return;
    this.rechecking = true;
    try {
      for (const jobId of [...this.waiters.keys()]) {
        const status = await this.opts.store.jobStatus(jobId).catch(() => 'processing' as const);
        // Gone (deleted by retention) counts as finished: the waiter's own re-read tells the rest.
        if (status !== 'processing') this.wake(jobId);
      }
    } finally {
      this.rechecking = false;
    }
  }

  /** Announces a job this process settled (the reconcile sweep's failures), to every API instance. */
  private async announce(jobId: string): Promise<void> {
    this.wake(jobId);
    await withinDeadline(this.opts.publisher, 'announce', () => this.opts.publisher.publish(this.keys.jobFinishedChannel(), jobId)).catch(() => undefined);
  }

  /**
   * Makes the queue agree with the store: every processing job is queued (or running), and a job
   * whose queue entry failed for good (retries or dead-worker recoveries used up) is failed in the
   * store, which releases its reserved minutes. Returns how many jobs it (re)queued.
   */
  async reconcile(): Promise<number> {
    if (this.reconciling || this.closed) return 0;
    this.reconciling = true;
    try {
      let queued = 0;
      for (const jobId of await this.opts.store.listProcessingJobIds()) {
        if (this.closed) break;
        const state = await this.bounded(this.queue.getJobState(jobId), 'reconcile: job state');
        if (state === 'unknown' || state === 'completed') {
          // Re-read: the job may have finished (and left the queue) since the list was taken.
          if ((await this.opts.store.jobStatus(jobId)) !== 'processing') continue;
          if (state === 'completed') await this.bounded(this.queue.remove(jobId), 'reconcile: remove');
          await this.bounded(this.queue.add('synthesize', {}, { jobId }), 'reconcile: enqueue');
          queued++;
          this.opts.log.info({ job_id: jobId }, 'reconcile: processing job was not in the queue; queued it');
        } else if (state === 'failed') {
          const entry = await this.bounded(this.queue.getJob(jobId), 'reconcile: job entry');
          const failed = await this.opts.store.failJob(jobId, {
            code: 'INTERNAL_ERROR',
            message: `Synthesis could not be finished. Retry with backoff, using a ${NEW_IDEMPOTENCY_KEY_PHRASE}.`,
            completedAt: Date.now(),
          });
          if (failed) {
            this.opts.log.error({ job_id: jobId, reason: entry?.failedReason }, 'reconcile: queue gave up on the job; failed it');
            await this.announce(jobId);
          }
        }
      }
      return queued;
    } finally {
      this.reconciling = false;
    }
  }

  async stats(): Promise<QueueStats> {
    const counts = await this.bounded(this.queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed'), 'queue stats');
    return {
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
    };
  }

  async ping(): Promise<void> {
    // A round trip through BullMQ's own connection.
    await this.bounded(this.queue.getJobCounts('waiting'), 'queue');
  }

  /**
   * BullMQ's connections have no command timeout (a worker's blocks for seconds at a time, and queue
   * commands wait out a reconnect), so every call of the API side is given up after the command
   * deadline here. A call given up may still take effect when Redis answers again; each one is
   * harmless then (an enqueue of a job the store holds, a read).
   */
  private bounded<T>(call: Promise<T>, what: string): Promise<T> {
    call.catch(() => undefined);
    return withTimeout(call, this.opts.settings.commandTimeoutMs, what);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.recheckTimer);
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    for (const jobId of [...this.waiters.keys()]) this.wake(jobId);
    await closeRedisClient(this.subscriber);
    // Closing waits for Redis; without it, give up after a while (nothing is lost: jobs are in Redis).
    await withTimeout(this.queue.close(), this.opts.settings.commandTimeoutMs * 2, 'queue close').catch(() => undefined);
  }
}
