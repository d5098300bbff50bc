import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AudioStorage } from '../domain/job-files.js';

/**
 * The behaviour the AudioStorage (domain/job-files.ts's JobFiles) owes the job runner, the audio
 * route, the retention sweep and the admin CLI, written once and run over each BlobStorage adapter
 * (a local directory, S3). `open` gives a storage no other test uses (a fresh directory, a fresh key
 * prefix); `close` removes what it created.
 */
export interface AudioStorageHarness {
  storage: AudioStorage;
  /** Makes the partial writes of this job look untouched for `ms` (to test staleness without waiting). */
  age(jobId: string, ms: number): Promise<void>;
  close(): Promise<void>;
}

/** What a test works with: the harness, its storage, and a directory for files to store. */
interface Opened {
  h: AudioStorageHarness;
  storage: AudioStorage;
  scratch: string;
}

async function readAll(stream: ReadableStream<Uint8Array> | undefined): Promise<Buffer | undefined> {
  if (!stream) return undefined;
  const parts: Uint8Array[] = [];
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(part);
  return Buffer.concat(parts);
}

const bytes = (n: number, seed = 7) => Buffer.from(Array.from({ length: n }, (_, i) => (i * seed + 3) % 256));

export function describeAudioStorageContract(name: string, open: () => Promise<AudioStorageHarness>): void {
  describe(`AudioStorage contract: ${name}`, () => {
    let h: AudioStorageHarness;
    let scratch: string;
    beforeAll(async () => {
      h = await open();
      scratch = await mkdtemp(join(tmpdir(), 'agent-tts-audio-contract-'));
    });
    afterAll(async () => {
      await h?.close();
      await rm(scratch, { recursive: true, force: true });
    });
    const current = (): Opened => ({ h, storage: h.storage, scratch });

    it('answers ping', async () => {
      const { storage } = current();
      await expect(storage.ping()).resolves.toBeUndefined();
    });

    writing(current);
    timings(current);
    captions(current);
    deleting(current);
    leftovers(current);
  });
}

/** Audio is seen whole once committed, never before; aborted and repeated runs; ranges; finished files. */
function writing(current: () => Opened): void {
  it('shows nothing of a job until its writer commits, then all of it', async () => {
    const { storage } = current();
    const job = randomUUID();
    const writer = await storage.createWriter(job);
    await writer.write(bytes(1000));
    await writer.write(bytes(2345, 11));
    expect(await storage.stat(job)).toBeUndefined();
    expect(await storage.open(job)).toBeUndefined();
    expect(await writer.commit()).toEqual({ size: 3345 });
    expect(await storage.stat(job)).toEqual({ size: 3345 });
    expect(await readAll(await storage.open(job))).toEqual(Buffer.concat([bytes(1000), bytes(2345, 11)]));
  });

  it('serves byte ranges, first, middle and last byte included', async () => {
    const { storage } = current();
    const job = randomUUID();
    const content = bytes(5000, 13);
    const writer = await storage.createWriter(job);
    await writer.write(content);
    await writer.commit();
    expect(await readAll(await storage.open(job, 'audio', { start: 0, end: 0 }))).toEqual(content.subarray(0, 1));
    expect(await readAll(await storage.open(job, 'audio', { start: 100, end: 4099 }))).toEqual(content.subarray(100, 4100));
    expect(await readAll(await storage.open(job, 'audio', { start: 4999, end: 4999 }))).toEqual(content.subarray(4999));
  });

  it('an aborted writer leaves neither audio nor leftovers, and a committed audio survives a later aborted run', async () => {
    const { storage } = current();
    const job = randomUUID();
    const first = await storage.createWriter(job);
    await first.write(bytes(10));
    await first.abort();
    await first.abort();
    expect(await storage.stat(job)).toBeUndefined();
    expect(await storage.listLeftovers(0)).not.toContain(job);

    const ok = await storage.createWriter(job);
    await ok.write(bytes(64));
    await ok.commit();
    const failed = await storage.createWriter(job);
    await failed.write(bytes(8));
    await failed.abort();
    expect(await readAll(await storage.open(job))).toEqual(bytes(64));
  });

  it('a second commit replaces the audio (a duplicate run), whole', async () => {
    const { storage } = current();
    const job = randomUUID();
    for (const size of [300, 120]) {
      const w = await storage.createWriter(job);
      await w.write(bytes(size, size));
      await w.commit();
    }
    expect(await readAll(await storage.open(job))).toEqual(bytes(120, 120));
  });

  it('stores a finished file', async () => {
    const { storage, scratch } = current();
    const job = randomUUID();
    const path = join(scratch, 'in.mp3');
    await writeFile(path, bytes(777));
    expect(await storage.putFile(job, path)).toEqual({ size: 777 });
    expect(await readAll(await storage.open(job))).toEqual(bytes(777));
  });
}

/** A job's word timings: stored whole beside its audio, read back, replaced; never taken for audio. */
function timings(current: () => Opened): void {
  const json = (n: number) => new TextEncoder().encode(JSON.stringify({ job: n, words: Array.from({ length: n }, (_, i) => `w${i}`) }));

  it('stores word timings and reads them back byte for byte; a job without any reads undefined', async () => {
    const { storage } = current();
    const job = randomUUID();
    expect(await storage.readTimings(job)).toBeUndefined();
    await storage.putTimings(job, json(3));
    expect(Buffer.from((await storage.readTimings(job)) ?? [])).toEqual(Buffer.from(json(3)));
    expect(await storage.readTimings(randomUUID())).toBeUndefined();
  });

  it('replaces word timings whole (a duplicate run), and keeps them apart from the audio and from other jobs', async () => {
    const { storage } = current();
    const [job, other] = [randomUUID(), randomUUID()];
    await storage.putTimings(job, json(5000));
    await storage.putTimings(other, json(1));
    await storage.putTimings(job, json(2));
    expect(Buffer.from((await storage.readTimings(job)) ?? [])).toEqual(Buffer.from(json(2)));
    expect(Buffer.from((await storage.readTimings(other)) ?? [])).toEqual(Buffer.from(json(1)));
    // Timings alone are no audio, and leave nothing that looks like a dead run's partial write.
    expect(await storage.stat(job)).toBeUndefined();
    expect(await storage.open(job)).toBeUndefined();
    expect(await storage.listLeftovers(0)).not.toContain(job);
    const w = await storage.createWriter(job);
    await w.write(bytes(10));
    await w.commit();
    expect(await storage.stat(job)).toEqual({ size: 10 });
    expect(Buffer.from((await storage.readTimings(job)) ?? [])).toEqual(Buffer.from(json(2)));
  });
}

/** A job's captions (WebVTT, SRT): stored beside its word timings, sized from metadata, streamed, each format apart. */
function captions(current: () => Opened): void {
  const vtt = (n: number) =>
    new TextEncoder().encode(`WEBVTT\n\n${Array.from({ length: n }, (_, i) => `${i + 1}\n00:00:00.000 --> 00:00:01.000\nw${i}\n`).join('\n')}`);
  const srt = new TextEncoder().encode('1\n00:00:00,000 --> 00:00:01,000\nw\n');

  it('stores each caption format apart from the word timings, and serves it by size and as a stream, byte for byte', async () => {
    const { storage } = current();
    const job = randomUUID();
    for (const format of ['json', 'vtt', 'srt'] as const) {
      expect(await storage.stat(job, format)).toBeUndefined();
      expect(await storage.open(job, format)).toBeUndefined();
    }
    await storage.putTimings(job, new TextEncoder().encode('{"cues":[]}'));
    expect(await storage.stat(job, 'vtt')).toBeUndefined();
    await storage.putTimings(job, vtt(2000), 'vtt');
    await storage.putTimings(job, srt, 'srt');
    expect(await storage.stat(job, 'vtt')).toEqual({ size: vtt(2000).byteLength });
    expect(await storage.stat(job, 'srt')).toEqual({ size: srt.byteLength });
    expect(await storage.stat(job, 'json')).toEqual({ size: 11 });
    expect(await readAll(await storage.open(job, 'vtt'))).toEqual(Buffer.from(vtt(2000)));
    expect(await readAll(await storage.open(job, 'srt'))).toEqual(Buffer.from(srt));
    expect(await readAll(await storage.open(job, 'json'))).toEqual(Buffer.from('{"cues":[]}'));
    expect(Buffer.from((await storage.readTimings(job, 'vtt')) ?? [])).toEqual(Buffer.from(vtt(2000)));
    // Replaced whole; captions are neither audio nor a dead run's leftovers.
    await storage.putTimings(job, vtt(1), 'vtt');
    expect(await readAll(await storage.open(job, 'vtt'))).toEqual(Buffer.from(vtt(1)));
    expect(await storage.stat(job)).toBeUndefined();
    expect(await storage.listLeftovers(0)).not.toContain(job);
  });

  it('deletes the captions with the audio and the word timings, one job or several', async () => {
    const { storage } = current();
    const [one, many, kept] = [randomUUID(), randomUUID(), randomUUID()];
    for (const job of [one, many, kept]) {
      await storage.putTimings(job, new TextEncoder().encode('{}'));
      await storage.putTimings(job, vtt(3), 'vtt');
      await storage.putTimings(job, srt, 'srt');
    }
    await storage.delete(one);
    await storage.deleteMany([many]);
    for (const job of [one, many]) {
      for (const format of ['json', 'vtt', 'srt'] as const) expect(await storage.stat(job, format)).toBeUndefined();
    }
    expect(await storage.stat(kept, 'vtt')).toEqual({ size: vtt(3).byteLength });
    expect(await storage.stat(kept, 'srt')).toEqual({ size: srt.byteLength });
  });
}

/** Audio is deleted by job, one or several at once; what is absent is no error. */
function deleting(current: () => Opened): void {
  it('deletes audio and word timings, and deleting what is absent is not an error', async () => {
    const { storage } = current();
    const job = randomUUID();
    const w = await storage.createWriter(job);
    await w.write(bytes(5));
    await w.commit();
    await storage.putTimings(job, new TextEncoder().encode('{}'));
    await storage.delete(job);
    expect(await storage.stat(job)).toBeUndefined();
    expect(await storage.readTimings(job)).toBeUndefined();
    await expect(storage.delete(job)).resolves.toBeUndefined();
    await expect(storage.delete(randomUUID())).resolves.toBeUndefined();
  });

  it('deletes the audio and word timings of several jobs in one call, leaving other jobs alone; absent ids and an empty list are no error', async () => {
    const { storage } = current();
    const gone = [randomUUID(), randomUUID(), randomUUID()];
    const kept = randomUUID();
    for (const job of [...gone, kept]) {
      const w = await storage.createWriter(job);
      await w.write(bytes(9));
      await w.commit();
      await storage.putTimings(job, new TextEncoder().encode(`"${job}"`));
    }
    // A job with timings and no audio (its audio already gone) loses them too.
    const timingsOnly = randomUUID();
    await storage.putTimings(timingsOnly, new TextEncoder().encode('[]'));
    await storage.deleteMany([...gone, timingsOnly, randomUUID()]);
    for (const job of [...gone, timingsOnly]) {
      expect(await storage.stat(job)).toBeUndefined();
      expect(await storage.readTimings(job)).toBeUndefined();
    }
    expect(await storage.stat(kept)).toEqual({ size: 9 });
    expect(new TextDecoder().decode(await storage.readTimings(kept))).toBe(`"${kept}"`);
    await expect(storage.deleteMany(gone)).resolves.toBeUndefined();
    await expect(storage.deleteMany([])).resolves.toBeUndefined();
  });
}

/** The partial writes a dead run left behind are found once stale and removed. */
function leftovers(current: () => Opened): void {
  it('finds and removes the partial writes of a dead run once stale, and leaves fresh ones and other jobs alone', async () => {
    const { h, storage } = current();
    const dead = randomUUID();
    const alive = randomUUID();
    const deadWriter = await storage.createWriter(dead);
    await deadWriter.write(bytes(50));
    const aliveWriter = await storage.createWriter(alive);
    await aliveWriter.write(bytes(50));
    await h.age(dead, 10 * 60_000);

    const stale = await storage.listLeftovers(5 * 60_000);
    expect(stale).toContain(dead);
    expect(stale).not.toContain(alive);
    await storage.removeLeftovers(dead, 5 * 60_000);
    await storage.removeLeftovers(alive, 5 * 60_000);
    expect(await storage.listLeftovers(0)).not.toContain(dead);
    expect(await storage.listLeftovers(0)).toContain(alive);

    // The live run still commits.
    await aliveWriter.write(bytes(10));
    expect(await aliveWriter.commit()).toEqual({ size: 60 });
    expect(await storage.listLeftovers(0)).not.toContain(alive);
  });

  it('removes every partial write of a job when told to take them all', async () => {
    const { storage } = current();
    const job = randomUUID();
    const w = await storage.createWriter(job);
    await w.write(bytes(20));
    await storage.removeLeftovers(job, 0);
    expect(await storage.listLeftovers(0)).not.toContain(job);
    expect(await storage.stat(job)).toBeUndefined();
    await w.abort();
  });

  it('copes with a job that never had anything', async () => {
    const { storage } = current();
    const job = randomUUID();
    await expect(storage.removeLeftovers(job)).resolves.toBeUndefined();
    expect(await storage.open(job)).toBeUndefined();
    expect(await storage.stat(job)).toBeUndefined();
  });
}
