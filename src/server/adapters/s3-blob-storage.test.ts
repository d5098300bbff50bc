import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, S3RVER_CREDENTIALS, type S3Server } from '../../../test/helpers/s3.js';
import { startTcpProxy, type TcpProxy } from '../../../test/helpers/tcp-proxy.js';
import { JobFiles } from '../domain/job-files.js';
import { describeAudioStorageContract } from './audio-storage.contract.js';
import { describeBlobStorageContract } from './blob-storage.contract.js';
import { parseS3Url } from '../config/s3.js';
import { S3BlobStorage } from './s3-blob-storage.js';
import { createS3Client } from './s3/client.js';
import { S3_DELETE_BATCH } from './s3/deletion.js';
import { S3_PART_BYTES } from './s3/upload.js';
import { AudioStorageUnavailableError } from '../ports/index.js';

Object.assign(process.env, S3RVER_CREDENTIALS);

let server: S3Server | undefined;
async function s3(): Promise<S3Server> {
  server ??= await startS3Server();
  return server;
}
afterAll(async () => {
  await server?.close();
});

function blobsOn(s: S3Server, prefix = `t-${randomUUID()}`): S3BlobStorage {
  const client = createS3Client({ endpoint: s.endpoint, region: 'us-east-1', forcePathStyle: true });
  return new S3BlobStorage({ client, bucket: s.bucket, prefix });
}

/** A job's files in the bucket under `prefix`. */
const storageOn = (s: S3Server, prefix?: string) => new JobFiles(blobsOn(s, prefix));

describeBlobStorageContract('S3 (s3rver)', async () => {
  const blobs = blobsOn(await s3());
  return {
    blobs,
    age: (keyPrefix, ms) => blobs.restampMarkers(keyPrefix, (m) => m.touchedAt - ms),
    close: async () => undefined,
  };
});

describeAudioStorageContract('job files over S3 (s3rver)', async () => {
  const blobs = blobsOn(await s3());
  return {
    storage: new JobFiles(blobs),
    age: (jobId, ms) => blobs.restampMarkers(`${jobId}.`, (m) => m.touchedAt - ms),
    close: async () => undefined,
  };
});

describe('S3BlobStorage', () => {
  let s: S3Server;
  beforeAll(async () => {
    s = await s3();
  });

  it('streams a file of several parts into one object at <prefix>/<job>.mp3, nothing before commit; word timings at <prefix>/<job>.timings.json', async () => {
    const storage = storageOn(s, 'audio/p1');
    const job = randomUUID();
    const w = await storage.createWriter(job);
    const chunk = Buffer.alloc(1024 * 1024, 7);
    for (let i = 0; i < 11; i++) await w.write(chunk);
    expect(await storage.stat(job)).toBeUndefined();
    expect(await w.commit()).toEqual({ size: 11 * 1024 * 1024 });
    expect(11 * 1024 * 1024).toBeGreaterThan(2 * S3_PART_BYTES);
    const client = createS3Client({ endpoint: s.endpoint, forcePathStyle: true });
    await storage.putTimings(job, new TextEncoder().encode('{"words":[]}'));
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s.bucket, Prefix: 'audio/p1/' }));
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual([`audio/p1/${job}.mp3`, `audio/p1/${job}.timings.json`]);
    const tail = await storage.open(job, 'audio', { start: 11 * 1024 * 1024 - 3, end: 11 * 1024 * 1024 - 1 });
    const parts: Uint8Array[] = [];
    for await (const p of tail as unknown as AsyncIterable<Uint8Array>) parts.push(p);
    expect(Buffer.concat(parts)).toEqual(Buffer.from([7, 7, 7]));
  });

  it('deletes many jobs (audio and word timings) with DeleteObjects requests of at most 1000 keys', async () => {
    const client = createS3Client({ endpoint: s.endpoint, region: 'us-east-1', forcePathStyle: true });
    const batches: number[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'DeleteObjectsCommand') batches.push((args.input as { Delete: { Objects: unknown[] } }).Delete.Objects.length);
        return next(args);
      },
      { step: 'initialize' },
    );
    const storage = new JobFiles(new S3BlobStorage({ client, bucket: s.bucket, prefix: `t-${randomUUID()}` }));
    const stored = [randomUUID(), randomUUID()];
    for (const job of stored) {
      const w = await storage.createWriter(job);
      await w.write(Buffer.alloc(10, 1));
      await w.commit();
      await storage.putTimings(job, new TextEncoder().encode('{}'));
      await storage.putTimings(job, new TextEncoder().encode('WEBVTT\n'), 'vtt');
      await storage.putTimings(job, new TextEncoder().encode('1\n'), 'srt');
    }
    // 2,001 ids, five keys each (audio, word timings, WebVTT, SRT and the mark of its live audio), the stored ones in the first and the last batch.
    const ids = [stored[0]!, ...Array.from({ length: 1999 }, () => randomUUID()), stored[1]!];
    await storage.deleteMany(ids);
    expect(batches).toEqual([...Array.from({ length: 10 }, () => S3_DELETE_BATCH), 5]);
    for (const job of stored) {
      expect(await storage.stat(job)).toBeUndefined();
      expect(await storage.readTimings(job)).toBeUndefined();
      expect(await storage.stat(job, 'vtt')).toBeUndefined();
      expect(await storage.stat(job, 'srt')).toBeUndefined();
    }
  });

  it('deletes one job’s five files with a DeleteObject each (which every S3-protocol server has), not DeleteObjects', async () => {
    const client = createS3Client({ endpoint: s.endpoint, region: 'us-east-1', forcePathStyle: true });
    const commands: string[] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        commands.push(context.commandName ?? '');
        return next(args);
      },
      { step: 'initialize' },
    );
    const storage = new JobFiles(new S3BlobStorage({ client, bucket: s.bucket, prefix: `t-${randomUUID()}` }));
    const job = randomUUID();
    await storage.putTimings(job, new TextEncoder().encode('{}'));
    commands.length = 0;
    await storage.delete(job);
    expect(commands.sort()).toEqual(Array.from({ length: 5 }, () => 'DeleteObjectCommand'));
    expect(await storage.readTimings(job)).toBeUndefined();
  });

  it('reports an unreachable store as AudioStorageUnavailableError naming the bucket, without credentials', async () => {
    const client = createS3Client({ endpoint: 'http://127.0.0.1:9', forcePathStyle: true });
    const storage = new JobFiles(new S3BlobStorage({ client, bucket: 'nowhere', prefix: 'x' }));
    const error = await storage.ping().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AudioStorageUnavailableError);
    expect(String((error as Error).message)).toContain('s3://nowhere/x/');
    expect(String((error as Error).message)).not.toContain('S3RVER');
    await expect(storage.stat(randomUUID())).rejects.toBeInstanceOf(AudioStorageUnavailableError);
    await expect(storage.open(randomUUID())).rejects.toBeInstanceOf(AudioStorageUnavailableError);
    await expect(storage.deleteMany([randomUUID()])).rejects.toBeInstanceOf(AudioStorageUnavailableError);
    await expect(storage.putTimings(randomUUID(), new Uint8Array(2))).rejects.toBeInstanceOf(AudioStorageUnavailableError);
    await expect(storage.readTimings(randomUUID())).rejects.toBeInstanceOf(AudioStorageUnavailableError);
    await expect(storage.delete(randomUUID())).rejects.toBeInstanceOf(AudioStorageUnavailableError);
  });

  describe('behind a relay that can hang (accepts connections, never answers)', () => {
    let proxy: TcpProxy;
    let scratch: string;
    beforeAll(async () => {
      proxy = await startTcpProxy({ port: Number(new URL(s.endpoint).port) });
      scratch = await mkdtemp(join(tmpdir(), 'agent-tts-s3-hung-'));
    });
    afterAll(async () => {
      await proxy?.close();
      await rm(scratch, { recursive: true, force: true });
    });

    /** How long `call` took to fail, and with what. */
    async function failure(call: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
      const started = Date.now();
      const error = await call().then(
        () => new Error('the call succeeded'),
        (e: unknown) => e,
      );
      return { ms: Date.now() - started, error };
    }

    it('a hung store fails every call within its deadline, as unreachable, naming no credentials', async () => {
      proxy.relay();
      const client = createS3Client({ endpoint: proxy.endpoint, forcePathStyle: true, connectTimeoutMs: 500, requestTimeoutMs: 1_000 });
      const storage = new JobFiles(new S3BlobStorage({ client, bucket: s.bucket, prefix: `hung-${randomUUID()}`, requestTimeoutMs: 1_000 }));
      // Through the relay while it relays: the client now holds open (keep-alive) connections too.
      const stored = randomUUID();
      const w = await storage.createWriter(stored);
      await w.write(Buffer.alloc(1000, 1));
      await w.commit();
      const pending = await storage.createWriter(randomUUID());
      await pending.write(Buffer.alloc(1000, 2));
      const file = join(scratch, 'a.mp3');
      await writeFile(file, Buffer.alloc(2000, 3));

      proxy.hang();
      // The adapter's own requests: one deadline (1 s) for all the SDK's attempts.
      const calls: Record<string, () => Promise<unknown>> = {
        ping: () => storage.ping(),
        stat: () => storage.stat(stored),
        open: () => storage.open(stored),
        delete: () => storage.delete(stored),
        deleteMany: () => storage.deleteMany([stored]),
        listLeftovers: () => storage.listLeftovers(),
        removeLeftovers: () => storage.removeLeftovers(stored, 0),
        createWriter: () => storage.createWriter(randomUUID()),
        putTimings: () => storage.putTimings(stored, new TextEncoder().encode('{}')),
        readTimings: () => storage.readTimings(stored),
      };
      const small = await Promise.all(Object.entries(calls).map(async ([name, call]) => ({ name, ...(await failure(call)) })));
      for (const { name, ms, error } of small) {
        expect(error, name).toBeInstanceOf(AudioStorageUnavailableError);
        expect((error as Error).message, name).toMatch(/no answer within 1000 ms/);
        expect((error as Error).message, name).not.toMatch(/S3RVER|127\.0\.0\.1/);
        expect(ms, name).toBeLessThan(2_500);
      }
      // Audio transfers: the client's idle timeout (1 s) for each of the SDK's 3 attempts.
      const uploads = await Promise.all([failure(() => storage.putFile(randomUUID(), file)), failure(() => pending.commit())]);
      for (const { ms, error } of uploads) {
        expect(error).toBeInstanceOf(AudioStorageUnavailableError);
        expect(ms).toBeLessThan(10_000);
      }
      proxy.relay();
    }, 30_000);

    it('an upload that keeps moving is not cut off: the timeout is one of silence, not of length', async () => {
      // 4 MB/s a connection (two parts in flight): the 30 MB take about 4 s, longer than the timeout of
      // 3 s; no connection stays silent that long (loopback's buffers hold about 1 s of it).
      const slow = await startTcpProxy({ port: Number(new URL(s.endpoint).port) }, { bytesPerSecond: 4_000_000 });
      try {
        const client = createS3Client({ endpoint: slow.endpoint, forcePathStyle: true, connectTimeoutMs: 500, requestTimeoutMs: 3_000 });
        const storage = new JobFiles(new S3BlobStorage({ client, bucket: s.bucket, prefix: `slow-${randomUUID()}`, requestTimeoutMs: 3_000 }));
        const file = join(scratch, 'slow.mp3');
        await writeFile(file, Buffer.alloc(30_000_000, 5));
        const job = randomUUID();
        const started = Date.now();
        expect(await storage.putFile(job, file)).toEqual({ size: 30_000_000 });
        expect(Date.now() - started).toBeGreaterThan(3_000);
        expect(await storage.stat(job)).toEqual({ size: 30_000_000 });
      } finally {
        await slow.close();
      }
    }, 60_000);
  });

  it('finds and removes the upload markers a previous version kept per job (.uploads/<job>/), as that job’s leftovers', async () => {
    const prefix = `t-${randomUUID()}`;
    const blobs = blobsOn(s, prefix);
    const files = new JobFiles(blobs);
    const job = randomUUID();
    const client = createS3Client({ endpoint: s.endpoint, forcePathStyle: true });
    const marker = `${prefix}/.uploads/${job}/0123abcd.${Date.now() - 3_600_000}`;
    await client.send(new PutObjectCommand({ Bucket: s.bucket, Key: marker, Body: new Uint8Array(0) }));
    expect(await files.listLeftovers()).toEqual([job]);
    await files.removeLeftovers(job);
    expect(await blobs.listMarkers()).toEqual([]);
  });

  it('parses s3:// URLs', () => {
    expect(parseS3Url('s3://my-bucket/a/b/')).toEqual({ bucket: 'my-bucket', prefix: 'a/b' });
    expect(parseS3Url('s3://my-bucket')).toEqual({ bucket: 'my-bucket', prefix: '' });
    expect(parseS3Url('s3://B/x')).toBeUndefined();
    expect(parseS3Url('s3://bucket/../x')).toBeUndefined();
    expect(parseS3Url('/data/audio')).toBeUndefined();
  });
});
