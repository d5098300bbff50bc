import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCues, renderSrt, renderWebVtt, textWords, timingsProblems } from '@agent-tts/contract/captions.js';
import type { WordTimingsFileBody } from '@agent-tts/contract/timing-schemas.js';
import { createSynthesizer } from '../synth/index.js';
import { decodeMp3 } from '../../../test/helpers/http.js';
import { startS3Server, S3RVER_CREDENTIALS, type S3Server } from '../../../test/helpers/s3.js';
import { FileSpool } from '../adapters/file-spool.js';
import { LocalBlobStorage } from '../adapters/local-blob-storage.js';
import { LocalJobQueue } from '../adapters/local-queue.js';
import { S3BlobStorage } from '../adapters/s3-blob-storage.js';
import { createS3Client } from '../adapters/s3/client.js';
import { SqliteStore } from '../adapters/sqlite-store.js';
import { newAccount, newJob } from '../adapters/contracts/fixtures.contract.js';
import { createLogger } from '../log.js';
import { AudioStorageUnavailableError, type SynthesisRequest, type SynthesisResult, SynthesisError, type Synthesizer } from '../ports/index.js';
import { type AudioStorage, JobFiles } from './job-files.js';
import { PROVIDER_FAILURE_MESSAGE, STORE_FAILURE_MESSAGE } from './job-messages.js';
import { JobRunner, type JobRunnerOptions } from './job-runner.js';
import { sweepExpiredJobs } from './retention.js';

/** Long enough to take a few hundred milliseconds of synthesis, with progress along the way. */
const longEnough = Array.from({ length: 12 }, (_, i) => `Sentence ${i + 1} of a text that takes the engine a little while to speak.`).join(' ');

/** The progress a job shows while `run` runs: this process's live figure and the store's, sampled every 10 ms. */
async function sampleProgress<T>(
  runner: JobRunner,
  store: { getJob(id: string): Promise<{ progress: number } | undefined> },
  jobId: string,
  run: () => Promise<T>,
): Promise<{ result: T; live: number[]; stored: number[] }> {
  const live: number[] = [];
  const stored: number[] = [];
  let running = true;
  const sampling = (async () => {
    while (running) {
      const l = runner.live.get(jobId);
      if (l) live.push(l.fraction);
      const job = await store.getJob(jobId);
      if (job) stored.push(job.progress);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  try {
    return { result: await run(), live, stored };
  } finally {
    running = false;
    await sampling;
  }
}

const ascending = (values: number[]) => [...values].sort((a, b) => a - b);

/** The synthesizer, with what it was asked and what it answered kept for the test. */
function recording(real: Synthesizer) {
  const seen: { requests: SynthesisRequest[]; results: SynthesisResult[] } = { requests: [], results: [] };
  const synth: Synthesizer = {
    ...real,
    synthesize: async (req, sink, opts) => {
      seen.requests.push(req);
      const result = await real.synthesize(req, sink, opts);
      seen.results.push(result);
      return result;
    },
  };
  return { synth, seen };
}

const readTimingsFile = async (storage: AudioStorage, jobId: string): Promise<WordTimingsFileBody | undefined> => {
  const bytes = await storage.readTimings(jobId);
  return bytes ? (JSON.parse(new TextDecoder().decode(bytes)) as WordTimingsFileBody) : undefined;
};

describe('JobRunner', () => {
  let dir: string;
  let store: SqliteStore;
  let audio: JobFiles;
  let synth: Synthesizer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-runner-'));
    store = new SqliteStore(join(dir, 'db.sqlite'));
    audio = new JobFiles(new LocalBlobStorage(join(dir, 'audio')));
    synth = createSynthesizer({ threads: 1 });
  });
  afterAll(async () => {
    await synth?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('drops the audio of a job whose record was swept while it ran (retention ended meanwhile)', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text: 'Gone before it is done.', deleteAfter: Date.now() - 1 });
    expect(await store.createJob(job, 1_000_000)).toEqual({ kind: 'created' });
    // The real synthesizer, with the retention sweep happening while it speaks.
    const sweptMidway: Synthesizer = {
      ...synth,
      synthesize: async (req, sink, opts) => {
        expect(await store.deleteExpiredJobs(Date.now(), 10)).toEqual([job.id]);
        return synth.synthesize(req, sink, opts);
      },
    };
    expect(await new JobRunner(store, audio, sweptMidway, createLogger('silent')).run(job.id)).toBe(true);
    expect(await store.getJob(job.id)).toBeUndefined();
    expect(await audio.stat(job.id)).toBeUndefined();
  });

  /** The local audio storage, with its writer made only once `ready` lets it (or 2 s have passed). */
  function gatedAudio(ready: Promise<void>, open: 'opens' | 'unreachable' = 'opens') {
    const seen = { gateOpened: false };
    const gated = Object.create(audio) as JobFiles;
    gated.createWriter = async (jobId) => {
      seen.gateOpened = await Promise.race([ready.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 2_000).unref())]);
      if (open === 'unreachable') throw new AudioStorageUnavailableError('the audio store is down');
      return audio.createWriter(jobId);
    };
    return { gated, seen };
  }

  it('starts synthesizing while the audio storage gets ready; the first bytes wait for the writer', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text: 'Speaking before the file is open.', deleteAfter: Date.now() + 86_400_000 });
    await store.createJob(job, 1_000_000);
    let started!: () => void;
    const synthesisStarted = new Promise<void>((r) => (started = r));
    const { gated, seen } = gatedAudio(synthesisStarted);
    const speaking: Synthesizer = {
      ...synth,
      synthesize: (req, sink, opts) => {
        started();
        return synth.synthesize(req, sink, opts);
      },
    };
    expect(await new JobRunner(store, gated, speaking, createLogger('silent')).run(job.id)).toBe(true);
    expect(seen.gateOpened).toBe(true);
    const done = await store.getJob(job.id);
    expect(done?.status).toBe('completed');
    expect((await audio.stat(job.id))?.size).toBe(done?.fileSizeBytes);
    expect(await audio.listLeftovers(0)).not.toContain(job.id);
  });

  it('a synthesis that fails before the writer is ready: the writer is discarded once made, the job fails', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text: 'The engine fails at once.', deleteAfter: Date.now() + 86_400_000 });
    await store.createJob(job, 1_000_000);
    let failed!: () => void;
    const synthesisFailed = new Promise<void>((r) => (failed = r));
    const { gated } = gatedAudio(synthesisFailed);
    const failing: Synthesizer = {
      ...synth,
      synthesize: async () => {
        failed();
        throw new SynthesisError('TTS_PROVIDER_ERROR', 'engine down');
      },
    };
    expect(await new JobRunner(store, gated, failing, createLogger('silent')).run(job.id)).toBe(true);
    expect(await store.getJob(job.id)).toMatchObject({ status: 'failed', errorCode: 'TTS_PROVIDER_ERROR', errorMessage: PROVIDER_FAILURE_MESSAGE });
    expect(await audio.stat(job.id)).toBeUndefined();
    expect(await audio.listLeftovers(0)).not.toContain(job.id);
  });

  it('the audio store unreachable while the synthesis also fails: the store’s failure is the job’s without a spool, the synthesis’ with one', async () => {
    const account = newAccount();
    await store.createAccount(account);
    for (const spooled of [false, true]) {
      const job = newJob(account.id, { text: 'Both fail.', deleteAfter: Date.now() + 86_400_000 });
      await store.createJob(job, 1_000_000);
      let failed!: () => void;
      const synthesisFailed = new Promise<void>((r) => (failed = r));
      const { gated } = gatedAudio(synthesisFailed, 'unreachable');
      const failing: Synthesizer = {
        ...synth,
        synthesize: async () => {
          failed();
          throw new SynthesisError('TTS_PROVIDER_ERROR', 'engine down');
        },
      };
      const options: JobRunnerOptions = spooled ? { spool: new FileSpool(join(dir, 'spool')) } : {};
      expect(await new JobRunner(store, gated, failing, createLogger('silent'), undefined, options).run(job.id)).toBe(true);
      expect(await store.getJob(job.id)).toMatchObject({
        status: 'failed',
        errorCode: 'TTS_PROVIDER_ERROR',
        errorMessage: spooled ? PROVIDER_FAILURE_MESSAGE : STORE_FAILURE_MESSAGE,
      });
    }
  });

  it('a run again from the start (its worker died) never shows less progress than the job had', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text: longEnough, deleteAfter: Date.now() + 86_400_000 });
    await store.createJob(job, 1_000_000);
    // What the dead run had reached.
    await store.updateProgress(job.id, 0.6);
    const runner = new JobRunner(store, audio, synth, createLogger('silent'));
    const seen = await sampleProgress(runner, store, job.id, () => runner.run(job.id));
    expect((await store.getJob(job.id))?.status).toBe('completed');
    expect(seen.live.length).toBeGreaterThan(3);
    expect(Math.min(...seen.live)).toBeGreaterThanOrEqual(0.6);
    expect(Math.min(...seen.stored)).toBeGreaterThanOrEqual(0.6);
    expect(seen.live).toEqual(ascending(seen.live));
    expect(seen.stored).toEqual(ascending(seen.stored));
  });

  it('completes a job whose audio is committed even when removing its leftovers fails (the sweep takes them)', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text: 'Saved, then the store blinks.', deleteAfter: Date.now() + 86_400_000 });
    await store.createJob(job, 1_000_000);
    // The store goes away right after the commit: the clean-up of leftovers fails at once, while the
    // job's settlement takes a moment (as a Redis round trip does).
    const blinking = Object.create(audio) as JobFiles;
    blinking.removeLeftovers = async (jobId, olderThanMs) => {
      if (olderThanMs === 0) throw new AudioStorageUnavailableError('the audio store is down');
      return audio.removeLeftovers(jobId, olderThanMs);
    };
    const slowSettling = Object.create(store) as SqliteStore;
    slowSettling.completeJob = async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return store.completeJob(...args);
    };
    const runner = new JobRunner(slowSettling, blinking, synth, createLogger('silent'));
    expect(await runner.run(job.id)).toBe(true);
    const done = await store.getJob(job.id);
    expect(done?.status).toBe('completed');
    expect((await audio.stat(job.id))?.size).toBe(done?.fileSizeBytes);
  });

  it('a job that asked for word timings: the synthesizer is asked, and its words, their cues and the duration are stored before the job completes', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const text = 'First sentence, with a pause. Then — “quoted” words, and 日本語 too! 🎉 Done.';
    const job = newJob(account.id, { text, language: 'en-US', timestamps: 'word', deleteAfter: Date.now() + 86_400_000 });
    await store.createJob(job, 1_000_000);
    const { synth: asked, seen } = recording(synth);
    // When the timings are saved, the job is still processing and its audio is in place: nothing half-done shows.
    const watched = Object.create(audio) as JobFiles;
    const atSave: unknown[] = [];
    watched.putTimings = async (jobId, bytes, format) => {
      atSave.push(format, (await store.getJob(jobId))?.status, (await audio.stat(jobId)) !== undefined);
      return audio.putTimings(jobId, bytes, format);
    };
    expect(await new JobRunner(store, watched, asked, createLogger('silent')).run(job.id)).toBe(true);
    expect(seen.requests[0]).toEqual({ text, voice: job.voice, language: 'en-US', speed: job.speed, timestamps: 'word' });
    expect(atSave).toEqual(['vtt', 'processing', true, 'srt', 'processing', true, 'json', 'processing', true]);
    const done = (await store.getJob(job.id))!;
    expect(done.status).toBe('completed');
    const file = (await readTimingsFile(audio, job.id))!;
    const words = seen.results[0]!.words!;
    expect(file).toEqual({ job_id: job.id, granularity: 'word', duration_seconds: done.durationSeconds, words, cues: buildCues(text, words) });
    expect(file.words.map((w) => w.word)).toEqual(textWords(text).map((w) => w.word));
    expect(timingsProblems(text, file)).toEqual([]);
    expect(file.cues.length).toBeGreaterThan(1);
    // The captions are rendered once, here, byte for byte as the renderer writes them from the stored file.
    expect(new TextDecoder().decode(await audio.readTimings(job.id, 'vtt'))).toBe(renderWebVtt(file));
    expect(new TextDecoder().decode(await audio.readTimings(job.id, 'srt'))).toBe(renderSrt(file));
  });

  it('a job that asked for none: the synthesizer is not asked, and no timings are stored', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text: 'No timings, please.', deleteAfter: Date.now() + 86_400_000 });
    await store.createJob(job, 1_000_000);
    const { synth: asked, seen } = recording(synth);
    expect(await new JobRunner(store, audio, asked, createLogger('silent')).run(job.id)).toBe(true);
    expect(seen.requests[0]).not.toHaveProperty('timestamps');
    expect((await store.getJob(job.id))?.status).toBe('completed');
    expect(await audio.readTimings(job.id)).toBeUndefined();
  });

  it('a synthesizer that was asked for word timings and returned none fails the job (INTERNAL_ERROR), its audio deleted', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text: 'Words were asked for.', timestamps: 'word', deleteAfter: Date.now() + 86_400_000, reservedCentiminutes: 40 });
    await store.createJob(job, 1_000_000);
    const wordless: Synthesizer = { ...synth, synthesize: async (req, sink, opts) => ({ ...(await synth.synthesize(req, sink, opts)), words: undefined }) };
    expect(await new JobRunner(store, audio, wordless, createLogger('silent')).run(job.id)).toBe(true);
    expect(await store.getJob(job.id)).toMatchObject({ status: 'failed', errorCode: 'INTERNAL_ERROR', chargedCentiminutes: 0 });
    expect(await audio.stat(job.id)).toBeUndefined();
    expect(await audio.readTimings(job.id)).toBeUndefined();
    expect(await store.getUsage(account.id, job.usageMonth)).toEqual({ usedCentiminutes: 0 });
  });

  it('word timings the store will not take fail the job like audio it will not take: not completed, audio deleted, nothing charged', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text: 'Audio saved, timings not.', timestamps: 'word', deleteAfter: Date.now() + 86_400_000, reservedCentiminutes: 40 });
    await store.createJob(job, 1_000_000);
    const down = Object.create(audio) as JobFiles;
    let tries = 0;
    down.putTimings = async () => {
      tries++;
      throw new AudioStorageUnavailableError('the audio store is down');
    };
    const runner = new JobRunner(store, down, synth, createLogger('silent'), undefined, {
      outage: { budgetMs: 300, firstDelayMs: 50, maxDelayMs: 100 },
    });
    expect(await runner.run(job.id)).toBe(true);
    expect(tries).toBeGreaterThan(1);
    expect(await store.getJob(job.id)).toMatchObject({ status: 'failed', errorCode: 'TTS_PROVIDER_ERROR', errorMessage: STORE_FAILURE_MESSAGE });
    expect(await audio.stat(job.id)).toBeUndefined();
    expect(await audio.readTimings(job.id)).toBeUndefined();
    expect(await store.getUsage(account.id, job.usageMonth)).toEqual({ usedCentiminutes: 0 });
  });

  it('word timings are saved once the store answers again within the outage budget, and the job completes', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text: 'The store blinks at the end.', timestamps: 'word', deleteAfter: Date.now() + 86_400_000 });
    await store.createJob(job, 1_000_000);
    const blinking = Object.create(audio) as JobFiles;
    let tries = 0;
    blinking.putTimings = async (jobId, bytes, format) => {
      if (format === 'vtt' && ++tries < 3) throw new AudioStorageUnavailableError('the audio store is down');
      return audio.putTimings(jobId, bytes, format);
    };
    const logs: Array<{ msg: string; [field: string]: unknown }> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
    const runner = new JobRunner(store, blinking, synth, log, undefined, { outage: { budgetMs: 10_000, firstDelayMs: 50, maxDelayMs: 100 } });
    expect(await runner.run(job.id)).toBe(true);
    expect(tries).toBe(3);
    expect((await store.getJob(job.id))?.status).toBe('completed');
    expect((await readTimingsFile(audio, job.id))?.job_id).toBe(job.id);
    expect(logs.filter((l) => l.msg === 'audio store unreachable; saving the word timings again after a wait')).toHaveLength(2);
    expect(logs.find((l) => l.msg === 'the word timings saved once the audio store answered')?.attempts).toBe(3);
  });

  it('keeps the audio of a job it settles', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text: 'Kept.', deleteAfter: Date.now() + 86_400_000 });
    await store.createJob(job, 1_000_000);
    await new JobRunner(store, audio, synth, createLogger('silent')).run(job.id);
    expect((await store.getJob(job.id))?.status).toBe('completed');
    expect((await audio.stat(job.id))?.size).toBeGreaterThan(0);
  });
});

describe('JobRunner and the in-process queue with the audio store unreachable (S3 on s3rver)', () => {
  let dir: string;
  let store: SqliteStore;
  let synth: Synthesizer;
  let s3: S3Server;
  let audio: JobFiles;
  let blobs: S3BlobStorage;
  beforeAll(async () => {
    Object.assign(process.env, S3RVER_CREDENTIALS);
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-runner-s3-'));
    store = new SqliteStore(join(dir, 'db.sqlite'));
    synth = createSynthesizer({ threads: 1 });
    s3 = await startS3Server();
    const client = createS3Client({ endpoint: s3.endpoint, forcePathStyle: true });
    blobs = new S3BlobStorage({ client, bucket: s3.bucket, prefix: 'runner' });
    audio = new JobFiles(blobs);
  });
  afterAll(async () => {
    await s3?.close();
    await synth?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * A job holding its usage reservation, run through a LocalJobQueue (the embedded mode's path) by a
   * runner with a spool and the given outage budget; its runs, its syntheses, the progress it showed
   * and the runner's log lines are counted.
   */
  async function runQueued(
    text: string,
    /** `closeAfterMs`: the queue is closed then (a shutdown), finished or not. */
    options: { budgetMs: number; during?: (jobId: string) => Promise<void>; after?: () => void; closeAfterMs?: number },
  ) {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text, deleteAfter: Date.now() + 86_400_000, reservedCentiminutes: 40 });
    expect(await store.createJob(job, 1_000_000)).toEqual({ kind: 'created' });
    expect(await store.getUsage(account.id, job.usageMonth)).toEqual({ usedCentiminutes: 40 });
    let syntheses = 0;
    const speaking: Synthesizer = {
      ...synth,
      synthesize: async (req, sink, opts) => {
        syntheses++;
        await options.during?.(job.id);
        const result = await synth.synthesize(req, sink, opts);
        options.after?.();
        return result;
      },
    };
    const logs: Array<{ msg: string; [field: string]: unknown }> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
    const spoolDir = join(dir, `spool-${job.id}`);
    const runner = new JobRunner(store, audio, speaking, log, undefined, {
      spool: new FileSpool(spoolDir),
      outage: { budgetMs: options.budgetMs, firstDelayMs: 200, maxDelayMs: 1_000 },
    });
    let runs = 0;
    const queue = new LocalJobQueue(
      {
        run: (jobId, signal) => {
          runs++;
          return runner.run(jobId, signal);
        },
      },
      1,
      createLogger('silent'),
    );
    const started = Date.now();
    const seen = await sampleProgress(runner, store, job.id, async () => {
      try {
        const finished = queue.waitForFinish(job.id, options.closeAfterMs ?? 170_000);
        await queue.enqueue(job.id);
        await finished;
      } finally {
        await queue.close();
      }
    });
    return {
      job: (await store.getJob(job.id))!,
      usage: await store.getUsage(account.id, job.usageMonth),
      runs,
      syntheses,
      seen,
      logs,
      ms: Date.now() - started,
      spoolFiles: await readdir(spoolDir).catch(() => []),
      id: job.id,
    };
  }

  it('the retention sweep deletes expired jobs’ objects in one DeleteObjects, and the partial write of a run that died', async () => {
    const client = createS3Client({ endpoint: s3.endpoint, forcePathStyle: true });
    const commands: string[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        commands.push(context.commandName ?? '');
        return next(args);
      },
      { step: 'initialize' },
    );
    const sweptBlobs = new S3BlobStorage({ client, bucket: s3.bucket, prefix: `sweep-${Date.now()}` });
    const swept = new JobFiles(sweptBlobs);
    const account = newAccount();
    await store.createAccount(account);
    const expired = Array.from({ length: 3 }, () => newJob(account.id, { deleteAfter: Date.now() - 1 }));
    const kept = newJob(account.id, { deleteAfter: Date.now() + 86_400_000 });
    for (const job of [...expired, kept]) {
      await store.createJob(job, 1_000_000);
      const w = await swept.createWriter(job.id);
      await w.write(new Uint8Array([1, 2, 3]));
      // The first expired job's run died mid-upload: its marker (and upload) stay behind.
      if (job !== expired[0]) await w.commit();
    }
    commands.length = 0;
    expect(await sweepExpiredJobs(store, swept, createLogger('silent'), Date.now())).toBe(3);
    expect(commands.filter((c) => c === 'DeleteObjectsCommand')).toHaveLength(1);
    // One single delete: the dead run's marker, not one per job's audio.
    expect(commands.filter((c) => c === 'DeleteObjectCommand')).toHaveLength(1);
    for (const job of expired) expect(await swept.stat(job.id)).toBeUndefined();
    expect(await sweptBlobs.listMarkers()).toEqual([]);
    expect((await swept.stat(kept.id))?.size).toBe(3);
  });

  it('a store down before the job: the run waits out its outage budget, then fails the job with TTS_PROVIDER_ERROR and no charge', async () => {
    await s3.stop();
    try {
      const { job, usage, runs, syntheses, logs, ms, spoolFiles, id } = await runQueued('The store is down.', { budgetMs: 1_500 });
      expect(job).toMatchObject({ status: 'failed', errorCode: 'TTS_PROVIDER_ERROR', errorMessage: STORE_FAILURE_MESSAGE });
      expect(job.errorMessage).toContain('audio store could not be reached');
      expect(job.errorMessage).not.toMatch(/S3RVER|127\.0\.0\.1|runner\//);
      expect(usage).toEqual({ usedCentiminutes: 0 });
      // One run, one synthesis: the audio was kept in the spool while the store was tried again.
      expect([runs, syntheses]).toEqual([1, 1]);
      expect(ms).toBeGreaterThanOrEqual(1_500);
      expect(logs.filter((l) => l.msg.startsWith('audio store unreachable; saving the audio again')).length).toBeGreaterThanOrEqual(2);
      expect(logs.some((l) => l.msg.includes('the outage budget is spent'))).toBe(true);
      expect(JSON.stringify(logs)).not.toMatch(/S3RVER/);
      expect(spoolFiles).toEqual([]);
      await s3.start();
      expect(await audio.stat(id)).toBeUndefined();
    } finally {
      await s3.start();
    }
  });

  it('a store down from the start of the upload until 3 s after the synthesis: synthesized once, saved when the store is back, progress never falls, charged once', async () => {
    let restarted: Promise<void> | undefined;
    const { job, usage, runs, syntheses, seen, logs, spoolFiles, id } = await runQueued(longEnough, {
      budgetMs: 20_000,
      during: async (jobId) => {
        // The writer (and its upload) exists: the store goes down before the first byte reaches it. The
        // writer is made while the synthesis starts: its marker tells that it is there.
        while ((await blobs.listMarkers(jobId)).length === 0) await new Promise((r) => setTimeout(r, 5));
        await s3.stop();
      },
      after: () => {
        restarted = new Promise((resolve) => setTimeout(resolve, 3_000)).then(() => s3.start());
      },
    });
    await restarted;
    expect(job).toMatchObject({ status: 'completed' });
    expect([runs, syntheses]).toEqual([1, 1]);
    const saved = logs.find((l) => l.msg === 'audio saved from the spool');
    expect(saved?.attempts).toBeGreaterThan(1);
    expect(usage.usedCentiminutes).toBe(job.chargedCentiminutes);
    expect(job.chargedCentiminutes).toBeGreaterThan(0);
    expect(seen.live).toEqual(ascending(seen.live));
    expect(seen.stored).toEqual(ascending(seen.stored));
    // The audio in the store is the whole of it, and decodes.
    expect((await audio.stat(id))?.size).toBe(job.fileSizeBytes);
    const parts: Uint8Array[] = [];
    for await (const part of (await audio.open(id)) as unknown as AsyncIterable<Uint8Array>) parts.push(part);
    const decoded = await decodeMp3(Buffer.concat(parts));
    expect(Math.abs(decoded.seconds - job.durationSeconds!)).toBeLessThan(0.1);
    // The stopped streaming write left nothing behind once the job was saved; nor did the spool.
    expect(await blobs.listMarkers(id)).toEqual([]);
    expect(spoolFiles).toEqual([]);
  }, 60_000);

  it('shutdown while the run waits for the store: the job stays processing (it runs again at the next start), the spool is removed', async () => {
    await s3.stop();
    try {
      const { job, usage, runs, ms, spoolFiles, logs } = await runQueued('Waiting when the process stops.', { budgetMs: 60_000, closeAfterMs: 1_500 });
      expect(job.status).toBe('processing');
      expect(logs.some((l) => l.msg.startsWith('job interrupted by shutdown while waiting for the audio store'))).toBe(true);
      expect(usage).toEqual({ usedCentiminutes: 40 });
      expect(runs).toBe(1);
      expect(ms).toBeLessThan(10_000);
      expect(spoolFiles).toEqual([]);
    } finally {
      await s3.start();
    }
  });
});
