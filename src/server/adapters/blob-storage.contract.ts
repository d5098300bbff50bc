import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStorage } from '../ports/index.js';

/**
 * The behaviour every BlobStorage adapter owes, by key, written once and run against each adapter (the
 * job-level behaviour over it is audio-storage.contract.ts). `open` gives a storage no other test uses
 * (a fresh directory, a fresh key prefix); `close` removes what it created.
 */
export interface BlobStorageHarness {
  blobs: BlobStorage;
  /** Makes the partial writes of the keys beginning with `keyPrefix` look untouched for `ms`. */
  age(keyPrefix: string, ms: number): Promise<void>;
  close(): Promise<void>;
}

async function readAll(stream: ReadableStream<Uint8Array> | undefined): Promise<Buffer | undefined> {
  if (!stream) return undefined;
  const parts: Uint8Array[] = [];
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(part);
  return Buffer.concat(parts);
}

const bytes = (n: number, seed = 7) => Buffer.from(Array.from({ length: n }, (_, i) => (i * seed + 3) % 256));

export function describeBlobStorageContract(name: string, open: () => Promise<BlobStorageHarness>): void {
  describe(`BlobStorage contract: ${name}`, () => {
    let h: BlobStorageHarness;
    let scratch: string;
    beforeAll(async () => {
      h = await open();
      scratch = await mkdtemp(join(tmpdir(), 'agent-tts-blob-contract-'));
    });
    afterAll(async () => {
      await h?.close();
      await rm(scratch, { recursive: true, force: true });
    });
    const current = (): Opened => ({ h, scratch });

    writing(current);
    deleting(current);
    leftovers(current);
    refusing(current);
  });
}

/** What a test works with: the harness, and a directory for files to put. */
interface Opened {
  h: BlobStorageHarness;
  scratch: string;
}

/** Files put whole or streamed, seen whole once there, never before; read whole, by range and by size. */
function writing(current: () => Opened): void {
  it('puts bytes and files under a key, nested keys included, and reads them back whole, by range and by size', async () => {
    const { h, scratch } = current();
    const { blobs } = h;
    const [a, b] = [`${randomUUID()}.bin`, `d/${randomUUID()}/x.json`];
    expect(await blobs.put(a, bytes(3000))).toEqual({ size: 3000 });
    const path = join(scratch, 'in.bin');
    await writeFile(path, bytes(10, 3));
    expect(await blobs.put(b, { path }, 'application/json')).toEqual({ size: 10 });
    expect(await blobs.stat(a)).toEqual({ size: 3000 });
    expect(await readAll(await blobs.open(a))).toEqual(bytes(3000));
    expect(await readAll(await blobs.open(a, { start: 2999, end: 2999 }))).toEqual(bytes(3000).subarray(2999));
    expect(await readAll(await blobs.open(a, { start: 0, end: 0 }))).toEqual(bytes(3000).subarray(0, 1));
    expect(Buffer.from((await blobs.read(b)) ?? [])).toEqual(bytes(10, 3));
    // Replaced whole.
    await blobs.put(a, bytes(5, 5));
    expect(Buffer.from((await blobs.read(a)) ?? [])).toEqual(bytes(5, 5));
  });

  it('shows nothing under a key until its writer commits; an aborted writer leaves the committed file and no leftover', async () => {
    const { blobs } = current().h;
    const key = `${randomUUID()}.mp3`;
    const w = await blobs.createWriter(key, 'audio/mpeg');
    await w.write(bytes(100));
    expect(await blobs.stat(key)).toBeUndefined();
    expect(await blobs.open(key)).toBeUndefined();
    expect(await blobs.read(key)).toBeUndefined();
    expect(await w.commit()).toEqual({ size: 100 });
    const failed = await blobs.createWriter(key);
    await failed.write(bytes(7));
    await failed.abort();
    await failed.abort();
    expect(await readAll(await blobs.open(key))).toEqual(bytes(100));
    expect(await blobs.listLeftovers(0)).not.toContain(key);
  });
}

/** Keys deleted one or many at once; what is absent is no error. */
function deleting(current: () => Opened): void {
  it('deletes keys in one call, absent keys and an empty list being no error, other keys left alone', async () => {
    const { blobs } = current().h;
    const keys = Array.from({ length: 4 }, () => `${randomUUID()}.bin`);
    const kept = `${randomUUID()}.bin`;
    for (const key of [...keys, kept]) await blobs.put(key, bytes(4));
    await blobs.delete(keys.slice(0, 1));
    await blobs.delete([...keys.slice(1), `${randomUUID()}.none`]);
    await blobs.delete([]);
    for (const key of keys) expect(await blobs.stat(key)).toBeUndefined();
    expect(await blobs.stat(kept)).toEqual({ size: 4 });
  });
}

/** The partial writes of dead writers are found by key once stale, and removed by key prefix. */
function leftovers(current: () => Opened): void {
  it('lists keys whose partial writes are stale and removes those under a prefix, leaving fresh ones and other prefixes alone', async () => {
    const { h } = current();
    const { blobs } = h;
    const [dead, alive, other] = [randomUUID(), randomUUID(), randomUUID()];
    const deadWriter = await blobs.createWriter(`${dead}.mp3`);
    await deadWriter.write(bytes(10));
    const aliveWriter = await blobs.createWriter(`${alive}.mp3`);
    await aliveWriter.write(bytes(10));
    const otherWriter = await blobs.createWriter(`${other}.mp3`);
    await h.age(`${dead}.`, 10 * 60_000);
    await h.age(`${other}.`, 10 * 60_000);
    const stale = await blobs.listLeftovers(5 * 60_000);
    expect(stale).toEqual(expect.arrayContaining([`${dead}.mp3`, `${other}.mp3`]));
    expect(stale).not.toContain(`${alive}.mp3`);
    await blobs.removeLeftovers(`${dead}.`, 5 * 60_000);
    await blobs.removeLeftovers(`${alive}.`, 5 * 60_000);
    const left = await blobs.listLeftovers(0);
    expect(left).not.toContain(`${dead}.mp3`);
    expect(left).toEqual(expect.arrayContaining([`${alive}.mp3`, `${other}.mp3`]));
    await aliveWriter.write(bytes(5));
    expect(await aliveWriter.commit()).toEqual({ size: 15 });
    await blobs.removeLeftovers(`${other}.`, 0);
    expect(await blobs.listLeftovers(0)).not.toContain(`${alive}.mp3`);
    expect(await blobs.listLeftovers(0)).not.toContain(`${other}.mp3`);
    await otherWriter.abort();
    await deadWriter.abort();
    await expect(blobs.removeLeftovers(`${randomUUID()}.`)).resolves.toBeUndefined();
  });
}

/** Keys that would reach outside the storage or into its bookkeeping are refused; ping answers. */
function refusing(current: () => Opened): void {
  it('refuses keys that would leave the storage or reach its bookkeeping, touching nothing', async () => {
    const { blobs } = current().h;
    for (const key of ['../escape', 'a/../../b', '/abs', '.parts/x', '.uploads/x', 'a//b', '', 'a/./b', 'sp ace']) {
      await expect(blobs.put(key, bytes(1)), key).rejects.toThrow(/not a storage key/);
      await expect(blobs.stat(key), key).rejects.toThrow(/not a storage key/);
      await expect(blobs.open(key), key).rejects.toThrow(/not a storage key/);
      await expect(blobs.read(key), key).rejects.toThrow(/not a storage key/);
      await expect(blobs.createWriter(key), key).rejects.toThrow(/not a storage key/);
      await expect(blobs.delete([key]), key).rejects.toThrow(/not a storage key/);
    }
  });

  it('answers ping', async () => {
    await expect(current().h.blobs.ping()).resolves.toBeUndefined();
  });
}
