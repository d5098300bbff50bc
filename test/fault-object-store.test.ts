import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STORE_FAILURE_MESSAGE } from '../src/server/domain/job-messages.js';
import { secondsToCentiminutes } from '../src/server/domain/usage.js';
import { call, decodeMp3, getJob, longText, postJob, sleep, type JsonResponse } from './helpers/http.js';
import { deleteKeys, redisOrSkip, startWorker, testRedisUrl, uniquePrefix, type RunningWorker } from './helpers/redis.js';
import { startS3Server, type S3Server } from './helpers/s3.js';
import { removeDir, startServer, type RunningServer } from './helpers/server.js';
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.js';

/**
 * The object store failing under running servers (built, in dist/): stopped for a minute mid-job,
 * hung (it takes connections and never answers), and a worker killed mid-upload in the distributed
 * mode. Each case has servers and an S3-protocol server (s3rver) of its own, and the three run at
 * once: the long one mostly waits. What a worker killed mid-upload leaves in the bucket (and the sweep
 * removing it) is test/distributed-s3.test.ts's; here it is the job's progress and charge.
 */
const redis = await redisOrSkip('object store faults, distributed case');
const prefixes: string[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
  if (redis) {
    for (const prefix of prefixes) await deleteKeys(redis, prefix);
    redis.destroy();
  }
});

/** Minutes a job of this many seconds of audio is charged, as the API shows them. */
const minutesOf = (seconds: number) => secondsToCentiminutes(seconds) / 100;

const ascending = (values: number[]) => [...values].sort((a, b) => a - b);

/** A key of a fresh account (nothing else charged to it). */
async function freshKey(server: RunningServer): Promise<string> {
  const created = await server.admin(['account', 'create', '--name', 'fault', '--plan', 'ultimate', '--json']);
  expect(created.code, created.stderr).toBe(0);
  const made = await server.admin(['key', 'create', '--account', JSON.parse(created.stdout).id, '--json']);
  expect(made.code, made.stderr).toBe(0);
  return JSON.parse(made.stdout).key;
}

/** Answers and how long each took. */
async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await run();
  return { value, ms: Date.now() - started };
}

/** Polls a job every `everyMs` while `keepGoing` holds, recording the progress it shows; returns the last answer. */
async function pollRecording(
  baseUrl: string,
  key: string,
  id: string,
  progress: number[],
  keepGoing: (res: JsonResponse) => boolean,
  options: { everyMs?: number; maxMs: number; maxAnswerMs?: number },
): Promise<JsonResponse> {
  const deadline = Date.now() + options.maxMs;
  for (;;) {
    const { value: res, ms } = await timed(() => getJob(baseUrl, key, id));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    if (options.maxAnswerMs !== undefined) expect(ms).toBeLessThan(options.maxAnswerMs);
    if (res.body.status === 'processing') progress.push(res.body.progress_percent);
    if (!keepGoing(res)) return res;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${res.body.status} after ${options.maxMs} ms: ${JSON.stringify(res.body)}`);
    await sleep(options.everyMs ?? 500);
  }
}

async function expectDecodableAudio(done: JsonResponse): Promise<void> {
  const audio = await fetch(done.body.audio_url);
  expect(audio.status).toBe(200);
  const bytes = new Uint8Array(await audio.arrayBuffer());
  expect(Number(audio.headers.get('content-length'))).toBe(bytes.byteLength);
  const decoded = await decodeMp3(bytes);
  expect(Math.abs(decoded.seconds - done.body.audio.duration_seconds)).toBeLessThan(0.1);
}

/** The log lines (JSON) of one job. */
const jobLines = (logs: string, id: string) =>
  logs
    .split('\n')
    .filter((l) => l.includes(id))
    .map((l) => JSON.parse(l) as { msg: string });

describe.concurrent('the object store failing under a running server', () => {
  it('stopped for 60 s mid-job (embedded mode, default budget): the job completes once it is back, synthesized once, charged once, its MP3 decodes; progress never falls', async () => {
    const s3: S3Server = await startS3Server();
    let server: RunningServer | undefined;
    try {
      server = await startServer({
        seed: false,
        env: { ...s3.env, AUDIO_STORE: `s3://${s3.bucket}/outage`, RATE_GET_LIMIT: '100000', RATE_POST_LIMIT: '1000', INLINE_WAIT_MS: '200' },
      });
      dirs.push(server.dataDir);
      const key = await freshKey(server);
      const posted = await postJob(server.baseUrl, key, { text: longText(60) });
      expect(posted.status, JSON.stringify(posted.body)).toBe(202);
      const id: string = posted.body.job_id;
      const progress: number[] = [];
      // Stopped at once: synthesis of these four minutes of speech can take well under a second on a
      // fast machine, and progress may not show a step between 0 and the upload.
      const started = await pollRecording(server.baseUrl, key, id, progress, () => false, { maxMs: 60_000 });
      expect(started.body.status, 'the job finished before the store could be stopped').toBe('processing');

      await s3.stop();
      const stoppedAt = Date.now();
      // The minute of the outage: the job stays processing, every poll answers, /readyz says why.
      const during = await pollRecording(server.baseUrl, key, id, progress, () => Date.now() - stoppedAt < 60_000, {
        everyMs: 1_000,
        maxMs: 70_000,
        maxAnswerMs: 2_000,
      });
      expect(during.body.status).toBe('processing');
      const ready = await timed(() => call(`${server!.baseUrl}/readyz`));
      expect(ready.value.status).toBe(503);
      expect(ready.value.body.error.details.checks.audio_storage).toBe('unreachable');
      expect(ready.ms).toBeLessThan(5_000);

      await s3.start();
      const done = await pollRecording(server.baseUrl, key, id, progress, (r) => r.body.status === 'processing', { everyMs: 500, maxMs: 40_000 });
      expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
      expect(progress).toEqual(ascending(progress));
      expect(done.body.billing.monthly_minutes_used).toBe(minutesOf(done.body.audio.duration_seconds));
      await expectDecodableAudio(done);
      // One synthesis: the streaming write stopped once, the audio went into the spool and was saved from it.
      const lines = jobLines(server.logs(), id);
      expect(lines.filter((l) => l.msg.startsWith('audio store unreachable; the audio goes on into the spool'))).toHaveLength(1);
      expect(lines.filter((l) => l.msg === 'audio saved from the spool')).toHaveLength(1);
      expect(lines.filter((l) => l.msg === 'job completed')).toHaveLength(1);
      expect(lines.filter((l) => l.msg === 'job failed')).toHaveLength(0);
      expect(await readdir(join(server.dataDir, 'spool'))).toEqual([]);
      expect(server.logs()).not.toMatch(/S3RVER/);
    } finally {
      await server?.stop();
      await s3.close();
    }
  }, 150_000);

  it('hung (takes connections, never answers): audio URL, /readyz, POST and polls answer within their deadlines; the job fails uncharged once its budget is spent', async () => {
    const s3 = await startS3Server();
    const proxy: TcpProxy = await startTcpProxy({ port: Number(new URL(s3.endpoint).port) });
    let server: RunningServer | undefined;
    try {
      server = await startServer({
        seed: false,
        env: {
          ...s3.env,
          S3_ENDPOINT: proxy.endpoint,
          AUDIO_STORE: `s3://${s3.bucket}/hung`,
          S3_CONNECT_TIMEOUT_MS: '1000',
          S3_REQUEST_TIMEOUT_MS: '1500',
          AUDIO_STORE_OUTAGE_BUDGET_SECONDS: '3',
          INLINE_WAIT_MS: '3000',
          RATE_GET_LIMIT: '100000',
          RATE_POST_LIMIT: '1000',
        },
      });
      dirs.push(server.dataDir);
      const key = await freshKey(server);
      const first = await postJob(server.baseUrl, key, { text: 'Saved before the store hung.' });
      const saved =
        first.status === 200
          ? first
          : await pollRecording(server.baseUrl, key, first.body.job_id, [], (r) => r.body.status === 'processing', { maxMs: 60_000 });
      expect(saved.body.status, JSON.stringify(saved.body)).toBe('completed');
      expect((await call(saved.body.audio_url)).status).toBe(200);

      proxy.hang();
      // The download: 503 with Retry-After once the store's request deadline (1.5 s) has passed.
      const download = await timed(() => call(saved.body.audio_url));
      expect(download.value.status).toBe(503);
      expect(download.value.headers.get('retry-after')).toBe('5');
      expect(download.value.body.error.code).toBe('INTERNAL_ERROR');
      expect(download.ms).toBeLessThan(4_000);
      const ready = await timed(() => call(`${server!.baseUrl}/readyz`));
      expect(ready.value.status).toBe(503);
      expect(ready.ms).toBeLessThan(5_000);

      // A new job: the POST answers at the end of its inline wait (3 s), the polls at once.
      const posted = await timed(() => postJob(server!.baseUrl, key, { text: 'Made while the store hangs.' }));
      expect(posted.value.status, JSON.stringify(posted.value.body)).toBe(202);
      expect(posted.ms).toBeLessThan(6_000);
      const failed = await pollRecording(server.baseUrl, key, posted.value.body.job_id, [], (r) => r.body.status === 'processing', {
        maxMs: 45_000,
        maxAnswerMs: 1_500,
      });
      expect(failed.body).toMatchObject({ status: 'failed', error: { code: 'TTS_PROVIDER_ERROR', message: STORE_FAILURE_MESSAGE } });

      // Back: the service recovers by itself, and the failed job was charged nothing.
      proxy.relay();
      const again = await postJob(server.baseUrl, key, { text: 'Saved once the store answers again.' });
      const third =
        again.status === 200
          ? again
          : await pollRecording(server.baseUrl, key, again.body.job_id, [], (r) => r.body.status === 'processing', { maxMs: 60_000 });
      expect(third.body.status, JSON.stringify(third.body)).toBe('completed');
      expect(third.body.billing.monthly_minutes_used).toBeCloseTo(
        minutesOf(saved.body.audio.duration_seconds) + minutesOf(third.body.audio.duration_seconds),
        5,
      );
      await expectDecodableAudio(third);
      expect(server.logs()).not.toMatch(/S3RVER/);
    } finally {
      await server?.stop();
      await proxy.close();
      await s3.close();
    }
  }, 150_000);

  it.skipIf(!redis)(
    'a worker killed (SIGKILL) mid-upload in the distributed mode: another run completes the job, charged once; progress never falls',
    async () => {
      const s3 = await startS3Server();
      const prefix = uniquePrefix('fault-s3');
      prefixes.push(prefix);
      const shared = {
        ...s3.env,
        AUDIO_STORE: `s3://${s3.bucket}/killed`,
        REDIS_URL: testRedisUrl(),
        REDIS_PREFIX: prefix,
        URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
        QUEUE_LOCK_MS: '3000',
        QUEUE_STALLED_CHECK_MS: '1000',
        SHUTDOWN_GRACE_MS: '1500',
      };
      // The first worker reaches the store over a slow link (16 KB/s), so that its upload is still
      // under way when it is killed however fast this machine synthesizes; the second one directly.
      const slowLink = await startTcpProxy({ port: Number(new URL(s3.endpoint).port) }, { bytesPerSecond: 16_000 });
      const newWorker = async (env: Record<string, string> = {}) => {
        const dir = await mkdtemp(join(tmpdir(), 'agent-tts-fault-worker-'));
        dirs.push(dir);
        const w = await startWorker({ ...shared, ...env, DATA_DIR: dir, JOB_CONCURRENCY: '1' });
        await w.waitForLog('agent-tts worker ready');
        return w;
      };
      let api: RunningServer | undefined;
      let worker: RunningWorker | undefined;
      try {
        api = await startServer({
          backend: 'redis',
          seed: false,
          env: { ...shared, LOCAL_WORKERS: 'false', INLINE_WAIT_MS: '200', RATE_GET_LIMIT: '100000', RATE_POST_LIMIT: '1000' },
        });
        dirs.push(api.dataDir);
        worker = await newWorker({ S3_ENDPOINT: slowLink.endpoint });
        const key = await freshKey(api);
        const posted = await postJob(api.baseUrl, key, { text: longText(60) });
        expect(posted.status, JSON.stringify(posted.body)).toBe(202);
        const id: string = posted.body.job_id;
        const progress: number[] = [];
        const midway = await pollRecording(api.baseUrl, key, id, progress, (r) => r.body.status === 'processing' && r.body.progress_percent < 30, {
          everyMs: 100,
          maxMs: 90_000,
        });
        expect(midway.body.status, 'the job finished before the worker could be killed').toBe('processing');
        await worker.kill();
        worker = await newWorker();
        const done = await pollRecording(api.baseUrl, key, id, progress, (r) => r.body.status === 'processing', { everyMs: 200, maxMs: 120_000 });
        expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
        // The second run started from the beginning; what the job showed held meanwhile.
        expect(progress).toEqual(ascending(progress));
        expect(worker.logs()).toContain(id);
        expect(done.body.billing.monthly_minutes_used).toBe(minutesOf(done.body.audio.duration_seconds));
        await expectDecodableAudio(done);
      } finally {
        await Promise.all([api?.stop(), worker?.stop()]);
        await slowLink.close();
        await s3.close();
      }
    },
    150_000,
  );
});
