import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account, ApiKeyRecord, JobRecord, Store } from '../ports/index.js';

/**
 * The behaviour every Store adapter owes the domain, written once and run against each adapter
 * (SQLite and Redis). Each call of `open` gives a store no other test uses (a fresh file, a fresh
 * key prefix); `close` releases it and whatever it created.
 */
export interface StoreHarness {
  store: Store;
  close(): Promise<void>;
}

const MONTH = '2026-04';
const T0 = Date.UTC(2026, 3, 10, 12, 0, 0);
const DAY = 86_400_000;

export function newAccount(overrides: Partial<Account> = {}): Account {
  return { id: randomUUID(), name: 'contract account', plan: 'pro', subscription: 'active', createdAt: T0, ...overrides };
}

export function newKey(accountId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    publicId: randomBytes(4).toString('hex'),
    accountId,
    secretHash: randomBytes(32).toString('hex'),
    name: 'contract key',
    createdAt: T0,
    callCount: 0,
    ...overrides,
  };
}

export function newJob(accountId: string, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    id: randomUUID(),
    accountId,
    keyPublicId: 'abcdef01',
    status: 'processing',
    text: 'Hello, contract. Ünïcödé “quotes” and 日本語 survive the round trip.',
    voice: 'af_heart',
    language: 'en-US',
    speed: 1.2,
    createdAt: T0,
    deleteAfter: T0 + 7 * DAY,
    reservedCentiminutes: 30,
    usageMonth: MONTH,
    progress: 0,
    ...overrides,
  };
}

export function describeStoreContract(name: string, open: () => Promise<StoreHarness>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip ?? false)(`Store contract: ${name}`, () => {
    let h: StoreHarness;
    let store: Store;
    beforeAll(async () => {
      h = await open();
      store = h.store;
    });
    afterAll(async () => {
      await h?.close();
    });

    /** An account of its own for a test, so tests never see each other's usage or keys. */
    async function account(overrides: Partial<Account> = {}): Promise<Account> {
      const a = newAccount(overrides);
      await store.createAccount(a);
      return a;
    }

    it('answers a ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    describe('dashboard sessions and sign-in tokens', () => {
      const hashOf = () => randomBytes(32).toString('hex');

      it('keeps a session until it expires or is deleted', async () => {
        const a = await account();
        const idHash = hashOf();
        const now = Date.now();
        await store.createSession({ idHash, accountId: a.id, createdAt: now, expiresAt: now + 60_000 });
        expect(await store.getSession(idHash, now + 1)).toEqual({ idHash, accountId: a.id, createdAt: now, expiresAt: now + 60_000 });
        expect(await store.getSession(idHash, now + 60_000)).toBeUndefined();
        expect(await store.getSession(hashOf(), now)).toBeUndefined();
        await store.deleteSession(idHash);
        expect(await store.getSession(idHash, now + 1)).toBeUndefined();
      });

      it('hands a sign-in token out once, and never once expired', async () => {
        const a = await account();
        const now = Date.now();
        const tokenHash = hashOf();
        await store.createSignInToken({ tokenHash, accountId: a.id, expiresAt: now + 60_000 });
        const takes = await Promise.all([store.consumeSignInToken(tokenHash, now), store.consumeSignInToken(tokenHash, now)]);
        expect(takes.filter((t) => t !== undefined)).toEqual([a.id]);
        expect(await store.consumeSignInToken(tokenHash, now)).toBeUndefined();
        const expired = hashOf();
        await store.createSignInToken({ tokenHash: expired, accountId: a.id, expiresAt: now + 1_000 });
        expect(await store.consumeSignInToken(expired, now + 1_000)).toBeUndefined();
        expect(await store.consumeSignInToken(hashOf(), now)).toBeUndefined();
      });

      it("lists an account's recent jobs, newest first, without other accounts' or deleted ones", async () => {
        const a = await account();
        const other = await account();
        const now = Date.now();
        const jobs = [0, 1, 2].map((i) => newJob(a.id, { createdAt: now + i, deleteAfter: now + DAY }));
        for (const job of jobs) expect((await store.createJob(job, 100_000)).kind).toBe('created');
        await store.createJob(newJob(other.id, { createdAt: now + 5, deleteAfter: now + DAY }), 100_000);
        const gone = newJob(a.id, { createdAt: now + 3, deleteAfter: now - 1 });
        await store.createJob(gone, 100_000);
        expect(await store.deleteExpiredJobs(now, 100)).toContain(gone.id);
        expect((await store.listRecentJobs(a.id, 10)).map((j) => j.id)).toEqual([jobs[2]!.id, jobs[1]!.id, jobs[0]!.id]);
        expect((await store.listRecentJobs(a.id, 2)).map((j) => j.id)).toEqual([jobs[2]!.id, jobs[1]!.id]);
        expect((await store.listRecentJobs(a.id, 10))[0]).toEqual(jobs[2]);
        expect(await store.listRecentJobs(randomUUID(), 10)).toEqual([]);
      });
    });

    describe('accounts', () => {
      it('stores, reads, updates and lists accounts', async () => {
        const a = await account({ name: 'first', plan: 'free', createdAt: T0 + 1 });
        const b = await account({ name: 'second', plan: 'ultimate', subscription: 'inactive', createdAt: T0 + 2 });
        expect(await store.getAccount(a.id)).toEqual(a);
        expect(await store.getAccount(b.id)).toEqual(b);
        expect(await store.getAccount(randomUUID())).toBeUndefined();

        expect(await store.updateAccount(a.id, { plan: 'ultimate', subscription: 'inactive' })).toBe(true);
        expect(await store.getAccount(a.id)).toEqual({ ...a, plan: 'ultimate', subscription: 'inactive' });
        expect(await store.updateAccount(a.id, { name: 'renamed' })).toBe(true);
        expect((await store.getAccount(a.id))?.name).toBe('renamed');
        expect(await store.updateAccount(a.id, {})).toBe(true);
        expect(await store.updateAccount(randomUUID(), { name: 'nobody' })).toBe(false);

        const listed = (await store.listAccounts()).filter((x) => x.id === a.id || x.id === b.id);
        expect(listed.map((x) => x.id)).toEqual([a.id, b.id]);
      });

      it('refuses a second account with the same id', async () => {
        const a = await account();
        await expect(store.createAccount({ ...a, name: 'impostor' })).rejects.toThrow();
        expect((await store.getAccount(a.id))?.name).toBe(a.name);
      });
    });

    describe('API keys', () => {
      it('stores a key and reads it back; unknown keys are undefined', async () => {
        const a = await account();
        const k = newKey(a.id);
        expect(await store.createKey(k)).toBe(true);
        expect(await store.getKey(k.publicId)).toEqual(k);
        expect(await store.getKey('00000000')).toBeUndefined();
      });

      it('allows one active key per account; revoking frees the place, once', async () => {
        const a = await account();
        const first = newKey(a.id, { createdAt: T0 });
        expect(await store.createKey(first)).toBe(true);
        expect(await store.createKey(newKey(a.id))).toBe(false);
        // Another account is not affected.
        const other = await account();
        expect(await store.createKey(newKey(other.id))).toBe(true);

        expect(await store.revokeKey(first.publicId, T0 + 10)).toBe(true);
        expect(await store.revokeKey(first.publicId, T0 + 20)).toBe(false);
        expect((await store.getKey(first.publicId))?.revokedAt).toBe(T0 + 10);
        expect(await store.revokeKey('00000000', T0)).toBe(false);

        const second = newKey(a.id, { createdAt: T0 + 30 });
        expect(await store.createKey(second)).toBe(true);
        expect((await store.listKeys(a.id)).map((k) => k.publicId)).toEqual([first.publicId, second.publicId]);
        const all = (await store.listKeys()).map((k) => k.publicId);
        expect(all).toEqual(expect.arrayContaining([first.publicId, second.publicId]));
      });

      it('admits exactly one of many concurrent key creations for one account', async () => {
        const a = await account();
        const results = await Promise.all(Array.from({ length: 12 }, () => store.createKey(newKey(a.id))));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect((await store.listKeys(a.id)).filter((k) => k.revokedAt === undefined)).toHaveLength(1);
      });

      it('renames keys and counts their use', async () => {
        const a = await account();
        const k = newKey(a.id);
        await store.createKey(k);
        expect(await store.renameKey(k.publicId, 'renamed')).toBe(true);
        expect(await store.renameKey('00000000', 'x')).toBe(false);
        await store.recordKeyUse(k.publicId, 3, T0 + 100);
        await store.recordKeyUse(k.publicId, 2, T0 + 50);
        const read = await store.getKey(k.publicId);
        expect(read).toMatchObject({ name: 'renamed', callCount: 5, lastUsedAt: T0 + 100 });
      });
    });

    describe('Idempotency-Key claims', () => {
      it('claims a key, reports it pending until its job exists, then existing', async () => {
        const a = await account();
        const job = newJob(a.id, { idempotencyKey: 'retry-1' });
        expect(await store.claimIdempotencyKey(a.id, 'retry-1', job.id, T0, 30_000)).toEqual({ kind: 'claimed' });
        expect(await store.claimIdempotencyKey(a.id, 'retry-1', randomUUID(), T0 + 1, 30_000)).toEqual({ kind: 'pending' });
        expect(await store.createJob(job, 10_000)).toEqual({ kind: 'created' });
        expect(await store.claimIdempotencyKey(a.id, 'retry-1', randomUUID(), T0 + 2, 30_000)).toEqual({ kind: 'existing', jobId: job.id });
        // Long after, a bound key still names its job (it lives as long as the job does).
        expect(await store.claimIdempotencyKey(a.id, 'retry-1', randomUUID(), T0 + DAY, 30_000)).toEqual({ kind: 'existing', jobId: job.id });
      });

      it('scopes keys per account', async () => {
        const a = await account();
        const b = await account();
        expect((await store.claimIdempotencyKey(a.id, 'shared', randomUUID(), T0, 30_000)).kind).toBe('claimed');
        expect((await store.claimIdempotencyKey(b.id, 'shared', randomUUID(), T0, 30_000)).kind).toBe('claimed');
      });

      it('takes over a claim that went stale without a job', async () => {
        const a = await account();
        expect((await store.claimIdempotencyKey(a.id, 'stale', randomUUID(), T0, 1_000)).kind).toBe('claimed');
        expect((await store.claimIdempotencyKey(a.id, 'stale', randomUUID(), T0 + 500, 1_000)).kind).toBe('pending');
        const taker = newJob(a.id, { idempotencyKey: 'stale' });
        expect((await store.claimIdempotencyKey(a.id, 'stale', taker.id, T0 + 1_001, 1_000)).kind).toBe('claimed');
        await store.createJob(taker, 10_000);
        expect(await store.claimIdempotencyKey(a.id, 'stale', randomUUID(), T0 + 1_002, 1_000)).toEqual({ kind: 'existing', jobId: taker.id });
      });

      it('releases only an unbound claim, and only its holder', async () => {
        const a = await account();
        const holder = randomUUID();
        await store.claimIdempotencyKey(a.id, 'release', holder, T0, 30_000);
        await store.releaseIdempotencyKey(a.id, 'release', randomUUID());
        expect((await store.claimIdempotencyKey(a.id, 'release', randomUUID(), T0 + 1, 30_000)).kind).toBe('pending');
        await store.releaseIdempotencyKey(a.id, 'release', holder);
        const next = newJob(a.id, { idempotencyKey: 'release' });
        expect((await store.claimIdempotencyKey(a.id, 'release', next.id, T0 + 2, 30_000)).kind).toBe('claimed');
        await store.createJob(next, 10_000);
        await store.releaseIdempotencyKey(a.id, 'release', next.id);
        expect(await store.claimIdempotencyKey(a.id, 'release', randomUUID(), T0 + 3, 30_000)).toEqual({ kind: 'existing', jobId: next.id });
      });

      it('gives exactly one of many concurrent claims of one key', async () => {
        const a = await account();
        const results = await Promise.all(Array.from({ length: 16 }, (_, i) => store.claimIdempotencyKey(a.id, 'race', randomUUID(), T0 + i, 30_000)));
        expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
        expect(results.filter((r) => r.kind === 'pending')).toHaveLength(15);
      });
    });

    describe('jobs and the usage ledger', () => {
      it('creates a job with its reservation and reads every field back', async () => {
        const a = await account();
        const job = newJob(a.id, { reservedCentiminutes: 250, idempotencyKey: 'fields' });
        await store.claimIdempotencyKey(a.id, 'fields', job.id, T0, 30_000);
        expect(await store.createJob(job, 1_000)).toEqual({ kind: 'created' });
        expect(await store.getJob(job.id)).toEqual(job);
        expect(await store.getJob(randomUUID())).toBeUndefined();
        expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 250 });
        expect(await store.getUsage(a.id, '2026-05')).toEqual({ usedCentiminutes: 0 });
      });

      it('refuses a job whose reservation exceeds what remains, saying what is used', async () => {
        const a = await account();
        await store.setUsage(a.id, MONTH, 900);
        expect(await store.createJob(newJob(a.id, { reservedCentiminutes: 100 }), 1_000)).toEqual({ kind: 'created' });
        const refused = newJob(a.id, { reservedCentiminutes: 1 });
        expect(await store.createJob(refused, 1_000)).toEqual({ kind: 'usage_exceeded', usedCentiminutes: 1_000, limitCentiminutes: 1_000 });
        expect(await store.getJob(refused.id)).toBeUndefined();
        expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 1_000 });
      });

      it('never reserves past the limit under concurrent submissions', async () => {
        const a = await account();
        const results = await Promise.all(Array.from({ length: 10 }, () => store.createJob(newJob(a.id, { reservedCentiminutes: 30 }), 100)));
        expect(results.filter((r) => r.kind === 'created')).toHaveLength(3);
        expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 90 });
      });

      it('settles a completed job once: reservation out, charge in, text dropped', async () => {
        const a = await account();
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
        const a = await account();
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
        const a = await account();
        const job = newJob(a.id, { reservedCentiminutes: 40 });
        await store.createJob(job, 10_000);
        const result = { durationSeconds: 20, fileSizeBytes: 1, completedAt: T0, processingTimeMs: 1, chargedCentiminutes: 34 };
        const outcomes = await Promise.all(Array.from({ length: 8 }, () => store.completeJob(job.id, result)));
        expect(outcomes.filter(Boolean)).toHaveLength(1);
        expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 34 });
      });

      it('releases the reservation of a failed job', async () => {
        const a = await account();
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

      it('lists processing jobs only', async () => {
        const a = await account();
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
        const a = await account();
        await store.createJob(newJob(a.id, { reservedCentiminutes: 5 }), 10_000);
        await store.setUsage(a.id, MONTH, 700);
        expect(await store.getUsage(a.id, MONTH)).toEqual({ usedCentiminutes: 705 });
      });

      it('imports legacy jobs as they are', async () => {
        const a = await account();
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
    });

    describe('retention', () => {
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
    });
  });
}
