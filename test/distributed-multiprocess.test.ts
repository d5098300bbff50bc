import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, decodeMp3, expectError, getJob, longText, pollUntilDone, postJob } from './helpers/http.js';
import {
  deleteKeys,
  eventually,
  hasRedisServerBinary,
  inCi,
  redisOrSkip,
  startOwnRedis,
  startWorker,
  testRedisUrl,
  uniquePrefix,
  type OwnRedis,
  type RunningWorker,
} from './helpers/redis.js';
import { removeDir, startServer, type RunningServer } from './helpers/server.js';
import { freePort } from '@agent-tts/bench/harness/server-process.js';

/**
 * Several processes on loopback over one Redis: two API instances without local workers, two
 * synthesis worker processes, one shared audio directory. Everything that must hold across processes
 * — one window per key, one job per Idempotency-Key, a job surviving its worker — is checked here.
 */
const redis = await redisOrSkip('distributed multi-process');
const canRestartRedis = redis !== undefined && (await hasRedisServerBinary());
if (redis && !canRestartRedis) {
  // .ci/ensure-redis.sh installs Debian's redis-server under CI=true even when a Redis answers.
  if (inCi()) throw new Error('CI=true and no redis-server binary on PATH: the Redis restart test must run (.ci/ensure-redis.sh installs it)');
  console.log('Redis restart test skipped: no redis-server binary on PATH');
}

const publicId = (key: string) => key.split('_')[1];
const month = () => new Date().toISOString().slice(0, 7);

describe.skipIf(!redis)('distributed mode across processes: 2 API instances, 2 workers, 1 Redis', () => {
  const prefix = uniquePrefix('multi');
  let dataDir: string;
  let a: RunningServer;
  let b: RunningServer;
  const workers: RunningWorker[] = [];
  let shared: Record<string, string>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'agent-tts-multi-'));
    shared = {
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: prefix,
      DATA_DIR: dataDir,
      // Every instance signs and checks audio URLs with the same secret.
      URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
      QUEUE_LOCK_MS: '3000',
      QUEUE_STALLED_CHECK_MS: '1000',
      SHUTDOWN_GRACE_MS: '1500',
    };
    // A answers short texts inline (across processes); B hands long texts back as 202 at once.
    // A's wait is generous: the test is about who answers, not how fast a busy machine synthesizes.
    a = await startServer({ backend: 'redis', dataDir, env: { ...shared, LOCAL_WORKERS: 'false', INLINE_WAIT_MS: '45000' } });
    b = await startServer({ backend: 'redis', dataDir, seed: false, env: { ...shared, LOCAL_WORKERS: 'false', INLINE_WAIT_MS: '1000' } });
    for (let i = 0; i < 2; i++) workers.push(await newWorker());
    await Promise.all(workers.map((w) => w.waitForLog('agent-tts worker ready')));
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), ...workers.map((w) => w.stop())]);
    if (dataDir) await removeDir(dataDir);
    await deleteKeys(redis!, prefix);
  });

  /** Each worker with an operations listener of its own (health and job metrics). */
  const newWorker = async () => startWorker({ ...shared, JOB_CONCURRENCY: '1', WORKER_OPS_PORT: String(await freePort()) });
  /** A worker in place of one that went: once it takes jobs (its /readyz answers 503 until then). */
  const replacement = async () => {
    const worker = await newWorker();
    await worker.waitForLog('agent-tts worker ready');
    return worker;
  };
  const instance = (i: number) => (i % 2 === 0 ? a : b);
  const workerRunning = (jobId: string) => workers.find((w) => w.process.exitCode === null && w.logs().includes(`"job_id":"${jobId}","attempt"`));

  async function ledgerOf(key: string) {
    const accountId = await redis!.hGet(`${prefix}key:${publicId(key)}`, 'accountId');
    const usage = await redis!.hGetAll(`${prefix}usage:${accountId}:${month()}`);
    let jobs = 0;
    for await (const keys of redis!.scanIterator({ MATCH: `${prefix}job:*`, COUNT: 500 })) {
      for (const k of keys) if ((await redis!.hGet(k, 'accountId')) === accountId) jobs++;
    }
    return { jobs, settled: Number(usage.settled ?? 0), reserved: Number(usage.reserved ?? 0) };
  }

  it('answers a short text inline on one instance though a worker process ran it, and serves it from the other', async () => {
    const key = a.fixtures.keys.active[0]!;
    const res = await postJob(a.baseUrl, key, { text: 'Spoken by a worker, answered by the API that waited.' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('completed');
    // The API instances run no synthesis; one of the workers did.
    expect(a.logs()).not.toContain('"msg":"job started"');
    expect(workerRunning(res.body.job_id)).toBeDefined();
    const elsewhere = await getJob(b.baseUrl, key, res.body.job_id);
    expect(elsewhere.status).toBe(200);
    const audio = await fetch(elsewhere.body.audio_url);
    expect(audio.status).toBe(200);
    const decoded = await decodeMp3(new Uint8Array(await audio.arrayBuffer()));
    expect(Math.abs(decoded.seconds - res.body.audio.duration_seconds)).toBeLessThan(0.1);
  });

  it('takes a revocation and a subscription change made elsewhere into account on the very next request of every instance', async () => {
    // Each API instance caches what it reads from Redis, invalidated by Redis itself: a change made
    // by any process must reach the next request of both, with no wait and no expiry in between.
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const account = JSON.parse((await a.admin(['account', 'create', '--name', 'cached', '--plan', 'pro', '--json'])).stdout);
    const key = (await a.admin(['key', 'create', '--account', account.id])).stdout.trim();
    const display = key.slice(0, 12);
    for (let round = 0; round < 3; round++) {
      // Read the key and the account on both instances, twice, so the next read would be a cache hit.
      for (const api of [a, b, a, b]) expectError(await getJob(api.baseUrl, key, unknownId), 404, 'NOT_FOUND');
      expect((await a.admin(['account', 'set', account.id, '--subscription', 'inactive'])).code).toBe(0);
      expectError(await getJob(b.baseUrl, key, unknownId), 403, 'INACTIVE_SUBSCRIPTION');
      expectError(await getJob(a.baseUrl, key, unknownId), 403, 'INACTIVE_SUBSCRIPTION');
      expect((await a.admin(['account', 'set', account.id, '--subscription', 'active'])).code).toBe(0);
      expectError(await getJob(b.baseUrl, key, unknownId), 404, 'NOT_FOUND');
    }
    expect((await a.admin(['key', 'revoke', display, '--yes'])).code).toBe(0);
    expectError(await getJob(b.baseUrl, key, unknownId), 401, 'INVALID_KEY');
    expectError(await getJob(a.baseUrl, key, unknownId), 401, 'INVALID_KEY');
  });

  it('reports the usage of a finished job as it stands after the ledger changed elsewhere', async () => {
    const key = a.fixtures.keys.active[5]!;
    const done = await postJob(a.baseUrl, key, { text: 'Read again after the ledger moved.' });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const before = await getJob(b.baseUrl, key, done.body.job_id);
    expect((await getJob(b.baseUrl, key, done.body.job_id)).body.billing).toEqual(before.body.billing);
    // Another process settles a minute on the account's ledger (as a worker finishing a job does).
    const accountId = await redis!.hGet(`${prefix}key:${publicId(key)}`, 'accountId');
    await redis!.hIncrBy(`${prefix}usage:${accountId}:${month()}`, 'settled', 100);
    const after = await getJob(b.baseUrl, key, done.body.job_id);
    expect(after.body.billing.monthly_minutes_used).toBeCloseTo(before.body.billing.monthly_minutes_used + 1, 5);
    expect((await getJob(a.baseUrl, key, done.body.job_id)).body.billing).toEqual(after.body.billing);
  });

  it('admits exactly one of many parallel POSTs with one key spread over both instances; the rest are 429', async () => {
    const key = a.fixtures.keys.active[1]!;
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => postJob(instance(i).baseUrl, key, { text: `Parallel request ${i}.` })));
    const accepted = results.filter((r) => r.status === 200 || r.status === 202);
    const limited = results.filter((r) => r.status === 429);
    expect(accepted, JSON.stringify(results.map((r) => r.status))).toHaveLength(1);
    expect(limited).toHaveLength(11);
    for (const r of limited) {
      expectError(r, 429, 'RATE_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect((await ledgerOf(key)).jobs).toBe(1);
  });

  it('makes one job and one charge of many concurrent requests with one Idempotency-Key on both instances', async () => {
    const key = a.fixtures.keys.active[2]!;
    const headers = { 'Idempotency-Key': `multi-${randomBytes(4).toString('hex')}` };
    const body = { text: 'Asked sixteen times at once, spoken once.' };
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => postJob(instance(i).baseUrl, key, body, headers)));
    for (const r of results) expect([200, 202], JSON.stringify(r.body)).toContain(r.status);
    const ids = new Set(results.map((r) => r.body.job_id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);

    const [jobId] = ids;
    const done = await pollUntilDone(a.baseUrl, key, jobId);
    expect(done.body.status).toBe('completed');
    const ledger = await ledgerOf(key);
    expect(ledger.jobs).toBe(1);
    expect(ledger.reserved).toBe(0);
    expect(ledger.settled).toBe(Number(await redis!.hGet(`${prefix}job:${jobId}`, 'chargedCentiminutes')));
    expect(ledger.settled).toBe(Math.ceil((done.body.audio.duration_seconds / 60) * 100 - 1e-9));
  });

  it('finishes a job on another worker when its worker is killed (-9) mid-job, charged once, audio complete', async () => {
    const key = a.fixtures.keys.active[3]!;
    const res = await postJob(b.baseUrl, key, { text: longText(250) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const jobId = res.body.job_id;
    const victim = await eventually(() => workerRunning(jobId), 'a worker to start the job');
    await eventually(async () => Number(await redis!.hGet(`${prefix}job:${jobId}`, 'progress')) > 0.05, 'synthesis to be under way');
    await victim.kill();
    expect(await redis!.hGet(`${prefix}job:${jobId}`, 'status')).toBe('processing');

    const done = await pollUntilDone(a.baseUrl, key, jobId, 180_000);
    expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
    const survivor = workers.find((w) => w !== victim)!;
    expect(survivor.logs()).toContain(`"job_id":"${jobId}","attempt"`);

    const ledger = await ledgerOf(key);
    expect(ledger.jobs).toBe(1);
    expect(ledger.reserved).toBe(0);
    expect(ledger.settled).toBe(Math.ceil((done.body.audio.duration_seconds / 60) * 100 - 1e-9));
    const audio = await fetch(done.body.audio_url);
    const decoded = await decodeMp3(new Uint8Array(await audio.arrayBuffer()));
    expect(Math.abs(decoded.seconds - done.body.audio.duration_seconds)).toBeLessThan(0.1);
    // The dead worker's partial file was cleared when the job started again.
    workers.splice(workers.indexOf(victim), 1, await replacement());
  }, 180_000);

  it('hands a running job back when its worker is stopped (SIGTERM), and another finishes it', async () => {
    await Promise.all(workers.map((w) => w.waitForLog('agent-tts worker ready')));
    const key = a.fixtures.keys.active[4]!;
    const res = await postJob(b.baseUrl, key, { text: longText(250) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const jobId = res.body.job_id;
    const stopping = await eventually(() => workerRunning(jobId), 'a worker to start the job');
    await eventually(async () => Number(await redis!.hGet(`${prefix}job:${jobId}`, 'progress')) > 0.05, 'synthesis to be under way');
    expect(await stopping.stop()).toBe(0);
    expect(stopping.logs()).toContain('job handed back to the queue (shutdown)');
    expect(stopping.logs()).toContain('worker stopped');

    const done = await pollUntilDone(a.baseUrl, key, jobId, 180_000);
    expect(done.body.status).toBe('completed');
    const ledger = await ledgerOf(key);
    expect(ledger).toMatchObject({ jobs: 1, reserved: 0 });
    workers.splice(workers.indexOf(stopping), 1, await replacement());
  }, 180_000);

  it('reports queue and request metrics on every API instance, job metrics and health on the workers', async () => {
    const text = await (await fetch(`${b.baseUrl}/metrics`)).text();
    expect(text).toMatch(/agent_tts_queue_jobs\{state="active"\} \d+/);
    expect(text).toMatch(/agent_tts_http_requests_total\{method="POST",route="\/v1\/agent-tts",status="429"\} \d+/);
    // API-only instances run no jobs, so they count none.
    expect(text).not.toMatch(/agent_tts_jobs_finished_total\{outcome="completed"\} [1-9]/);

    let completed = 0;
    for (const worker of workers) {
      expect(worker.opsUrl).toBeDefined();
      const health = await call(`${worker.opsUrl}/healthz`);
      expect(health.body).toMatchObject({ success: true, status: 'ok' });
      const ready = await call(`${worker.opsUrl}/readyz`);
      expect(ready.status, JSON.stringify(ready.body)).toBe(200);
      const metrics = await (await fetch(`${worker.opsUrl}/metrics`)).text();
      completed += Number(/agent_tts_jobs_finished_total\{outcome="completed"\} (\d+)/.exec(metrics)?.[1] ?? 0);
    }
    // The worker that took over the handed-back job is still running and counted it.
    expect(completed).toBeGreaterThanOrEqual(1);
  });
});

describe.skipIf(!canRestartRedis)('distributed mode through a Redis crash (its own redis-server, append-only file)', () => {
  let own: OwnRedis;
  let api: RunningServer;
  let worker: RunningWorker | undefined;
  const prefix = 'agent-tts-test:crash:';

  beforeAll(async () => {
    own = await startOwnRedis();
    api = await startServer({
      backend: 'redis',
      env: { REDIS_URL: own.url, REDIS_PREFIX: prefix, LOCAL_WORKERS: 'false', INLINE_WAIT_MS: '500', REDIS_COMMAND_TIMEOUT_MS: '1000' },
    });
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    await own?.stop();
    if (api) await removeDir(api.dataDir);
    if (own) await removeDir(own.dir);
  });

  it('answers INTERNAL_ERROR quickly while Redis is down, recovers by itself, and loses no persisted job', async () => {
    const key = api.fixtures.keys.active[0]!;
    // No worker yet: the job waits in the queue.
    const submitted = await postJob(api.baseUrl, key, { text: 'Kept safe through a Redis crash.' });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    const jobId = submitted.body.job_id;

    await own.kill();
    // Every answer comes with the API's error body, well within the fetch bound (no hang).
    const bounded = { signal: AbortSignal.timeout(15_000) };
    const polled = await call(`${api.baseUrl}/v1/agent-tts?id=${jobId}`, { headers: { authorization: `Bearer ${key}` }, ...bounded });
    expectError(polled, 500, 'INTERNAL_ERROR');
    const posted = await call(`${api.baseUrl}/v1/agent-tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.fixtures.keys.active[1]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Not while Redis is down.' }),
      signal: AbortSignal.timeout(15_000),
    });
    expectError(posted, 500, 'INTERNAL_ERROR');
    const ready = await call(`${api.baseUrl}/readyz`, { signal: AbortSignal.timeout(15_000) });
    expectError(ready, 503, 'INTERNAL_ERROR');
    expect(ready.body.error.details.checks.store).toMatch(/^unreachable/);
    expect((await call(`${api.baseUrl}/healthz`, bounded)).status).toBe(200);
    expect(api.process.exitCode).toBeNull();

    // A worker started during the outage waits for Redis instead of exiting.
    worker = await startWorker({ REDIS_URL: own.url, REDIS_PREFIX: prefix, DATA_DIR: api.dataDir });

    await own.start();
    const back = await eventually(async () => {
      const res = await getJob(api.baseUrl, key, jobId);
      return res.status === 200 ? res : undefined;
    }, 'the API to answer again');
    expect(['processing', 'completed']).toContain(back.body.status);
    const done = await pollUntilDone(api.baseUrl, key, jobId, 120_000);
    expect(done.body.status).toBe('completed');
    expect(worker.process.exitCode).toBeNull();
    expect(api.process.exitCode).toBeNull();
    expect(api.logs()).toContain('redis connection restored');
    // Ready again by itself: each of its checks (store, queue, audio) reconnects on its own schedule, so
    // the first /readyz after the job may still see one of them coming back.
    await eventually(async () => (await call(`${api.baseUrl}/readyz`)).status === 200, '/readyz to answer 200 again');
  });
});
