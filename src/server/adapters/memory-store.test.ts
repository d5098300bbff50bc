import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store.js';
import { describeStoreContract } from './store.contract.js';
import { newAccount, newJob, newKey } from './contracts/fixtures.contract.js';

describeStoreContract('MemoryStore', async () => {
  const store = new MemoryStore();
  return { store, close: () => store.close() };
});

describe('MemoryStore', () => {
  it('keeps two stores apart', async () => {
    const [one, two] = [new MemoryStore(), new MemoryStore()];
    const a = newAccount();
    await one.createAccount(a);
    expect(await two.getAccount(a.id)).toBeUndefined();
    expect(await two.listAccounts()).toEqual([]);
  });

  it('shares no object with its callers: changing what was given or read changes nothing stored', async () => {
    const store = new MemoryStore();
    const a = newAccount();
    await store.createAccount(a);
    a.name = 'changed after creation';
    const read = await store.getAccount(a.id);
    if (!read) throw new Error('the account just created was not found');
    expect(read.name).toBe('contract account');
    read.plan = 'ultimate';
    expect((await store.getAccount(a.id))?.plan).toBe('pro');

    const k = newKey(a.id);
    await store.createKey(k);
    const key = await store.getKey(k.publicId);
    if (!key) throw new Error('the key just created was not found');
    key.callCount = 99;
    expect((await store.getKey(k.publicId))?.callCount).toBe(0);

    const job = newJob(a.id);
    await store.createJob(job, 10_000);
    job.status = 'completed';
    const stored = await store.getJob(job.id);
    const [listed] = await store.listRecentJobs(a.id, 1);
    if (!stored || !listed) throw new Error('the job just created was not found');
    expect(stored.status).toBe('processing');
    stored.progress = 0.9;
    listed.text = '';
    expect(await store.getJob(job.id)).toMatchObject({ progress: 0, text: job.text });
  });

  it('refuses a key for an account it does not have, as the SQLite foreign key does', async () => {
    const store = new MemoryStore();
    await expect(store.createKey(newKey('no-such-account'))).rejects.toThrow(/no account/i);
  });

  it('stops answering pings once closed', async () => {
    const store = new MemoryStore();
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
    await expect(store.ping()).rejects.toThrow(/closed/);
  });
});

describe('MemoryStore limits, as SQLite reads LIMIT', () => {
  it('takes a negative limit for none, and zero for nothing', async () => {
    const store = new MemoryStore();
    const a = newAccount();
    await store.createAccount(a);
    const jobs = [1, 2, 3].map((i) => newJob(a.id, { createdAt: i, deleteAfter: i }));
    for (const job of jobs) await store.createJob(job, 10_000);
    expect(await store.listRecentJobs(a.id, 0)).toEqual([]);
    expect((await store.listRecentJobs(a.id, -1)).map((j) => j.id)).toEqual(jobs.map((j) => j.id).reverse());
    expect(await store.deleteExpiredJobs(10, 0)).toEqual([]);
    expect(await store.deleteExpiredJobs(10, -1)).toEqual(jobs.map((j) => j.id));
  });
});
