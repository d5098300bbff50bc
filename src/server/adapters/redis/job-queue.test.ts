import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Queue, Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { deleteKeys, eventually, redisOrSkip, testRedisUrl, uniquePrefix } from '../../../../test/helpers/redis.js';
import { createSynthesizer } from '../../synth/index.js';
import { bullConnection } from './bullmq.js';
import { SYNTHESIS_QUEUE } from './keys.js';
import { closeRedisClient, createRedisClient } from './client.js';
import { loadDistributedSettings } from '../../config/distributed.js';
import { SynthesisWorker } from './synthesis-worker.js';
import { STORE_FAILURE_MESSAGE } from '../../domain/job-messages.js';
import { JobRunner, type JobRunnerOptions } from '../../domain/job-runner.js';
import { FileSpool } from '../file-spool.js';
import type { JobRun } from '../../ports/index.js';
import { startS3Server, S3RVER_CREDENTIALS } from '../../../../test/helpers/s3.js';
import { S3BlobStorage } from '../s3-blob-storage.js';
import { createS3Client } from '../s3/client.js';
import { describeJobQueueContract } from '../job-queue.contract.js';
import { LocalBlobStorage } from '../local-blob-storage.js';
import { type AudioStorage, JobFiles } from '../../domain/job-files.js';
import { RedisJobQueue } from './job-queue.js';
import { RedisStore } from './store.js';
import { newAccount, newJob } from '../contracts/fixtures.contract.js';

const redis = await redisOrSkip('RedisJobQueue (BullMQ) contract');
const prefixes: string[] = [];

afterAll(async () => {
  if (!redis) return;
  for (const prefix of prefixes) await deleteKeys(redis, prefix);
  redis.destroy();
});

/** The API side (RedisJobQueue) and a worker (SynthesisWorker) in one process, over one Redis prefix. */
async function openDistributed(
  options: { worker: boolean; audio?: AudioStorage; env?: Record<string, string>; runner?: (dir: string) => JobRunnerOptions } = { worker: true },
) {
  const url = testRedisUrl();
  const prefix = uniquePrefix('queue');
  prefixes.push(prefix);
  const dir = await mkdtemp(join(tmpdir(), 'agent-tts-queue-'));
  const log = pino({ level: 'silent' });
  const settings = loadDistributedSettings({ QUEUE_RECONCILE_SECONDS: '3600', ...options.env });
  const client = createRedisClient(url, { name: 'queue-contract', commandTimeoutMs: settings.commandTimeoutMs });
  const store = new RedisStore(client, prefix);
  const audio = options.audio ?? new JobFiles(new LocalBlobStorage(dir));
  const synth = createSynthesizer({ engine: 'espeak', threads: 1 });
  const runner = new JobRunner(store, audio, synth, log, undefined, options.runner?.(dir));
  const runs = new Map<string, number>();
  const counting: JobRun = {
    run(jobId, signal) {
      runs.set(jobId, (runs.get(jobId) ?? 0) + 1);
      return runner.run(jobId, signal);
    },
  };
  const queue = new RedisJobQueue({ url, prefix, store, publisher: client, settings, log });
  const worker = options.worker ? new SynthesisWorker({ url, prefix, runner: counting, publisher: client, concurrency: 2, settings, log }) : undefined;
  await worker?.ready();
  return {
    queue,
    store,
    audio,
    worker,
    prefix,
    runsOf: (jobId: string) => runs.get(jobId) ?? 0,
    async close() {
      await worker?.close(1_000);
      await queue.close();
      await synth.close();
      await closeRedisClient(client);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describeJobQueueContract('RedisJobQueue + SynthesisWorker (BullMQ)', () => openDistributed(), { skip: !redis });

describe.skipIf(!redis)('RedisJobQueue reconcile sweep (the outbox)', () => {
  it('queues a processing job the queue never got, and fails one the queue gave up on', async () => {
    const h = await openDistributed({ worker: false });
    try {
      const account = newAccount();
      await h.store.createAccount(account);
      // Created in the store but never queued (the API died between the two steps).
      const orphan = newJob(account.id, { createdAt: Date.now(), deleteAfter: Date.now() + 86_400_000 });
      await h.store.createJob(orphan, 1_000_000);
      expect(await h.queue.reconcile()).toBe(1);
      expect(await h.queue.reconcile()).toBe(0);
      expect((await h.queue.stats()).waiting).toBe(1);

      // A queue entry that failed for good: the sweep fails the job, which releases its reservation.
      const given = newJob(account.id, { createdAt: Date.now(), deleteAfter: Date.now() + 86_400_000, reservedCentiminutes: 40 });
      await h.store.createJob(given, 1_000_000);
      const raw = new Queue(SYNTHESIS_QUEUE, { connection: bullConnection(testRedisUrl()), prefix: `${h.prefix}bull` });
      const failer = new Worker(SYNTHESIS_QUEUE, null, { connection: bullConnection(testRedisUrl()), prefix: `${h.prefix}bull`, autorun: false });
      try {
        // Out of the way, so the manual worker below takes `given`.
        await raw.remove(orphan.id);
        await raw.add('synthesize', {}, { jobId: given.id, attempts: 1 });
        const token = 'contract-token';
        const taken = await failer.getNextJob(token);
        expect(taken?.id).toBe(given.id);
        // Its only attempt fails: BullMQ moves it to failed for good, as after a last retry.
        await taken!.moveToFailed(new Error('gave up'), token);
        expect(await raw.getJobState(given.id)).toBe('failed');
      } finally {
        await failer.close();
        await raw.close();
      }
      const before = await h.store.getUsage(account.id, given.usageMonth);
      const waiting = h.queue.waitForFinish(given.id, 30_000);
      await h.queue.reconcile();
      await waiting;
      expect(await h.store.getJob(given.id)).toMatchObject({ status: 'failed', errorCode: 'INTERNAL_ERROR' });
      const after = await h.store.getUsage(account.id, given.usageMonth);
      expect(before.usedCentiminutes - after.usedCentiminutes).toBe(40);
      expect((await h.store.getJob(orphan.id))?.status).toBe('processing');
      await eventually(async () => (await h.queue.stats()).failed === 1, 'failed count');
    } finally {
      await h.close();
    }
  });
});

describe.skipIf(!redis)('SynthesisWorker with the audio store unreachable (S3 on s3rver)', () => {
  it('runs the job once, waits out the outage budget with its audio spooled, then fails it with TTS_PROVIDER_ERROR and no charge', async () => {
    Object.assign(process.env, S3RVER_CREDENTIALS);
    const s3 = await startS3Server();
    const audio = new JobFiles(
      new S3BlobStorage({ client: createS3Client({ endpoint: s3.endpoint, forcePathStyle: true }), bucket: s3.bucket, prefix: 'queue' }),
    );
    const h = await openDistributed({
      worker: true,
      audio,
      env: { QUEUE_ATTEMPTS: '2' },
      runner: (dir) => ({ spool: new FileSpool(join(dir, 'spool')), outage: { budgetMs: 2_000, firstDelayMs: 200, maxDelayMs: 500 } }),
    });
    try {
      const account = newAccount();
      await h.store.createAccount(account);
      const job = newJob(account.id, { createdAt: Date.now(), deleteAfter: Date.now() + 86_400_000, reservedCentiminutes: 40 });
      await h.store.createJob(job, 1_000_000);
      expect(await h.store.getUsage(account.id, job.usageMonth)).toEqual({ usedCentiminutes: 40 });
      await s3.stop();
      const finished = h.queue.waitForFinish(job.id, 50_000);
      await h.queue.enqueue(job.id);
      await finished;
      expect(await h.store.getJob(job.id)).toMatchObject({ status: 'failed', errorCode: 'TTS_PROVIDER_ERROR', errorMessage: STORE_FAILURE_MESSAGE });
      // The run kept the job (and its lock) through the budget: BullMQ's attempts are for runs that throw.
      expect(h.runsOf(job.id)).toBe(1);
      expect(await h.store.getUsage(account.id, job.usageMonth)).toEqual({ usedCentiminutes: 0 });
    } finally {
      await h.close();
      await s3.close();
    }
  });

  it('a store down for 4 times the queue lock: the job stays claimed by its one run, completes once the store is back, charged once', async () => {
    Object.assign(process.env, S3RVER_CREDENTIALS);
    const s3 = await startS3Server();
    const audio = new JobFiles(
      new S3BlobStorage({ client: createS3Client({ endpoint: s3.endpoint, forcePathStyle: true }), bucket: s3.bucket, prefix: 'queue' }),
    );
    // A lock of 1 s, looked for every 0.5 s: a run that stopped renewing it would lose the job at once.
    const h = await openDistributed({
      worker: true,
      audio,
      env: { QUEUE_LOCK_MS: '1000', QUEUE_STALLED_CHECK_MS: '500' },
      runner: (dir) => ({ spool: new FileSpool(join(dir, 'spool')), outage: { budgetMs: 30_000, firstDelayMs: 200, maxDelayMs: 1_000 } }),
    });
    try {
      const account = newAccount();
      await h.store.createAccount(account);
      const job = newJob(account.id, { createdAt: Date.now(), deleteAfter: Date.now() + 86_400_000, reservedCentiminutes: 40 });
      await h.store.createJob(job, 1_000_000);
      await s3.stop();
      const finished = h.queue.waitForFinish(job.id, 60_000);
      await h.queue.enqueue(job.id);
      await new Promise((r) => setTimeout(r, 4_000));
      expect((await h.store.getJob(job.id))?.status).toBe('processing');
      await s3.start();
      await finished;
      const done = await h.store.getJob(job.id);
      expect(done).toMatchObject({ status: 'completed' });
      expect(h.runsOf(job.id)).toBe(1);
      expect(await h.store.getUsage(account.id, job.usageMonth)).toEqual({ usedCentiminutes: done!.chargedCentiminutes });
      expect((await audio.stat(job.id))?.size).toBe(done!.fileSizeBytes);
    } finally {
      await h.close();
      await s3.close();
    }
  }, 90_000);
});
