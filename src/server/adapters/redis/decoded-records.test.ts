import { afterAll, describe, expect, it } from 'vitest';
import { deleteKeys, redisOrSkip, testRedisUrl, uniquePrefix } from '../../../../test/helpers/redis.js';
import { newAccount, newJob } from '../contracts/fixtures.contract.js';
import { closeRedisClient, createRedisClient, type RedisClient } from './client.js';
import { DecodedRecords, decodedRecordsOf } from './decoded-records.js';
import { RedisStore } from './store.js';

const redis = await redisOrSkip('decoded records');
const prefixes: string[] = [];
const clients: RedisClient[] = [];

const cachingClient = async () => {
  const client = createRedisClient(testRedisUrl(), { name: 'agent-tts-test-decoded', commandTimeoutMs: 5_000, cacheReads: true });
  clients.push(client);
  await client.ping();
  return client;
};
const storeOn = (client: RedisClient) => {
  const prefix = uniquePrefix('decoded');
  prefixes.push(prefix);
  return new RedisStore(client, prefix);
};
/** A store on a caching client of its own, holding one account and one job with `status`. */
const storeWithJob = async (status: 'completed' | 'processing') => {
  const store = storeOn(await cachingClient());
  const account = newAccount();
  await store.createAccount(account);
  const job = newJob(account.id, { status });
  await store.createJob(job, 10_000);
  return { store, account, job };
};
// Redis sends a reader its invalidation before the writer's answer, but two clients in one process can
// see that answer a moment ahead (see store.test.ts); nothing here expires, so what follows the pause
// is fresh only because it was invalidated.
const gap = () => new Promise((resolve) => setTimeout(resolve, 5));

afterAll(async () => {
  for (const client of clients) await closeRedisClient(client);
  if (!redis) return;
  for (const prefix of prefixes) await deleteKeys(redis, prefix);
  redis.destroy();
});

describe.skipIf(!redis)('decoded records of a caching client', () => {
  it('answers a repeated read with the record decoded the first time, and decodes again after an invalidation', async () => {
    const { store, account, job } = await storeWithJob('completed');

    const first = await store.getJob(job.id);
    expect(first?.status).toBe('completed');
    // The same object: no reply was cloned or decoded again.
    expect(await store.getJob(job.id)).toBe(first);
    expect(await store.getAccount(account.id)).toBe(await store.getAccount(account.id));

    await redis!.hSet(store.keys.job(job.id), 'voice', 'bf_emma');
    await gap();
    const after = await store.getJob(job.id);
    expect(after).not.toBe(first);
    expect(after?.voice).toBe('bf_emma');
    expect(first?.voice).toBe(job.voice);
  });

  it('does not keep a running job decoded (its progress changes, its text may be long)', async () => {
    const { store, job } = await storeWithJob('processing');
    const first = await store.getJob(job.id);
    expect(first?.status).toBe('processing');
    expect(await store.getJob(job.id)).not.toBe(first);
    expect(await store.getJob(job.id)).toEqual(first);
  });

  it('keeps nothing read across the connection being dropped, and reads afresh after it is back', async () => {
    const client = await cachingClient();
    const store = storeOn(client);
    const account = newAccount();
    await store.createAccount(account);
    await store.getAccount(account.id);
    const records = decodedRecordsOf(client)!;
    expect(records.size).toBeGreaterThan(0);

    const ready = new Promise<void>((resolve) => client.once('ready', () => resolve()));
    // Redis drops the connection (as on a restart or a network cut): tracking of its reads ends with it.
    await redis!.sendCommand(['CLIENT', 'KILL', 'ID', String(await client.clientId())]);
    await ready;
    expect(records.size).toBe(0);
    // A change made while it was away is read, not served from before.
    await redis!.hSet(store.keys.account(account.id), 'plan', 'ultimate');
    expect((await store.getAccount(account.id))?.plan).toBe('ultimate');
  });

  it('does not keep a value read while an invalidation of it came in', async () => {
    const client = await cachingClient();
    const records = new DecodedRecords(client);
    const value = await records.get('k', async () => {
      // What Redis does when a write lands right behind the read: the invalidation is handled before
      // the reader's continuation runs.
      client.clientSideCache!.invalidate('k');
      return 'stale';
    });
    expect(value).toBe('stale');
    expect(records.size).toBe(0);
    expect(await records.get('k', async () => 'fresh')).toBe('fresh');
    expect(await records.get('k', async () => 'not read')).toBe('fresh');
  });
});
