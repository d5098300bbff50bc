import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { IdempotencyRepository, JobRepository, UsageRepository } from '../../ports/index.js';
import { describeIdempotencyRepositoryContract } from './idempotency.contract.js';
import { type AccountOwner, DAY, MONTH, newAccount, newJob, type OpenStore, openedStore, storedAccount, T0 } from './fixtures.contract.js';

/**
 * The jobs aggregate: jobs, the usage they reserve and charge, and the Idempotency-Keys bound to them,
 * tested together because `createJob` checks the usage, inserts the job and binds its key in one
 * atomic step.
 */
type JobStore = JobRepository & UsageRepository & IdempotencyRepository & AccountOwner;
type CurrentStore = () => JobStore;

/**
 * What the JobRepository, UsageRepository and IdempotencyRepository of one store owe together: claims
 * of Idempotency-Keys (idempotency.contract.ts), jobs created within the month's usage and settled
 * once, listings, and retention.
 */
export function describeJobRepositoryContract(open: OpenStore<JobStore>): void {
  describeIdempotencyRepositoryContract(open);

  describe('jobs and the usage ledger', () => {
    const current = openedStore(open);
    reservations(current);
    settlement(current);
    listings(current);
  });

  describe('retention', () => {
    retention(open);
    retentionOfSomeAccounts(open);
  });
}

/** A job is created with its usage reserved, never past the month's limit. */
function reservations(current: CurrentStore): void {
  it('creates a job with its reservation and reads every field back', async () => {
    const store = current();
    const a = await storedAccount(store);
    const job = newJob(a.id, { reservedCentiminutes: 250, idempotencyKey: 'fields' });
    await store.claimIdempotencyKey(a.id, 'fields', job.id, T0, 30_000);
    expect(await store.createJob(job, 1_000)).toEqual({ kind: 'created' });
    expect(await store.getJob(job.id)).toEqual(job);
    expect(await store.getJob(randomUUID())).toBeUndefined();
    expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 250 });
    expect(await store.getUsage(a.id, '2026-05')).toEqual({ usedCentiminutes: 0 });
  });

  it('keeps a request for word timings through creation, settlement and listings; a job without one reads none', async () => {
    const store = current();
    const a = await storedAccount(store);
    const now = Date.now();
    const timed = newJob(a.id, { timestamps: 'word', createdAt: now + 1, deleteAfter: now + DAY });
    const plain = newJob(a.id, { createdAt: now, deleteAfter: now + DAY });
    for (const job of [timed, plain]) expect(await store.createJob(job, 10_000)).toEqual({ kind: 'created' });
    expect(await store.getJob(timed.id)).toEqual(timed);
    expect((await store.getJob(plain.id))?.timestamps).toBeUndefined();
    const result = { durationSeconds: 2, fileSizeBytes: 9, completedAt: now + 2, processingTimeMs: 1, chargedCentiminutes: 4 };
    expect(await store.completeJob(timed.id, result)).toBe(true);
    expect(await store.getJob(timed.id)).toMatchObject({ status: 'completed', timestamps: 'word' });
    const listed = await store.listRecentJobs(a.id, 10);
    expect(listed.map((j) => [j.id, j.timestamps])).toEqual([
      [timed.id, 'word'],
      [plain.id, undefined],
    ]);
  });

  it('refuses a job whose reservation exceeds what remains, saying what is used', async () => {
    const store = current();
    const a = await storedAccount(store);
    await store.setUsage(a.id, MONTH, 900);
    expect(await store.createJob(newJob(a.id, { reservedCentiminutes: 100 }), 1_000)).toEqual({ kind: 'created' });
    const refused = newJob(a.id, { reservedCentiminutes: 1 });
    expect(await store.createJob(refused, 1_000)).toEqual({ kind: 'usage_exceeded', usedCentiminutes: 1_000, limitCentiminutes: 1_000 });
    expect(await store.getJob(refused.id)).toBeUndefined();
    expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 1_000 });
  });

  it('never reserves past the limit under concurrent submissions', async () => {
    const store = current();
    const a = await storedAccount(store);
    const results = await Promise.all(Array.from({ length: 10 }, () => store.createJob(newJob(a.id, { reservedCentiminutes: 30 }), 100)));
    expect(results.filter((r) => r.kind === 'created')).toHaveLength(3);
    expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 90 });
  });
}

/** A running job's progress only rises; the job settles once, charging or releasing its reservation. */
function settlement(current: CurrentStore): void {
  it('settles a completed job once: reservation out, charge in, text dropped', async () => {
    const store = current();
    const a = await storedAccount(store);
    const job = newJob(a.id, { reservedCentiminutes: 40 });
    await store.createJob(job, 10_000);
    await store.updateProgress(job.id, 0.5);
    expect((await store.getJob(job.id))?.progress).toBe(0.5);
    const result = { durationSeconds: 21.5, fileSizeBytes: 130_000, completedAt: T0 + 5_000, processingTimeMs: 5_000, chargedCentiminutes: 36 };
    expect(await store.completeJob(job.id, result)).toBe(true);
    expect(await store.completeJob(job.id, { ...result, chargedCentiminutes: 99 })).toBe(false);
    expect(await store.failJob(job.id, { code: 'INTERNAL_ERROR', message: 'late', completedAt: T0 })).toBe(false);
    expect(await store.getJob(job.id)).toEqual({ ...job, status: 'completed', text: '', progress: 1, ...result });
    expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 36 });
    // Progress of a settled job no longer moves.
    await store.updateProgress(job.id, 0.2);
    expect((await store.getJob(job.id))?.progress).toBe(1);
  });

  it('only ever raises a running job’s progress, late or repeated writes included', async () => {
    const store = current();
    const a = await storedAccount(store);
    const job = newJob(a.id);
    await store.createJob(job, 10_000);
    await store.updateProgress(job.id, 0.2);
    await store.updateProgress(job.id, 0.55);
    // A run started again from the beginning, or a write that arrives late.
    await store.updateProgress(job.id, 0.05);
    await store.updateProgress(job.id, 0.55);
    expect((await store.getJob(job.id))?.progress).toBe(0.55);
    await Promise.all([0.6, 0.3, 0.9, 0.1, 0.7].map((p) => store.updateProgress(job.id, p)));
    expect((await store.getJob(job.id))?.progress).toBe(0.9);
  });

  it('settles exactly once when many settle the same job at the same time', async () => {
    const store = current();
    const a = await storedAccount(store);
    const job = newJob(a.id, { reservedCentiminutes: 40 });
    await store.createJob(job, 10_000);
    const result = { durationSeconds: 20, fileSizeBytes: 1, completedAt: T0, processingTimeMs: 1, chargedCentiminutes: 34 };
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => store.completeJob(job.id, result)));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 34 });
  });

  it('releases the reservation of a failed job', async () => {
    const store = current();
    const a = await storedAccount(store);
    await store.setUsage(a.id, MONTH, 10);
    const job = newJob(a.id, { reservedCentiminutes: 40 });
    await store.createJob(job, 10_000);
    expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 50 });
    const error = { code: 'TTS_PROVIDER_ERROR' as const, message: 'upstream said no', completedAt: T0 + 1 };
    expect(await store.failJob(job.id, error)).toBe(true);
    expect(await store.failJob(job.id, error)).toBe(false);
    expect(await store.getJob(job.id)).toMatchObject({
      status: 'failed',
      text: '',
      errorCode: 'TTS_PROVIDER_ERROR',
      errorMessage: 'upstream said no',
      chargedCentiminutes: 0,
    });
    expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 10 });
  });
}

/** The processing and recent jobs, usage set by administration, and legacy jobs imported as they are. */
function listings(current: CurrentStore): void {
  it('lists processing jobs only', async () => {
    const store = current();
    const a = await storedAccount(store);
    const running = newJob(a.id);
    const done = newJob(a.id);
    await store.createJob(running, 10_000);
    await store.createJob(done, 10_000);
    await store.failJob(done.id, { code: 'INTERNAL_ERROR', message: 'x', completedAt: T0 });
    const ids = await store.listProcessingJobIds();
    expect(ids).toContain(running.id);
    expect(ids).not.toContain(done.id);
  });

  it('sets settled usage for administration, keeping reservations', async () => {
    const store = current();
    const a = await storedAccount(store);
    await store.createJob(newJob(a.id, { reservedCentiminutes: 5 }), 10_000);
    await store.setUsage(a.id, MONTH, 700);
    expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 705 });
  });

  it('imports legacy jobs as they are', async () => {
    const store = current();
    const a = await storedAccount(store);
    const legacy = newJob(a.id, {
      status: 'completed',
      text: '',
      progress: 1,
      reservedCentiminutes: 0,
      chargedCentiminutes: 0,
      deleteAfter: Number.MAX_SAFE_INTEGER,
      completedAt: T0,
      processingTimeMs: 0,
      durationSeconds: 3.2,
      fileSizeBytes: 25_600,
      legacyExpiresAt: T0 - DAY,
    });
    await store.importLegacyJob(legacy);
    expect(await store.getJob(legacy.id)).toEqual(legacy);
    expect(await store.listProcessingJobIds()).not.toContain(legacy.id);
  });

  it("lists an account's recent jobs, newest first, without other accounts' or deleted ones", async () => {
    const store = current();
    const a = await storedAccount(store);
    const other = await storedAccount(store);
    const now = Date.now();
    const jobs = [0, 1, 2].map((i) => newJob(a.id, { createdAt: now + i, deleteAfter: now + DAY }));
    for (const job of jobs) expect((await store.createJob(job, 100_000)).kind).toBe('created');
    await store.createJob(newJob(other.id, { createdAt: now + 5, deleteAfter: now + DAY }), 100_000);
    const gone = newJob(a.id, { createdAt: now + 3, deleteAfter: now - 1 });
    await store.createJob(gone, 100_000);
    expect(await store.deleteExpiredJobs(now, 100)).toContain(gone.id);
    const newestFirst = jobs.map((j) => j.id).reverse();
    expect((await store.listRecentJobs(a.id, 10)).map((j) => j.id)).toEqual(newestFirst);
    expect((await store.listRecentJobs(a.id, 2)).map((j) => j.id)).toEqual(newestFirst.slice(0, 2));
    expect((await store.listRecentJobs(a.id, 10))[0]).toEqual(jobs[2]);
    expect(await store.listRecentJobs(randomUUID(), 10)).toEqual([]);
  });
}

/**
 * Jobs past their retention are deleted in batches, each once, freeing what they held. The test opens
 * a store of its own: it lists every processing job, so no other test's job may be there.
 */
function retention(open: OpenStore<JobStore>): void {
  it('deletes jobs past their retention, in batches, each once, and frees what they held', async () => {
    const own = await open();
    try {
      const s = own.store;
      const a = newAccount();
      await s.createAccount(a);
      const expiredDone = newJob(a.id, { deleteAfter: T0 + 10, reservedCentiminutes: 20, idempotencyKey: 'gone' });
      const expiredRunning = newJob(a.id, { deleteAfter: T0 + 20, reservedCentiminutes: 30 });
      const expiredThird = newJob(a.id, { deleteAfter: T0 + 30, reservedCentiminutes: 1 });
      const kept = newJob(a.id, { deleteAfter: T0 + DAY, reservedCentiminutes: 7 });
      await s.claimIdempotencyKey(a.id, 'gone', expiredDone.id, T0, 30_000);
      for (const job of [expiredDone, expiredRunning, expiredThird, kept]) expect(await s.createJob(job, 10_000)).toEqual({ kind: 'created' });
      await s.completeJob(expiredDone.id, { durationSeconds: 6, fileSizeBytes: 1, completedAt: T0, processingTimeMs: 1, chargedCentiminutes: 10 });
      expect(await s.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 48 });

      const now = T0 + 1_000;
      const [first, second] = await Promise.all([s.deleteExpiredJobs(now, 2), s.deleteExpiredJobs(now, 2)]);
      const third = await s.deleteExpiredJobs(now, 2);
      const deleted = [...first, ...second, ...third];
      expect(deleted.sort()).toEqual([expiredDone.id, expiredRunning.id, expiredThird.id].sort());
      expect(await s.deleteExpiredJobs(now, 2)).toEqual([]);

      for (const id of deleted) expect(await s.getJob(id)).toBeUndefined();
      expect(await s.getJob(kept.id)).toBeDefined();
      expect(await s.listProcessingJobIds()).toEqual([kept.id]);
      // The settled charge stays; the reservations of the deleted running jobs are released.
      expect(await s.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 17 });
      // The Idempotency-Key of a deleted job is free again.
      expect((await s.claimIdempotencyKey(a.id, 'gone', randomUUID(), now, 30_000)).kind).toBe('claimed');
    } finally {
      await own.close();
    }
  });
}

/** Deletion limited to some accounts (the sandbox: one test clock per set of accounts). */
function retentionOfSomeAccounts(open: OpenStore<JobStore>): void {
  it('deletes the expired jobs of the accounts named, or with except of all the others, and no other job', async () => {
    const own = await open();
    try {
      const store = own.store;
      const [a, b, c] = [newAccount(), newAccount(), newAccount()];
      for (const account of [a, b, c]) await store.createAccount(account);
      const expired = (account: { id: string }) => newJob(account.id, { deleteAfter: T0 + 1_000 });
      const [ja, jb, jc] = [expired(a), expired(b), expired(c)];
      const fresh = newJob(a.id, { deleteAfter: T0 + 5_000 });
      for (const job of [ja, jb, jc, fresh]) expect((await store.createJob(job, 100_000)).kind).toBe('created');

      const now = T0 + 2_000;
      expect(await store.deleteExpiredJobs(now, 10, { ids: [a.id] })).toEqual([ja.id]);
      expect(await store.deleteExpiredJobs(now, 10, { ids: [a.id, b.id], except: true })).toEqual([jc.id]);
      expect(await store.getJob(jb.id)).toBeDefined();
      expect(await store.getJob(fresh.id)).toBeDefined();
      expect(await store.deleteExpiredJobs(now, 1, { ids: [], except: true })).toEqual([jb.id]);
      expect(await store.getJob(fresh.id)).toBeDefined();
    } finally {
      await own.close();
    }
  });
}
