import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, hasRedisServerBinary, inCi, startOwnRedis, type OwnRedis } from '../../../../test/helpers/redis.js';
import { StoreUnavailableError } from '../../ports/index.js';
import { newAccount, newJob, newKey } from '../contracts/fixtures.contract.js';
import { closeRedisClient, createRedisClient, fenceAt, type RedisClient } from './client.js';
import { RedisRateLimiter } from './rate-limiter.js';
import { RedisStore } from './store.js';

/**
 * Deadlines against a Redis that stops answering without closing its connections: a redis-server of
 * this file's own, frozen with SIGSTOP (never the shared one), and a listener that accepts connections
 * and never says a word. node-redis drops a command's own timeout once it is written; these tests fail
 * without the deadline of `withinDeadline` (the operation waits until the Redis wakes up).
 */
const canRun = await hasRedisServerBinary();
if (!canRun && inCi()) throw new Error('CI=true and no redis-server binary on PATH: the Redis deadline tests must run');

const DEADLINE_MS = 400;
/** What an answer may take beyond the deadline: timers, a busy machine. */
const MARGIN_MS = 600;

async function timed<T>(work: Promise<T>): Promise<{ ms: number; error?: unknown; value?: T }> {
  const started = performance.now();
  try {
    const value = await work;
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

describe.skipIf(!canRun)('Redis command deadlines: a frozen Redis', () => {
  let redis: OwnRedis;
  let client: RedisClient;
  let store: RedisStore;
  const prefix = 'agent-tts-deadline:';

  beforeAll(async () => {
    redis = await startOwnRedis();
    client = createRedisClient(redis.url, { name: 'agent-tts-test-deadline', commandTimeoutMs: DEADLINE_MS, cacheReads: true });
    store = new RedisStore(client, prefix);
    await store.ping();
  });

  afterAll(async () => {
    redis?.thaw();
    if (client) await closeRedisClient(client).catch(() => undefined);
    await redis?.stop();
  });

  it('gives up a read, a write and a rate-limit check at the deadline, then works again after the thaw without a restart', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const limiter = new RedisRateLimiter(client, prefix);
    redis.freeze();
    try {
      // One after another: each meets the frozen Redis on a new connection, after the last was torn down.
      for (const work of [
        (): Promise<unknown> => store.getJob('no-such-job'),
        () => store.updateAccount(account.id, { name: 'renamed while frozen' }),
        () => limiter.check('post:frozen', 1, 60_000, true),
        () => store.ping(),
      ]) {
        const outcome = await timed(work());
        expect(outcome.error).toBeInstanceOf(StoreUnavailableError);
        expect((outcome.error as StoreUnavailableError).timedOut).toBe(true);
        // (The clock starts after the operation was begun: a little under the deadline is the same deadline.)
        expect(outcome.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
        expect(outcome.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
      }
      // Many at once end together, each within its own deadline.
      const all = await timed(Promise.allSettled(Array.from({ length: 20 }, (_, i) => store.getJob(`job-${i}`))));
      expect(all.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
      expect((all.value ?? []).every((r) => r.status === 'rejected')).toBe(true);
    } finally {
      redis.thaw();
    }
    await eventually(
      () =>
        store.ping().then(
          () => true,
          () => false,
        ),
      'the store answers again',
      100,
      100,
    );
    expect((await store.getAccount(account.id))?.id).toBe(account.id);
    await expect(store.createKey(newKey(account.id))).resolves.toBe(true);
  });

  it('never creates a job that Redis only gets to after its caller gave up (the fence)', async () => {
    await eventually(
      () =>
        store.ping().then(
          () => true,
          () => false,
        ),
      'the store answers',
      100,
      100,
    );
    const account = newAccount();
    await store.createAccount(account);
    // Redis knows the script already (else EVALSHA's NOSCRIPT answer would be what the freeze holds up).
    expect((await store.createJob(newJob(account.id), 100_000)).kind).toBe('created');
    const usedBefore = (await store.getUsage(account.id, newJob(account.id).usageMonth)).usedCentiminutes;
    const job = newJob(account.id, { idempotencyKey: 'fenced-1' });
    // Claimed before the freeze, as a submission does; the creation is then written into the frozen Redis.
    await store.claimIdempotencyKey(account.id, 'fenced-1', job.id, Date.now(), 30_000);
    redis.freeze();
    let outcome;
    try {
      outcome = await timed(store.createJob(job, 100_000));
      // Frozen well past the fence, as the answer the client got said.
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      redis.thaw();
    }
    expect(outcome.error).toBeInstanceOf(StoreUnavailableError);
    expect(outcome.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
    await eventually(
      () =>
        store.ping().then(
          () => true,
          () => false,
        ),
      'the store answers again',
      100,
      100,
    );
    // Whatever the frozen Redis read from its socket after the thaw, it did not make the job or reserve minutes.
    expect(await store.getJob(job.id)).toBeUndefined();
    expect((await store.getUsage(account.id, job.usageMonth)).usedCentiminutes).toBe(usedBefore);
    // A retry with the same Idempotency-Key gets a new job once the unbound claim is stale (here: at once).
    const retry = newJob(account.id, { idempotencyKey: 'fenced-1' });
    expect((await store.claimIdempotencyKey(account.id, 'fenced-1', retry.id, Date.now(), 0)).kind).toBe('claimed');
    expect((await store.createJob(retry, 100_000)).kind).toBe('created');
    expect((await store.getJob(retry.id))?.status).toBe('processing');
  });

  it('never claims an Idempotency-Key that Redis only gets to after its caller gave up', async () => {
    await eventually(
      () =>
        store.ping().then(
          () => true,
          () => false,
        ),
      'the store answers',
      100,
      100,
    );
    const account = newAccount();
    await store.createAccount(account);
    await store.claimIdempotencyKey(account.id, 'warm-up', 'job-0', Date.now(), 30_000);
    redis.freeze();
    let outcome;
    try {
      outcome = await timed(store.claimIdempotencyKey(account.id, 'fenced-2', 'job-1', Date.now(), 30_000));
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      redis.thaw();
    }
    expect(outcome.error).toBeInstanceOf(StoreUnavailableError);
    await eventually(
      () =>
        store.ping().then(
          () => true,
          () => false,
        ),
      'the store answers again',
      100,
      100,
    );
    // Not left pending for 30 s (the stale-claim takeover): the retry claims the key at once.
    expect((await store.claimIdempotencyKey(account.id, 'fenced-2', 'job-2', Date.now(), 30_000)).kind).toBe('claimed');
  });

  it("a fence lies one deadline ahead on Redis's clock", async () => {
    const [seconds, micros] = (await client.sendCommand(['TIME'])) as [string, string];
    const redisNow = Number(seconds) * 1000 + Number(micros) / 1000;
    const fence = fenceAt(client);
    expect(fence - redisNow).toBeGreaterThan(DEADLINE_MS - 50);
    expect(fence - redisNow).toBeLessThan(DEADLINE_MS + 50);
  });
});

describe.skipIf(!canRun)('Redis command deadlines: a Redis that is gone', () => {
  it('is reported unreachable, not slow (readiness tells the two apart)', async () => {
    const redis = await startOwnRedis();
    const client = createRedisClient(redis.url, { name: 'agent-tts-test-gone', commandTimeoutMs: DEADLINE_MS });
    const store = new RedisStore(client, 'agent-tts-gone:');
    try {
      await store.ping();
      await redis.kill();
      // The reconnections are refused from now on; the first command may still meet the dying socket.
      await eventually(
        () =>
          store.ping().then(
            () => false,
            (error: unknown) => error instanceof StoreUnavailableError && !error.timedOut,
          ),
        'a refused Redis reported as unreachable',
        20,
        50,
      );
      const outcome = await timed(store.getAccount('a'));
      expect(outcome.error).toBeInstanceOf(StoreUnavailableError);
      expect((outcome.error as StoreUnavailableError).timedOut).toBe(false);
      expect(outcome.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
    } finally {
      client.destroy();
      await redis.stop();
    }
  });
});

describe('Redis command deadlines: a listener that never answers', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  let connections = 0;

  beforeAll(async () => {
    silent = createServer((socket) => {
      connections++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('answers every operation within its deadline and keeps trying new connections', async () => {
    const port = (silent.address() as { port: number }).port;
    const client = createRedisClient(`redis://127.0.0.1:${port}`, { name: 'agent-tts-test-silent', commandTimeoutMs: DEADLINE_MS });
    const store = new RedisStore(client, 'agent-tts-silent:');
    try {
      for (let i = 0; i < 3; i++) {
        const outcome = await timed(store.getAccount('a'));
        expect(outcome.error).toBeInstanceOf(StoreUnavailableError);
        expect(outcome.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
      }
      // The connection that hung was torn down and replaced (its handshake never finished either).
      expect(connections).toBeGreaterThan(1);
    } finally {
      client.destroy();
    }
  });
});
