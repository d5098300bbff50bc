import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobQueue, JobRecord, Store } from '../ports/index.js';
import type { AudioStorage } from '../domain/job-files.js';

/**
 * The behaviour every JobQueue adapter owes the domain, with real synthesis behind it: queued jobs
 * run to an end, each once however often it is queued, and waits end on finish, timeout or abort.
 */
export interface JobQueueHarness {
  queue: JobQueue;
  store: Store;
  audio: AudioStorage;
  /** How many times a runner was started on this job. */
  runsOf(jobId: string): number;
  close(): Promise<void>;
}

/**
 * What the groups of tests work with: the suite's harness, and `newJob`, which creates a job of the
 * suite's account with this text (created, not queued).
 */
interface Queued {
  harness: () => JobQueueHarness;
  newJob: (text: string) => Promise<JobRecord>;
}

export function describeJobQueueContract(name: string, open: () => Promise<JobQueueHarness>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip ?? false)(`JobQueue contract: ${name}`, () => {
    let h: JobQueueHarness;
    let accountId: string;
    beforeAll(async () => {
      h = await open();
      accountId = randomUUID();
      await h.store.createAccount({ id: accountId, name: 'queue contract', plan: 'ultimate', subscription: 'active', createdAt: Date.now() });
    });
    afterAll(async () => {
      await h?.close();
    });

    async function newJob(text: string): Promise<JobRecord> {
      const now = Date.now();
      const job: JobRecord = {
        id: randomUUID(),
        accountId,
        keyPublicId: 'abcdef01',
        status: 'processing',
        text,
        voice: 'af_heart',
        language: 'en-US',
        speed: 1.2,
        createdAt: now,
        deleteAfter: now + 86_400_000,
        reservedCentiminutes: 5,
        usageMonth: new Date(now).toISOString().slice(0, 7),
        progress: 0,
      };
      expect(await h.store.createJob(job, 1_000_000)).toEqual({ kind: 'created' });
      return job;
    }

    const queued: Queued = { harness: () => h, newJob };
    running(queued);
    waiting(queued);

    it('reports its depth when it can', async () => {
      if (!h.queue.stats) return;
      const stats = await h.queue.stats();
      expect(stats.waiting).toBeGreaterThanOrEqual(0);
      expect(stats.active).toBeGreaterThanOrEqual(0);
    });
  });
}

/** Queued jobs run to completion, every one of a burst, each once however often it is queued. */
function running({ harness, newJob }: Queued): void {
  it('runs a queued job to completion and ends the wait on it', async () => {
    const h = harness();
    const job = await newJob('The queue contract speaks one sentence.');
    const finished = h.queue.waitForFinish(job.id, 60_000);
    await h.queue.enqueue(job.id);
    await finished;
    const done = await h.store.getJob(job.id);
    expect(done?.status).toBe('completed');
    expect(done?.durationSeconds).toBeGreaterThan(0.5);
    expect((await h.audio.stat(job.id))?.size).toBe(done?.fileSizeBytes);
  });

  it('runs every job of a burst', async () => {
    const h = harness();
    const jobs = await Promise.all([1, 2, 3, 4].map((i) => newJob(`Burst sentence number ${i}.`)));
    const waits = jobs.map((j) => h.queue.waitForFinish(j.id, 60_000));
    await Promise.all(jobs.map((j) => h.queue.enqueue(j.id)));
    await Promise.all(waits);
    for (const job of jobs) expect((await h.store.getJob(job.id))?.status).toBe('completed');
  });

  it('runs a job once however often it is queued at once', async () => {
    const h = harness();
    const job = await newJob('Queued three times, spoken once.');
    const finished = h.queue.waitForFinish(job.id, 60_000);
    await Promise.all([h.queue.enqueue(job.id), h.queue.enqueue(job.id), h.queue.enqueue(job.id)]);
    await finished;
    expect((await h.store.getJob(job.id))?.status).toBe('completed');
    expect(h.runsOf(job.id)).toBe(1);
  });
}

/** A wait ends when its job finishes, at its timeout, or when its signal aborts. */
function waiting({ harness, newJob }: Queued): void {
  it('ends a wait at its timeout when the job does not finish: not before it, and not long after', async () => {
    const h = harness();
    // A job that exists and stays processing: created, never queued. (An unknown id may end the
    // wait early — a job that is gone counts as finished — so it would prove nothing about timeouts.)
    const job = await newJob('Created, never queued: nothing finishes it.');
    const timeoutMs = 300;
    const started = performance.now();
    await expect(h.queue.waitForFinish(job.id, timeoutMs)).resolves.toBeUndefined();
    const elapsed = performance.now() - started;
    // A background sweep (the Redis outbox) may queue and finish it meanwhile; then the wait ended on
    // its finish, which is also correct. Otherwise it must have lasted the timeout: timers may fire a
    // millisecond early by rounding, and the upper bound only catches a wait that ignores it.
    if ((await h.store.getJob(job.id))?.status === 'processing') {
      expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 5);
    }
    expect(elapsed).toBeLessThan(timeoutMs + 10_000);
  });

  it('ends the wait on an unknown job at its timeout at the latest', async () => {
    const h = harness();
    const started = performance.now();
    await expect(h.queue.waitForFinish(randomUUID(), 300)).resolves.toBeUndefined();
    expect(performance.now() - started).toBeLessThan(300 + 10_000);
  });

  it('ends a wait when its signal aborts, or at once when it already has', async () => {
    const h = harness();
    const abort = new AbortController();
    const waiting = h.queue.waitForFinish(randomUUID(), 600_000, abort.signal);
    abort.abort();
    await expect(waiting).resolves.toBeUndefined();
    await expect(h.queue.waitForFinish(randomUUID(), 600_000, AbortSignal.abort())).resolves.toBeUndefined();
  });
}
