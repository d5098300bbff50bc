import { afterAll, describe, expect, it } from 'vitest';
import { deleteKeys, redisOrSkip, testRedisUrl, uniquePrefix } from '../../../../test/helpers/redis.js';
import { closeRedisClient, createRedisClient, type RedisClient } from './client.js';
import { RedisStore } from './store.js';
import { describeStoreContract } from '../store.contract.js';
import { newAccount, newJob, newKey } from '../contracts/fixtures.contract.js';

const redis = await redisOrSkip('RedisStore contract');
const prefixes: string[] = [];

/** Clients as an API process has them: reads cached in the process, invalidated by Redis. */
const caching: RedisClient[] = [];
const cachingClient = async () => {
  const client = createRedisClient(testRedisUrl(), { name: 'agent-tts-test-cache', commandTimeoutMs: 5_000, cacheReads: true });
  caching.push(client);
  await client.ping();
  return client;
};

afterAll(async () => {
  if (!redis) return;
  for (const client of caching) await closeRedisClient(client);
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

describeStoreContract(
  'RedisStore with cached reads',
  async () => {
    const prefix = uniquePrefix('store-cached');
    prefixes.push(prefix);
    return { store: new RedisStore(await cachingClient(), prefix), close: () => deleteKeys(redis!, prefix).then(() => undefined) };
  },
  { skip: !redis },
);

describe.skipIf(!redis)('RedisStore with cached reads on two instances', () => {
  // Redis queues the invalidation for the reader before the writer's answer, but within one of its
  // event-loop turns it may put the writer's answer on the wire first, microseconds ahead. Two clients
  // in one process can see that gap; a request that follows a write made by another process cannot
  // (test/distributed-multiprocess.test.ts checks that). Nothing here expires (no TTL), so a record
  // read after this pause is fresh only because it was invalidated.
  const gap = () => new Promise((resolve) => setTimeout(resolve, 5));

  it('reads a change made through another connection on the next read, every time', async () => {
    const prefix = uniquePrefix('store-invalidate');
    prefixes.push(prefix);
    const [one, two] = [new RedisStore(await cachingClient(), prefix), new RedisStore(await cachingClient(), prefix)];
    const account = newAccount();
    await one.createAccount(account);
    const key = newKey(account.id);
    await one.createKey(key);
    for (let i = 0; i < 20; i++) {
      const subscription = i % 2 === 0 ? 'inactive' : 'active';
      // A read on each side, twice, so that the next one would come from the cache.
      for (const store of [one, two, one, two]) expect((await store.getAccount(account.id))?.plan).toBe('pro');
      expect(await one.updateAccount(account.id, { subscription })).toBe(true);
      await gap();
      expect((await two.getAccount(account.id))?.subscription).toBe(subscription);
    }
    expect((await two.getKey(key.publicId))?.revokedAt).toBeUndefined();
    expect((await two.getKey(key.publicId))?.revokedAt).toBeUndefined();
    expect(await one.revokeKey(key.publicId, 1234)).toBe(true);
    await gap();
    expect((await two.getKey(key.publicId))?.revokedAt).toBe(1234);
    // A write with a plain connection (another process, the admin CLI) is seen too.
    await redis!.hSet(one.keys.account(account.id), 'subscription', 'inactive');
    await gap();
    expect((await two.getAccount(account.id))?.subscription).toBe('inactive');
  });
});

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
