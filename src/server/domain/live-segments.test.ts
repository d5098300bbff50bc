import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { longText } from '../../../test/helpers/http.js';
import { S3RVER_CREDENTIALS, type S3Server, startS3Server } from '../../../test/helpers/s3.js';
import { newAccount, newJob } from '../adapters/contracts/fixtures.contract.js';
import { LocalBlobStorage } from '../adapters/local-blob-storage.js';
import { S3BlobStorage } from '../adapters/s3-blob-storage.js';
import { createS3Client } from '../adapters/s3/client.js';
import { SqliteStore } from '../adapters/sqlite-store.js';
import { createLogger } from '../log.js';
import type { Synthesizer } from '../ports/index.js';
import { createSynthesizer } from '../synth/index.js';
import { JobFiles } from './job-files.js';
import { JobRunner } from './job-runner.js';
import { LiveAudio } from './live-audio.js';
import { LiveSegmentWriter, liveKey, readLiveMark, SEGMENT_BYTES, segmentKey } from './live-segments.js';

/** Every piece a listener gets (with when the first came), or the error it ends with. */
async function listenAll(stream: ReadableStream<Uint8Array>): Promise<{ pieces: Uint8Array[]; firstAt?: number; error?: unknown }> {
  const pieces: Uint8Array[] = [];
  let firstAt: number | undefined;
  const reader = stream.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      firstAt ??= Date.now();
      pieces.push(read.value);
    }
    return { pieces, firstAt };
  } catch (error) {
    return { pieces, firstAt, error };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A temporary file holding `bytes` (removed with the suite's directory). */
let tempDir = tmpdir();
async function writeTemp(bytes: Uint8Array): Promise<string> {
  const path = join(tempDir, `${Math.random().toString(36).slice(2)}.mp3`);
  await writeFile(path, bytes);
  return path;
}

/**
 * A job's audio published as segments by a run in "another process" (a JobRunner this LiveAudio knows
 * nothing of, as a worker of the distributed mode), read by listeners, over real SQLite, a real audio
 * directory and the real engine.
 */
describe('live audio segments', () => {
  let dir: string;
  let store: SqliteStore;
  let blobs: LocalBlobStorage;
  let audio: JobFiles;
  let synth: Synthesizer;
  const log = createLogger('silent');
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-segments-'));
    tempDir = dir;
    store = new SqliteStore(join(dir, 'db.sqlite'));
    blobs = new LocalBlobStorage(join(dir, 'audio'));
    audio = new JobFiles(blobs);
    synth = createSynthesizer({ threads: 1 });
  });
  afterAll(async () => {
    await synth?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function processingJob(text: string) {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text });
    expect(await store.createJob(job, 1_000_000)).toEqual({ kind: 'created' });
    return job;
  }

  it('a listener elsewhere gets the audio before the job completes, in pieces of at most 64 KiB, ending with the stored file; a late one too; the segments go', async () => {
    const here = new LiveAudio({ store, audio, segments: blobs });
    const job = await processingJob(longText(80));
    const early = listenAll(here.listen(job.id));
    let completedAt = 0;
    const running = new JobRunner(store, audio, synth, log, undefined, { segments: blobs }).run(job.id).then((done) => {
      completedAt = Date.now();
      return done;
    });
    // Joins once the run has published something.
    for (let i = 0; i < 100 && !(await blobs.stat(segmentKey(job.id, (await readLiveMark(blobs, job.id))?.run ?? 'none', 0))); i++) await sleep(100);
    const late = listenAll(here.listen(job.id));
    expect(await running).toBe(true);
    const stored = Buffer.from(await new Response(await audio.open(job.id)).arrayBuffer());
    for (const heard of [await early, await late]) {
      expect(heard.error).toBeUndefined();
      expect(Buffer.compare(Buffer.concat(heard.pieces), stored)).toBe(0);
      expect(Math.max(...heard.pieces.map((p) => p.byteLength))).toBeLessThanOrEqual(64 * 1024);
    }
    expect((await early).firstAt).toBeLessThan(completedAt);
    // Only the audio and the mark of its run, marked whole, are left.
    expect((await readdir(join(dir, 'audio'))).filter((n) => n.startsWith(job.id)).sort()).toEqual([`${job.id}.live`, `${job.id}.mp3`]);
    expect(await readLiveMark(blobs, job.id)).toMatchObject({ size: stored.byteLength });
    await audio.delete(job.id);
    expect((await readdir(join(dir, 'audio'))).filter((n) => n.startsWith(job.id))).toEqual([]);
  }, 120_000);

  it('publishes a segment once 256 KiB are buffered, or 400 ms after its first byte; a new run removes the previous run’s segments', async () => {
    const job = await processingJob('Segments.');
    const first = LiveSegmentWriter.start(blobs, job.id, log);
    await first.write(new Uint8Array(10).fill(1));
    expect(await blobs.stat(segmentKey(job.id, first.run, 0))).toBeUndefined();
    await sleep(700);
    expect(await blobs.stat(segmentKey(job.id, first.run, 0))).toEqual({ size: 10 });
    await first.write(new Uint8Array(SEGMENT_BYTES).fill(2));
    await first.write(new Uint8Array(1));
    for (let i = 0; i < 20 && !(await blobs.stat(segmentKey(job.id, first.run, 1))); i++) await sleep(50);
    expect(await blobs.stat(segmentKey(job.id, first.run, 1))).toEqual({ size: SEGMENT_BYTES });
    // The first run's worker dies; the job runs again.
    const second = LiveSegmentWriter.start(blobs, job.id, log);
    for (let i = 0; i < 20 && (await readLiveMark(blobs, job.id))?.run !== second.run; i++) await sleep(50);
    expect(await readLiveMark(blobs, job.id)).toEqual({ run: second.run });
    for (let i = 0; i < 20 && (await blobs.stat(segmentKey(job.id, first.run, 0))); i++) await sleep(50);
    expect(await blobs.stat(segmentKey(job.id, first.run, 0))).toBeUndefined();
    expect(await blobs.stat(segmentKey(job.id, first.run, 1))).toBeUndefined();
    await second.write(new Uint8Array(5));
    await second.finish();
    expect(await readLiveMark(blobs, job.id)).toEqual({ run: second.run, size: 5 });
    await second.discard();
    await first.discard();
    expect((await readdir(join(dir, 'audio'))).filter((n) => n.startsWith(job.id))).toEqual([liveKey(job.id)]);
  }, 20_000);

  it('a segment read short of its stored size (a store that shows an object before all its bytes) is read again, not passed on short', async () => {
    const job = await processingJob('Short reads.');
    // The directory, except that each segment's first read gives only its first half.
    const seen = new Set<string>();
    const shortFirstRead: typeof blobs = Object.assign(Object.create(blobs) as LocalBlobStorage, {
      read: async (key: string) => {
        const bytes = await blobs.read(key);
        if (!bytes || !key.includes('.live.') || seen.has(key)) return bytes;
        seen.add(key);
        return bytes.subarray(0, bytes.byteLength >> 1);
      },
    });
    const writer = LiveSegmentWriter.start(blobs, job.id, log);
    const bytes = Buffer.from(Array.from({ length: 3 * SEGMENT_BYTES }, (_, i) => (i * 7) & 0xff));
    const listening = listenAll(new LiveAudio({ store, audio, segments: shortFirstRead }).listen(job.id));
    for (let i = 0; i < bytes.byteLength; i += 100_000) await writer.write(bytes.subarray(i, i + 100_000));
    await writer.finish();
    // The listener follows the run before the job completes (afterwards it would read the stored file).
    await sleep(800);
    await audio.putFile(job.id, await writeTemp(bytes));
    await store.completeJob(job.id, {
      durationSeconds: 1,
      fileSizeBytes: bytes.byteLength,
      completedAt: Date.now(),
      processingTimeMs: 1,
      chargedCentiminutes: 2,
    });
    const heard = await listening;
    expect(heard.error).toBeUndefined();
    expect(Buffer.compare(Buffer.concat(heard.pieces), bytes)).toBe(0);
    expect(seen.size).toBeGreaterThan(1);
    await writer.discard();
  }, 20_000);

  it('a listener of a run that another run replaces ends with an error, as does one of a job that fails: never a short body that looks whole', async () => {
    const here = new LiveAudio({ store, audio, segments: blobs });
    for (const ending of ['another run', 'failed'] as const) {
      const job = await processingJob('Replaced.');
      const dead = LiveSegmentWriter.start(blobs, job.id, log);
      await dead.write(new Uint8Array(1000).fill(7));
      await dead.finish();
      const listening = listenAll(here.listen(job.id));
      await sleep(600);
      if (ending === 'another run') LiveSegmentWriter.start(blobs, job.id, log);
      else await store.failJob(job.id, { code: 'INTERNAL_ERROR', message: 'The engine failed.', completedAt: Date.now() });
      const heard = await listening;
      expect(Buffer.concat(heard.pieces)).toEqual(Buffer.alloc(1000, 7));
      expect(heard.error, ending).toBeInstanceOf(Error);
    }
  }, 20_000);
});

/** The same over an S3-protocol server (s3rver): segments are objects, the rest of the audio a ranged GetObject. */
describe('live audio segments in S3 (s3rver)', () => {
  let dir: string;
  let server: S3Server;
  let store: SqliteStore;
  let blobs: S3BlobStorage;
  let audio: JobFiles;
  let synth: Synthesizer;
  const log = createLogger('silent');
  beforeAll(async () => {
    Object.assign(process.env, S3RVER_CREDENTIALS);
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-segments-s3-'));
    server = await startS3Server();
    store = new SqliteStore(join(dir, 'db.sqlite'));
    const client = createS3Client({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true });
    blobs = new S3BlobStorage({ client, bucket: server.bucket, prefix: 'segments' });
    audio = new JobFiles(blobs);
    synth = createSynthesizer({ threads: 1 });
  });
  afterAll(async () => {
    await synth?.close();
    await store?.close();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a listener elsewhere gets the audio before the job completes and ends with exactly the stored object; the segments go', async () => {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text: longText(80) });
    expect(await store.createJob(job, 1_000_000)).toEqual({ kind: 'created' });
    const here = new LiveAudio({ store, audio, segments: blobs });
    const listening = listenAll(here.listen(job.id));
    expect(await new JobRunner(store, audio, synth, log, undefined, { segments: blobs }).run(job.id)).toBe(true);
    const completedAt = Date.now();
    const heard = await listening;
    const stored = Buffer.from(await new Response(await audio.open(job.id)).arrayBuffer());
    expect(heard.error).toBeUndefined();
    expect(Buffer.compare(Buffer.concat(heard.pieces), stored)).toBe(0);
    expect(heard.firstAt).toBeLessThan(completedAt);
    const mark = await readLiveMark(blobs, job.id);
    expect(mark?.size).toBe(stored.byteLength);
    expect(await blobs.stat(segmentKey(job.id, mark?.run ?? '', 0))).toBeUndefined();
  }, 120_000);
});
