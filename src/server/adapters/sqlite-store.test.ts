import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from './sqlite-driver.js';
import { SqliteStore } from './sqlite-store.js';
import { describeStoreContract } from './store.contract.js';
import { newAccount, newJob, newKey } from './contracts/fixtures.contract.js';

describeStoreContract('SqliteStore', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-tts-store-'));
  const store = new SqliteStore(join(dir, 'store.sqlite'));
  return {
    store,
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

/**
 * Another connection's writes are looked for once per turn of the event loop (a request is read from
 * its socket in a turn of its own): the next request, not the next read in the same turn, sees them.
 */
const nextRequest = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SqliteStore read cache', () => {
  let dir: string;
  let file: string;
  let api: SqliteStore;
  let admin: SqliteStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-store-cache-'));
    file = join(dir, 'store.sqlite');
    api = new SqliteStore(file);
    admin = new SqliteStore(file);
  });
  afterEach(async () => {
    await api.close();
    await admin.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sees a revocation and a subscription change made through another connection on the next read', async () => {
    const a = newAccount();
    const k = newKey(a.id);
    await admin.createAccount(a);
    await admin.createKey(k);
    // Fill the cache, and read again so the second read is a hit.
    expect((await api.getKey(k.publicId))?.revokedAt).toBeUndefined();
    expect((await api.getKey(k.publicId))?.revokedAt).toBeUndefined();
    expect((await api.getAccount(a.id))?.subscription).toBe('active');

    expect(await admin.revokeKey(k.publicId, 1234)).toBe(true);
    await nextRequest();
    expect((await api.getKey(k.publicId))?.revokedAt).toBe(1234);

    expect(await admin.updateAccount(a.id, { subscription: 'inactive' })).toBe(true);
    await nextRequest();
    expect((await api.getAccount(a.id))?.subscription).toBe('inactive');
  });

  it('sees its own writes on the next read, absent records included', async () => {
    const a = newAccount();
    expect(await api.getAccount(a.id)).toBeUndefined();
    await api.createAccount(a);
    expect((await api.getAccount(a.id))?.subscription).toBe('active');
    expect(await api.updateAccount(a.id, { name: 'renamed' })).toBe(true);
    expect((await api.getAccount(a.id))?.name).toBe('renamed');

    const k = newKey(a.id);
    expect(await api.getKey(k.publicId)).toBeUndefined();
    await api.createKey(k);
    expect((await api.getKey(k.publicId))?.callCount).toBe(0);
    await api.recordKeyUse(k.publicId, 3, 99);
    expect((await api.getKey(k.publicId))?.callCount).toBe(3);
    await api.revokeKey(k.publicId, 5);
    expect((await api.getKey(k.publicId))?.revokedAt).toBe(5);
  });

  it('serves a finished job and the usage as they stand after a completion or a deletion', async () => {
    const a = newAccount();
    await api.createAccount(a);
    const job = newJob(a.id);
    expect(await api.createJob(job, 100_000)).toEqual({ kind: 'created' });
    expect((await api.getUsage(a.id, job.usageMonth)).usedCentiminutes).toBe(job.reservedCentiminutes);
    expect((await api.getJob(job.id))?.status).toBe('processing');
    expect(await admin.completeJob(job.id, { durationSeconds: 2, fileSizeBytes: 10, completedAt: 1, processingTimeMs: 5, chargedCentiminutes: 7 })).toBe(true);
    await nextRequest();
    expect((await api.getJob(job.id))?.status).toBe('completed');
    expect((await api.getJob(job.id))?.status).toBe('completed');
    expect((await api.getUsage(a.id, job.usageMonth)).usedCentiminutes).toBe(7);
    await admin.setUsage(a.id, job.usageMonth, 42);
    await nextRequest();
    expect((await api.getUsage(a.id, job.usageMonth)).usedCentiminutes).toBe(42);
    expect(await admin.deleteExpiredJobs(job.deleteAfter, 10)).toEqual([job.id]);
    await nextRequest();
    expect(await api.getJob(job.id)).toBeUndefined();
  });
});

describe('SqliteStore on a database made before word timings', () => {
  /** The jobs table as releases before word timings made it: no `timestamps` column. */
  const JOBS_BEFORE_TIMINGS = `CREATE TABLE jobs (
    id TEXT PRIMARY KEY, account_id TEXT NOT NULL, key_public_id TEXT NOT NULL, status TEXT NOT NULL, text TEXT NOT NULL,
    voice TEXT NOT NULL, language TEXT NOT NULL, speed REAL NOT NULL, created_at INTEGER NOT NULL, delete_after INTEGER NOT NULL,
    reserved_cm INTEGER NOT NULL, charged_cm INTEGER, usage_month TEXT NOT NULL, progress REAL NOT NULL DEFAULT 0,
    completed_at INTEGER, processing_time_ms INTEGER, duration_seconds REAL, file_size_bytes INTEGER, error_code TEXT,
    error_message TEXT, idempotency_key TEXT, legacy_expires_at INTEGER)`;

  it('adds the column on open: old jobs read as before (no timings), new ones keep theirs, and a second open changes nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-tts-store-old-'));
    const file = join(dir, 'store.sqlite');
    try {
      const old = openSqlite(file, { busyTimeoutMs: 1000 });
      old.exec(JOBS_BEFORE_TIMINGS);
      old
        .prepare('INSERT INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(
          '0b5f4c1e-1d2a-4b3c-8d4e-5f6a7b8c9d0e',
          'acct',
          'abcdef01',
          'completed',
          '',
          'af_heart',
          'en-US',
          1.2,
          1,
          2,
          30,
          30,
          '2026-04',
          1,
          3,
          2,
          4.5,
          900,
          null,
          null,
          null,
          null,
        );
      old.close();

      let store = new SqliteStore(file);
      const before = await store.getJob('0b5f4c1e-1d2a-4b3c-8d4e-5f6a7b8c9d0e');
      expect(before).toMatchObject({ status: 'completed', durationSeconds: 4.5, fileSizeBytes: 900 });
      expect(before?.timestamps).toBeUndefined();
      const account = newAccount();
      await store.createAccount(account);
      const timed = newJob(account.id, { timestamps: 'word' });
      expect(await store.createJob(timed, 10_000)).toEqual({ kind: 'created' });
      expect(await store.getJob(timed.id)).toEqual(timed);
      await store.close();

      store = new SqliteStore(file);
      expect((await store.getJob(timed.id))?.timestamps).toBe('word');
      await store.close();
      const check = openSqlite(file, { busyTimeoutMs: 1000 });
      const columns = (check.prepare('PRAGMA table_info(jobs)').all() as { name: string }[]).map((c) => c.name);
      check.close();
      expect(columns.filter((c) => c === 'timestamps')).toHaveLength(1);
      expect(columns.at(-1)).toBe('timestamps');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
