import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { IdempotencyRepository, JobRepository } from '../../ports/index.js';
import { type AccountOwner, DAY, newJob, type OpenStore, openedStore, storedAccount, T0 } from './fixtures.contract.js';

/**
 * What an IdempotencyRepository owes: a key is claimed once, pending until its job exists, then bound
 * to that job for as long as the job lives; a stale claim can be taken over, an unbound one released by
 * its holder; keys are per account. `createJob` binds a claimed key to its job.
 */
export function describeIdempotencyRepositoryContract(open: OpenStore<IdempotencyRepository & Pick<JobRepository, 'createJob'> & AccountOwner>): void {
  describe('Idempotency-Key claims', () => {
    const current = openedStore(open);

    it('claims a key, reports it pending until its job exists, then existing', async () => {
      const store = current();
      const a = await storedAccount(store);
      const job = newJob(a.id, { idempotencyKey: 'retry-1' });
      expect(await store.claimIdempotencyKey(a.id, 'retry-1', job.id, T0, 30_000)).toEqual({ kind: 'claimed' });
      expect(await store.claimIdempotencyKey(a.id, 'retry-1', randomUUID(), T0 + 1, 30_000)).toEqual({ kind: 'pending' });
      expect(await store.createJob(job, 10_000)).toEqual({ kind: 'created' });
      expect(await store.claimIdempotencyKey(a.id, 'retry-1', randomUUID(), T0 + 2, 30_000)).toEqual({ kind: 'existing', jobId: job.id });
      // Long after, a bound key still names its job (it lives as long as the job does).
      expect(await store.claimIdempotencyKey(a.id, 'retry-1', randomUUID(), T0 + DAY, 30_000)).toEqual({ kind: 'existing', jobId: job.id });
    });

    it('scopes keys per account', async () => {
      const store = current();
      const a = await storedAccount(store);
      const b = await storedAccount(store);
      expect((await store.claimIdempotencyKey(a.id, 'shared', randomUUID(), T0, 30_000)).kind).toBe('claimed');
      expect((await store.claimIdempotencyKey(b.id, 'shared', randomUUID(), T0, 30_000)).kind).toBe('claimed');
    });

    it('takes over a claim that went stale without a job', async () => {
      const store = current();
      const a = await storedAccount(store);
      expect((await store.claimIdempotencyKey(a.id, 'stale', randomUUID(), T0, 1_000)).kind).toBe('claimed');
      expect((await store.claimIdempotencyKey(a.id, 'stale', randomUUID(), T0 + 500, 1_000)).kind).toBe('pending');
      const taker = newJob(a.id, { idempotencyKey: 'stale' });
      expect((await store.claimIdempotencyKey(a.id, 'stale', taker.id, T0 + 1_001, 1_000)).kind).toBe('claimed');
      await store.createJob(taker, 10_000);
      expect(await store.claimIdempotencyKey(a.id, 'stale', randomUUID(), T0 + 1_002, 1_000)).toEqual({ kind: 'existing', jobId: taker.id });
    });

    it('releases only an unbound claim, and only its holder', async () => {
      const store = current();
      const a = await storedAccount(store);
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
      const store = current();
      const a = await storedAccount(store);
      const results = await Promise.all(Array.from({ length: 16 }, (_, i) => store.claimIdempotencyKey(a.id, 'race', randomUUID(), T0 + i, 30_000)));
      expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r.kind === 'pending')).toHaveLength(15);
    });
  });
}
