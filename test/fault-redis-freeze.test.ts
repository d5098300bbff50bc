import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { call, expectError, getJob, pollUntilDone, postJob, sleep } from './helpers/http.js';
import { eventually, hasRedisServerBinary, inCi, startOwnRedis, startWorker, type OwnRedis, type RunningWorker } from './helpers/redis.js';
import { removeDir, startServer, type RunningServer } from './helpers/server.js';

/**
 * A frozen Redis under a two-instance deployment (real processes: two API instances, one synthesis
 * worker, a redis-server of this file's own stopped with SIGSTOP, never the shared one). A frozen
 * Redis keeps its connections open and acknowledges what is sent to it, which is what a partition
 * that drops packets looks like to a client: without deadlines, requests waited for as long as the
 * freeze lasted and a POST whose client had given up was completed and charged after it.
 */
const canRun = await hasRedisServerBinary();
if (!canRun && inCi()) throw new Error('CI=true and no redis-server binary on PATH: the frozen-Redis fault test must run');

const COMMAND_TIMEOUT_MS = 1_000;
/** Every answer while Redis is frozen: within the command deadline plus a second. */
const ANSWER_WITHIN_MS = COMMAND_TIMEOUT_MS + 1_000;

async function timedCall(url: string, init: RequestInit = {}) {
  const started = performance.now();
  const res = await call(url, { ...init, signal: AbortSignal.timeout(30_000) });
  return { ...res, ms: performance.now() - started };
}

describe.skipIf(!canRun)('a frozen Redis (SIGSTOP) under two API instances and a worker', () => {
  const prefix = `agent-tts-test:freeze-${randomBytes(3).toString('hex')}:`;
  let own: OwnRedis;
  let a: RunningServer;
  let b: RunningServer;
  let worker: RunningWorker;
  let dataDir: string;

  beforeAll(async () => {
    own = await startOwnRedis();
    dataDir = await mkdtemp(join(tmpdir(), 'agent-tts-freeze-'));
    const shared = {
      REDIS_URL: own.url,
      REDIS_PREFIX: prefix,
      DATA_DIR: dataDir,
      URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
      REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
      LOCAL_WORKERS: 'false',
      RATE_POST_LIMIT: '100',
      RATE_GET_LIMIT: '1000',
      INLINE_WAIT_MS: '20000',
    };
    a = await startServer({ backend: 'redis', dataDir, env: shared });
    b = await startServer({ backend: 'redis', dataDir, env: shared, seed: false });
    b.fixtures = a.fixtures;
    worker = await startWorker({ ...shared, WORKER_OPS_PORT: '0' });
  }, 120_000);

  afterAll(async () => {
    own?.thaw();
    await worker?.stop();
    await a?.stop();
    await b?.stop();
    await own?.stop();
    if (dataDir) await removeDir(dataDir);
    if (own) await removeDir(own.dir);
  });

  it('answers every API, dashboard and ops request on both instances within the deadline, creates nothing it refused, and recovers without a restart', async () => {
    const key = a.fixtures.keys.active[0]!;
    // Before the freeze: a completed job (its audio URL and poll are asked again while frozen).
    const text = 'Spoken through a frozen Redis.';
    const before = await postJob(a.baseUrl, key, { text }, { 'idempotency-key': `before-${randomBytes(4).toString('hex')}` });
    expect([200, 202]).toContain(before.status);
    const done = await pollUntilDone(a.baseUrl, key, before.body.job_id, 120_000);
    expect(done.body.status).toBe('completed');
    const audioUrl: string = done.body.audio_url;

    const redis = createClient({ url: own.url });
    redis.on('error', () => undefined);
    await redis.connect();
    const jobKeys = async () => (await redis.keys(`${prefix}job:*`)).length;
    const jobsBefore = await jobKeys();

    const idempotencyKey = `frozen-${randomBytes(4).toString('hex')}`;
    own.freeze();
    const answers: { what: string; status: number; ms: number }[] = [];
    try {
      for (const server of [a, b]) {
        const at = (what: string, res: { status: number; ms: number }) =>
          answers.push({ what: `${what} on ${server === a ? 'A' : 'B'}`, status: res.status, ms: res.ms });
        const posted = await timedCall(`${server.baseUrl}/v1/agent-tts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          body: JSON.stringify({ text }),
        });
        at('POST', posted);
        expectError(posted, 500, 'INTERNAL_ERROR');
        expect(posted.body.error.message).toMatch(/same Idempotency-Key/);
        const polled = await timedCall(`${server.baseUrl}/v1/agent-tts?id=${before.body.job_id}`, { headers: { authorization: `Bearer ${key}` } });
        at('GET job', polled);
        expectError(polled, 500, 'INTERNAL_ERROR');
        at('GET audio', await timedCall(audioUrl.replace(a.baseUrl, server.baseUrl)));
        at(
          'GET /dashboard (a session cookie)',
          await timedCall(`${server.baseUrl}/dashboard`, { headers: { cookie: 'agent_tts_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } }),
        );
        const ready = await timedCall(`${server.baseUrl}/readyz`);
        at('GET /readyz', ready);
        expect(ready.status).toBe(503);
        expect(ready.body.error.details.checks.store).toBe('timeout');
        at('GET /metrics', await timedCall(`${server.baseUrl}/metrics`));
        at('GET /healthz', await timedCall(`${server.baseUrl}/healthz`));
      }
      // The worker's operations listener too.
      for (const path of ['/healthz', '/readyz', '/metrics']) {
        const res = await timedCall(`${worker.opsUrl}${path}`);
        answers.push({ what: `worker ${path}`, status: res.status, ms: res.ms });
      }
    } finally {
      // Frozen past every deadline above before it goes on, as a long partition would be.
      await sleep(500);
      own.thaw();
    }
    for (const answer of answers) expect(answer.ms, `${answer.what} answered ${answer.status} in ${Math.round(answer.ms)} ms`).toBeLessThan(ANSWER_WITHIN_MS);
    expect(answers.find((x) => x.what === 'worker /readyz')?.status).toBe(503);

    // Back by itself: both instances answer again, without a restart.
    for (const server of [a, b]) {
      await eventually(async () => (await call(`${server.baseUrl}/readyz`)).status === 200, 'ready again', 100, 100);
      expect(server.process.exitCode).toBeNull();
    }
    // Whatever Redis read from its sockets after the thaw, the refused POSTs made no job.
    await sleep(500);
    expect(await jobKeys()).toBe(jobsBefore);

    // The retry with the same Idempotency-Key makes one job, on either instance, charged once.
    const retried = await postJob(b.baseUrl, key, { text }, { 'idempotency-key': idempotencyKey });
    expect([200, 202], JSON.stringify(retried.body)).toContain(retried.status);
    const again = await postJob(a.baseUrl, key, { text }, { 'idempotency-key': idempotencyKey });
    expect(again.body.job_id).toBe(retried.body.job_id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const finished = await pollUntilDone(a.baseUrl, key, retried.body.job_id, 120_000);
    expect(finished.body.status).toBe('completed');
    expect(await jobKeys()).toBe(jobsBefore + 1);
    // Charged once: the month's usage is two jobs of this text, the one before the freeze and this one.
    // (Figures in minutes with two decimals: the sum may round one hundredth apart.)
    expect(done.body.billing.monthly_minutes_used).toBeGreaterThan(0);
    expect(Math.abs(finished.body.billing.monthly_minutes_used - 2 * done.body.billing.monthly_minutes_used)).toBeLessThanOrEqual(0.011);
    const polled = await getJob(b.baseUrl, key, before.body.job_id);
    expect(polled.status).toBe(200);
    expect(worker.process.exitCode).toBeNull();
    // Every error the worker logged through the stall says what it was: no error line, and no
    // error field, without a message.
    const workerLines = worker
      .logs()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg?: string; error?: string; err?: { message?: string } });
    for (const line of workerLines.filter((l) => l.level >= 50)) expect(line.msg, JSON.stringify(line)).not.toBe('worker error');
    for (const line of workerLines.filter((l) => l.err !== undefined || l.error !== undefined)) {
      expect(line.err?.message ?? line.error, JSON.stringify(line)).toBeTruthy();
    }
    await redis.close();
  }, 240_000);
});
