import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMp3, getJob, longText, pollUntilDone, postJob } from './helpers/http.js';
import { deleteKeys, eventually, redisOrSkip, startWorker, testRedisUrl, uniquePrefix, type RunningWorker } from './helpers/redis.js';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from './helpers/s3.js';
import { removeDir, startServer, type RunningServer } from './helpers/server.js';
import { freePort } from '@agent-tts/bench/harness/server-process.js';

/** Every byte of a response body, with when each piece arrived (ms since `since`), or the error the body ended with. */
async function readAll(
  res: Response,
  since: number,
  onChunk?: (total: number) => void | Promise<void>,
): Promise<{ bytes: Buffer; at: number[]; error?: unknown }> {
  if (!res.body) throw new Error('no body');
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  const at: number[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
      at.push(performance.now() - since);
      await onChunk?.(total);
    }
  } catch (error) {
    return { bytes: Buffer.concat(chunks), at, error };
  }
  return { bytes: Buffer.concat(chunks), at };
}

const TEXT_60K = longText(800).slice(0, 60_000);

/**
 * The stream URL in the distributed mode without a shared disk (docs/api-rules.md#streaming-audio, docs/distributed.md): an API
 * instance that runs no jobs (LOCAL_WORKERS=false) and a worker process, each with its own DATA_DIR, over
 * one Redis and one S3-protocol server (s3rver). The worker publishes the audio as segment objects in the
 * bucket; the API reads them for its listeners.
 */
const redis = await redisOrSkip('distributed streaming');

describe.skipIf(!redis)('streaming audio while a job runs (distributed: API and worker apart, audio in S3)', () => {
  const prefix = uniquePrefix('dstream');
  const audioPrefix = `audio-${randomBytes(4).toString('hex')}`;
  const dataDirs: string[] = [];
  let s3: S3Server;
  let client: S3Client;
  let api: RunningServer;
  let worker: RunningWorker;
  let shared: Record<string, string>;

  const newDataDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-tts-dstream-'));
    dataDirs.push(dir);
    return dir;
  };
  const newWorker = async () =>
    startWorker({ ...shared, DATA_DIR: await newDataDir(), JOB_CONCURRENCY: '1', SYNTH_THREADS: '2', WORKER_OPS_PORT: String(await freePort()) });
  const keysOf = async (jobId: string) => {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${audioPrefix}/` }));
    return (listed.Contents ?? []).map((o) => (o.Key ?? '').slice(audioPrefix.length + 1)).filter((k) => k.includes(jobId));
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
    api = await startServer({
      backend: 'redis',
      dataDir: await newDataDir(),
      env: { ...shared, LOCAL_WORKERS: 'false', INLINE_WAIT_MS: '0', RATE_POST_LIMIT: '1000', RATE_GET_LIMIT: '1000' },
    });
    worker = await newWorker();
    await worker.waitForLog('agent-tts worker ready');
  });

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    for (const dir of dataDirs) await removeDir(dir);
    if (redis) await deleteKeys(redis, prefix);
    client?.destroy();
    await s3?.close();
  });

  it('a 60,000-character job: 50 KB of MP3 within 5 s of the 202 while it is processing, then exactly the bytes of audio_url; a late listener too', async () => {
    const key = api.fixtures.keys.active[0] ?? '';
    expect(TEXT_60K.length).toBe(60_000);
    const posted = await postJob(api.baseUrl, key, { text: TEXT_60K });
    const t0 = performance.now();
    expect(posted.status, JSON.stringify(posted.body)).toBe(202);
    const jobId: string = posted.body.job_id;
    expect(posted.body.stream_url).toMatch(new RegExp(`^${api.baseUrl}/v1/stream/${jobId}\\.mp3\\?expires=\\d+&sig=`));

    // When polls first say completed (ms after the 202), to set the stream's pace against the synthesis's.
    const completedAt = (async () => {
      while ((await getJob(api.baseUrl, key, jobId)).body.status === 'processing') await new Promise((r) => setTimeout(r, 200));
      return performance.now() - t0;
    })();
    const res = await fetch(posted.body.stream_url);
    expect([res.status, res.headers.get('content-type'), res.headers.get('content-length')]).toEqual([200, 'audio/mpeg', null]);
    const mark: { at50k?: { ms: number; status: string }; late?: Promise<{ bytes: Buffer; error?: unknown }> } = {};
    const streamed = await readAll(res, t0, async (total) => {
      if (!mark.at50k && total >= 50_000) {
        const polled = await getJob(api.baseUrl, key, jobId);
        mark.at50k = { ms: performance.now() - t0, status: polled.body.status };
        // A second listener joins now, from the stream URL of that poll.
        if (polled.body.stream_url) mark.late = fetch(polled.body.stream_url).then((r) => readAll(r, 0));
      }
    });
    expect(streamed.error).toBeUndefined();
    const { at50k } = mark;
    if (!at50k) throw new Error(`the stream ended after ${streamed.bytes.byteLength} bytes`);
    expect(at50k.status).toBe('processing');
    expect(at50k.ms).toBeLessThan(5000);
    const done = await pollUntilDone(api.baseUrl, key, jobId);
    expect(done.body.status).toBe('completed');
    const [first, last] = [streamed.at[0] ?? Number.NaN, streamed.at.at(-1) ?? Number.NaN];
    const kib = streamed.bytes.byteLength / 1024;
    console.log(
      `distributed stream: first byte ${Math.round(first)} ms after the 202, 50 KB at ${Math.round(at50k.ms)} ms; ` +
        `${Math.round(kib)} KiB in ${Math.round(last)} ms (${Math.round(kib / ((last - first) / 1000))} KiB/s after the first byte); ` +
        `polls said completed at ${Math.round(await completedAt)} ms`,
    );
    const file = Buffer.from(await (await fetch(done.body.audio_url)).arrayBuffer());
    expect(streamed.bytes.byteLength).toBe(file.byteLength);
    expect(Buffer.compare(streamed.bytes, file)).toBe(0);
    if (!mark.late) throw new Error('no stream_url on the poll of a processing job');
    const late = await mark.late;
    expect(late.error).toBeUndefined();
    const differ = late.bytes.findIndex((b, i) => b !== file[i]);
    expect([late.bytes.byteLength, differ], 'the late listener’s bytes: length, first differing byte').toEqual([file.byteLength, -1]);
    expect((await decodeMp3(streamed.bytes.subarray(0, 50_000))).seconds).toBeGreaterThan(1);
    // The run's segments are gone; its audio and the mark of its run stay (until the job's retention ends).
    await eventually(async () => (await keysOf(jobId)).length === 2, 'the segments to be deleted');
    expect((await keysOf(jobId)).sort()).toEqual([`${jobId}.live`, `${jobId}.mp3`]);
  }, 240_000);

  it('a worker killed mid-job: its listener’s stream ends abnormally, never short and whole; the retried run streams again from byte 0', async () => {
    const key = api.fixtures.keys.active[1] ?? '';
    const posted = await postJob(api.baseUrl, key, { text: longText(300) });
    expect(posted.status, JSON.stringify(posted.body)).toBe(202);
    const jobId: string = posted.body.job_id;
    let received = 0;
    const listening = fetch(posted.body.stream_url).then((r) =>
      readAll(r, 0, (total) => {
        received = total;
      }),
    );
    await eventually(async () => received >= 100_000, 'audio to arrive', 600);
    await worker.kill();
    expect((await getJob(api.baseUrl, key, jobId)).body.status).toBe('processing');
    worker = await newWorker();
    const cut = await listening;
    expect(cut.error, `a body of ${cut.bytes.byteLength} bytes ended normally`).toBeDefined();

    // A listener of the retried run gets it whole.
    const again = await getJob(api.baseUrl, key, jobId);
    const retried = again.body.stream_url ? fetch(again.body.stream_url).then((r) => readAll(r, 0)) : undefined;
    const done = await pollUntilDone(api.baseUrl, key, jobId, 150_000);
    expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
    const file = Buffer.from(await (await fetch(done.body.audio_url)).arrayBuffer());
    if (retried) {
      const whole = await retried;
      expect(whole.error).toBeUndefined();
      expect(Buffer.compare(whole.bytes, file)).toBe(0);
    }
    // Both runs' segments are gone: the retried run removed the dead one's, then its own.
    await eventually(async () => (await keysOf(jobId)).filter((k) => !k.startsWith('.uploads/')).length === 2, 'the segments to be deleted');
    expect((await keysOf(jobId)).filter((k) => !k.startsWith('.uploads/')).sort()).toEqual([`${jobId}.live`, `${jobId}.mp3`]);
  }, 240_000);
});
