import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JobFiles } from '../domain/job-files.js';
import { describeAudioStorageContract } from './audio-storage.contract.js';
import { describeBlobStorageContract } from './blob-storage.contract.js';
import { LocalBlobStorage } from './local-blob-storage.js';

/** Ages the partial files of the keys beginning with `keyPrefix`. */
async function ageParts(dir: string, keyPrefix: string, ms: number): Promise<void> {
  const root = join(dir, '.parts');
  const old = new Date(Date.now() - ms);
  for (const key of await readdir(root).catch(() => [] as string[])) {
    if (!decodeURIComponent(key).startsWith(keyPrefix)) continue;
    for (const name of await readdir(join(root, key)).catch(() => [] as string[])) await utimes(join(root, key, name), old, old);
  }
}

describeBlobStorageContract('local directory', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-tts-blobs-'));
  return {
    blobs: new LocalBlobStorage(dir, 60_000),
    age: (keyPrefix, ms) => ageParts(dir, keyPrefix, ms),
    close: () => rm(dir, { recursive: true, force: true }),
  };
});

describeAudioStorageContract('job files over a local directory', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-tts-audio-'));
  return {
    storage: new JobFiles(new LocalBlobStorage(dir, 60_000)),
    age: (jobId, ms) => ageParts(dir, `${jobId}.`, ms),
    close: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('LocalBlobStorage layout', () => {
  it('keeps partial writes in <dir>/.parts/<key>/, finished audio at <dir>/<job>.mp3 and word timings at <dir>/<job>.timings.json', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-tts-audio-'));
    try {
      const job = '2f1c7a52-0d0b-4c8e-9d7e-3f6a1b2c4d5e';
      const storage = new JobFiles(new LocalBlobStorage(dir));
      const writer = await storage.createWriter(job);
      await writer.write(new Uint8Array([1, 2, 3]));
      expect(await readdir(join(dir, '.parts'))).toEqual([`${job}.mp3`]);
      await writer.commit();
      expect(await readdir(dir)).toEqual(expect.arrayContaining([`${job}.mp3`]));
      expect(await readdir(join(dir, '.parts'))).toEqual([]);
      await storage.putTimings(job, new TextEncoder().encode('{"words":[]}'));
      expect((await readdir(dir)).sort()).toEqual(['.parts', `${job}.mp3`, `${job}.timings.json`]);
      expect(await readFile(join(dir, `${job}.timings.json`), 'utf8')).toBe('{"words":[]}');
      expect(await readdir(join(dir, '.parts'))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps a nested key in subdirectories of <dir>, and its partial writes in one directory of .parts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-tts-blobs-'));
    try {
      const blobs = new LocalBlobStorage(dir);
      const w = await blobs.createWriter('a/b/c.bin');
      expect(await readdir(join(dir, '.parts'))).toEqual(['a%2Fb%2Fc.bin']);
      await w.write(new Uint8Array([9]));
      expect(await blobs.listLeftovers(0)).toEqual(['a/b/c.bin']);
      await w.commit();
      expect(await readFile(join(dir, 'a', 'b', 'c.bin'))).toEqual(Buffer.from([9]));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('JobFiles over a local directory: word timings', () => {
  it('a timings file a dead run left half-written is a leftover like a partial audio file, and is removed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-tts-audio-'));
    try {
      const job = '6b1c7a52-0d0b-4c8e-9d7e-3f6a1b2c4d5e';
      const storage = new JobFiles(new LocalBlobStorage(dir, 60_000));
      await mkdir(join(dir, '.parts', `${job}.timings.json`), { recursive: true });
      await writeFile(join(dir, '.parts', `${job}.timings.json`, 'dead.part'), '{"words":[');
      expect(await storage.readTimings(job)).toBeUndefined();
      await ageParts(dir, job, 10 * 60_000);
      expect(await storage.listLeftovers()).toEqual([job]);
      await storage.removeLeftovers(job);
      expect(await storage.listLeftovers(0)).toEqual([]);
      expect(await readdir(join(dir, '.parts'))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a timings path it cannot read is an error, not "no timings"', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-tts-audio-'));
    try {
      const job = '7c1c7a52-0d0b-4c8e-9d7e-3f6a1b2c4d5e';
      await mkdir(join(dir, `${job}.timings.json`));
      await expect(new JobFiles(new LocalBlobStorage(dir)).readTimings(job)).rejects.toThrow(/EISDIR/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
