import { afterAll, describe, expect, it } from 'vitest';
import { deleteKeys, redisOrSkip, uniquePrefix } from '../../../../test/helpers/redis.js';
import { RedisStore } from './store.js';
import { describeStoreContract, newAccount, newJob } from '../store.contract.js';

const redis = await redisOrSkip('RedisStore contract');
const prefixes: string[] = [];

afterAll(async () => {
  if (!redis) return;
  for (const prefix of prefixes) await deleteKeys(redis, prefix);
  redis.destroy();
});

describeStoreContract(
  'RedisStore',
  async () => {
    const prefix = uniquePrefix('store');
    prefixes.push(prefix);
    return { store: new RedisStore(redis!, prefix), close: () => deleteKeys(redis!, prefix).then(() => undefined) };
  },
  { skip: !redis },
);

describe.skipIf(!redis)('RedisStore in Redis', () => {
  it('gives job records and their Idempotency-Key binding a TTL at the end of their retention', async () => {
    const prefix = uniquePrefix('store-ttl');
    prefixes.push(prefix);
    const store = new RedisStore(redis!, prefix);
    const account = newAccount();
    await store.createAccount(account);
    const now = Date.now();
    const job = newJob(account.id, { createdAt: now, deleteAfter: now + 86_400_000, idempotencyKey: 'ttl' });
    await store.claimIdempotencyKey(account.id, 'ttl', job.id, now, 30_000);
    await store.createJob(job, 10_000);
    const jobTtl = await redis!.pTTL(store.keys.job(job.id));
    const claimTtl = await redis!.pTTL(store.keys.idempotency(account.id, 'ttl'));
    // Retention (one day) plus the sweep's grace (one hour), give or take the time this test takes.
    expect(jobTtl).toBeGreaterThan(86_400_000);
    expect(jobTtl).toBeLessThanOrEqual(86_400_000 + 3_600_000);
    // Both expire at the same moment (read one after the other, so a few milliseconds apart).
    expect(Math.abs(claimTtl - jobTtl)).toBeLessThan(1_000);
    expect(await redis!.zScore(store.keys.jobExpiry(), job.id)).toBe(job.deleteAfter);
  });

  it("drops a deleted job from its account's index of recent jobs", async () => {
    const prefix = uniquePrefix('store-recent');
    prefixes.push(prefix);
    const store = new RedisStore(redis!, prefix);
    const account = newAccount();
    await store.createAccount(account);
    const now = Date.now();
    const kept = newJob(account.id, { createdAt: now, deleteAfter: now + 86_400_000 });
    const gone = newJob(account.id, { createdAt: now, deleteAfter: now - 1 });
    await store.createJob(kept, 10_000);
    await store.createJob(gone, 10_000);
    expect(await redis!.zCard(store.keys.accountJobs(account.id))).toBe(2);
    expect(await store.deleteExpiredJobs(now, 10)).toEqual([gone.id]);
    expect(await redis!.zRange(store.keys.accountJobs(account.id), 0, -1)).toEqual([kept.id]);
  });

  it('keeps every key under its prefix', async () => {
    const prefix = uniquePrefix('store-prefix');
    prefixes.push(prefix);
    const store = new RedisStore(redis!, prefix);
    const account = newAccount();
    await store.createAccount(account);
    await store.createJob(newJob(account.id), 10_000);
    const keys = await redis!.keys(`${prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(await deleteKeys(redis!, prefix)).toBe(keys.length);
  });
});
