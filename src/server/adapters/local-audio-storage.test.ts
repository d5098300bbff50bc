import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeAudioStorageContract } from './audio-storage.contract.js';
import { LocalAudioStorage } from './local-audio-storage.js';

async function ageParts(dir: string, jobId: string, ms: number): Promise<void> {
  const parts = join(dir, '.parts', jobId);
  const old = new Date(Date.now() - ms);
  for (const name of await readdir(parts).catch(() => [] as string[])) await utimes(join(parts, name), old, old);
}

describeAudioStorageContract('local directory', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-tts-audio-'));
  return {
    storage: new LocalAudioStorage(dir, 60_000),
    age: (jobId, ms) => ageParts(dir, jobId, ms),
    close: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('LocalAudioStorage layout', () => {
  it('keeps partial writes in <dir>/.parts/<job>/, finished audio at <dir>/<job>.mp3 and word timings at <dir>/<job>.timings.json', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-tts-audio-'));
    try {
      const job = '2f1c7a52-0d0b-4c8e-9d7e-3f6a1b2c4d5e';
      const storage = new LocalAudioStorage(dir);
      const writer = await storage.createWriter(job);
      await writer.write(new Uint8Array([1, 2, 3]));
      expect(await readdir(join(dir, '.parts'))).toEqual([job]);
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
});

describe('LocalAudioStorage word timings', () => {
  it('a timings file a dead run left half-written is a leftover like a partial audio file, and is removed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-tts-audio-'));
    try {
      const job = '6b1c7a52-0d0b-4c8e-9d7e-3f6a1b2c4d5e';
      const storage = new LocalAudioStorage(dir, 60_000);
      await mkdir(join(dir, '.parts', job), { recursive: true });
      await writeFile(join(dir, '.parts', job, 'dead.timings.part'), '{"words":[');
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
      await expect(new LocalAudioStorage(dir).readTimings(job)).rejects.toThrow(/EISDIR/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
