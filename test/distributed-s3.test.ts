import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, decodeMp3, getJob, longText, pollUntilDone, postJob } from './helpers/http.js';
import { deleteKeys, eventually, redisOrSkip, startWorker, testRedisUrl, uniquePrefix, type RunningWorker } from './helpers/redis.js';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from './helpers/s3.js';
import { removeDir, startServer, type RunningServer } from './helpers/server.js';
import { freePort } from '@agent-tts/bench/harness/server-process.js';

/**
 * Distributed mode without a shared disk: two API instances and a worker, each with its own empty
 * DATA_DIR, over one Redis and one S3-protocol server (s3rver, started here on loopback; a server that
 * cannot start fails the suite). Audio reaches the other instance only through the bucket.
 */
const redis = await redisOrSkip('distributed over S3');

describe.skipIf(!redis)('distributed mode with audio in S3: 2 API instances, 1 worker, 3 data directories', () => {
  const prefix = uniquePrefix('s3');
  const audioPrefix = `audio-${randomBytes(4).toString('hex')}`;
  const dataDirs: string[] = [];
  let s3: S3Server;
  let client: S3Client;
  let a: RunningServer;
  let b: RunningServer;
  let worker: RunningWorker;
  let shared: Record<string, string>;

  const newDataDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-tts-s3-node-'));
    dataDirs.push(dir);
    return dir;
  };
  const newWorker = async () =>
    startWorker({ ...shared, DATA_DIR: await newDataDir(), JOB_CONCURRENCY: '1', SYNTH_THREADS: '2', WORKER_OPS_PORT: String(await freePort()) });
  /** Keys in the bucket under this suite's prefix. */
  const keysInBucket = async () => {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${audioPrefix}/` }));
    return (listed.Contents ?? []).map((o) => o.Key!.slice(audioPrefix.length + 1));
  };

  beforeAll(async () => {
    s3 = await startS3Server();
    client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: S3RVER_CREDENTIALS.AWS_ACCESS_KEY_ID, secretAccessKey: S3RVER_CREDENTIALS.AWS_SECRET_ACCESS_KEY },
    });
    shared = {
      ...s3.env,
      AUDIO_STORE: `s3://${s3.bucket}/${audioPrefix}`,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: prefix,
      URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
      QUEUE_LOCK_MS: '3000',
      QUEUE_STALLED_CHECK_MS: '1000',
      SHUTDOWN_GRACE_MS: '1500',
    };
    a = await startServer({ backend: 'redis', dataDir: await newDataDir(), env: { ...shared, LOCAL_WORKERS: 'false', INLINE_WAIT_MS: '500' } });
    b = await startServer({ backend: 'redis', dataDir: await newDataDir(), seed: false, env: { ...shared, LOCAL_WORKERS: 'false', INLINE_WAIT_MS: '500' } });
    worker = await newWorker();
    await worker.waitForLog('agent-tts worker ready');
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), worker?.stop()]);
    for (const dir of dataDirs) await removeDir(dir);
    if (redis) await deleteKeys(redis, prefix);
    client?.destroy();
    await s3?.close();
  });

  it('runs a 150,000-character job submitted on one instance and serves it, whole and by range, from the other', async () => {
    const key = a.fixtures.keys.active[0]!;
    const text = longText(1800).slice(0, 150_000);
    expect(text.length).toBe(150_000);
    const res = await postJob(a.baseUrl, key, { text });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = await pollUntilDone(b.baseUrl, key, res.body.job_id, 280_000);
    expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
    // The bucket holds this job's audio (and the mark of its run's live audio, whose segments are gone)
    // and the seeded job's behind the expired URL of the fixtures.
    const seeded = a.fixtures.expired_audio!.job_id;
    expect((await keysInBucket()).sort()).toEqual([`${res.body.job_id}.live`, `${res.body.job_id}.mp3`, `${seeded}.mp3`].sort());

    const whole = await fetch(done.body.audio_url);
    expect(whole.status).toBe(200);
    const size = Number(whole.headers.get('content-length'));
    expect(size).toBeGreaterThan(10 * 1024 * 1024); // several multipart parts
    const bytes = new Uint8Array(await whole.arrayBuffer());
    expect(bytes.byteLength).toBe(size);
    const start = 5 * 1024 * 1024 - 10;
    const end = start + 99_999;
    const ranged = await fetch(done.body.audio_url, { headers: { range: `bytes=${start}-${end}` } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
    expect(ranged.headers.get('content-length')).toBe('100000');
    expect(new Uint8Array(await ranged.arrayBuffer())).toEqual(bytes.subarray(start, end + 1));
    const beyond = await fetch(done.body.audio_url, { headers: { range: `bytes=${size}-` } });
    expect(beyond.status).toBe(416);
    // The opening minute decodes (the whole file is hours of audio).
    const head = await decodeMp3(bytes.subarray(0, 400_000));
    expect(head.seconds).toBeGreaterThan(30);
    // No instance keeps audio on its own disk.
    for (const dir of dataDirs) expect(await readdir(join(dir, 'audio')).catch(() => [])).toEqual([]);
  }, 300_000);

  it('leaves no object or upload of a worker killed mid-upload once the job is retried and the sweep has run', async () => {
    const key = a.fixtures.keys.active[1]!;
    const res = await postJob(a.baseUrl, key, { text: longText(300) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const jobId: string = res.body.job_id;
    await eventually(async () => (await keysInBucket()).some((k) => k.startsWith(`.uploads/${jobId}.mp3/`)), 'the upload to begin');
    await eventually(async () => Number(await redis!.hGet(`${prefix}job:${jobId}`, 'progress')) > 0.4, 'the upload to be under way', 600);
    await worker.kill();
    expect(await redis!.hGet(`${prefix}job:${jobId}`, 'status')).toBe('processing');
    // The dead run's upload is recorded in the bucket; its object does not exist (its live audio aside:
    // the retried run removes its segments).
    expect((await keysInBucket()).filter((k) => k.includes(jobId) && !k.startsWith(`${jobId}.live`))).toEqual([
      expect.stringMatching(new RegExp(`^\\.uploads/${jobId}\\.mp3/`)),
    ]);

    worker = await newWorker();
    const done = await pollUntilDone(b.baseUrl, key, jobId, 150_000);
    expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
    const swept = await a.admin(['storage', 'sweep']);
    expect(swept.code, swept.stderr).toBe(0);
    expect((await keysInBucket()).filter((k) => k.includes(jobId))).toEqual([`${jobId}.live`, `${jobId}.mp3`]);
    expect(await keysInBucket()).not.toContainEqual(expect.stringMatching(/^\.uploads\//));
    const audio = await fetch(done.body.audio_url);
    const bytes = new Uint8Array(await audio.arrayBuffer());
    expect(Number(audio.headers.get('content-length'))).toBe(bytes.byteLength);
    const decoded = await decodeMp3(bytes);
    expect(Math.abs(decoded.seconds - done.body.audio.duration_seconds)).toBeLessThan(0.1);
  }, 180_000);

  it('deletes the object of a job past its retention with the sweep, and the audio URL then answers 404', async () => {
    const key = a.fixtures.keys.active[2]!;
    // The previous test's long download may leave a keep-alive socket that the server closes as this
    // POST goes out on it ("other side closed"): sent again under its Idempotency-Key, as a client would.
    const idempotencyKey = randomUUID();
    const submit = () => postJob(b.baseUrl, key, { text: 'Kept until retention ends.' }, { 'idempotency-key': idempotencyKey });
    const res = await submit().catch((error: unknown) => {
      if (error instanceof TypeError) return submit();
      throw error;
    });
    const done = await pollUntilDone(a.baseUrl, key, res.body.job_id);
    expect(done.body.status).toBe('completed');
    expect(await keysInBucket()).toContain(`${res.body.job_id}.mp3`);
    // Its retention ends now.
    await redis!.zAdd(`${prefix}jobs:expiry`, { score: Date.now() - 1000, value: res.body.job_id });
    const swept = await b.admin(['storage', 'sweep']);
    expect(swept.code, swept.stderr).toBe(0);
    expect(await keysInBucket()).not.toContain(`${res.body.job_id}.mp3`);
    expect((await getJob(a.baseUrl, key, res.body.job_id)).status).toBe(404);
    const gone = await call(done.body.audio_url);
    expect(gone.status).toBe(404);
  });

  it('names the audio store in /readyz on every process', async () => {
    for (const url of [a.baseUrl, b.baseUrl, worker.opsUrl!]) {
      const ready = await call(`${url}/readyz`);
      expect(ready.status, JSON.stringify(ready.body)).toBe(200);
      expect(ready.body.checks.audio_storage).toBe('ok');
    }
  });
});
