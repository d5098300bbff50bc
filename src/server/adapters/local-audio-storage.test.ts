import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
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
  it('keeps partial writes in <dir>/.parts/<job>/ and finished audio at <dir>/<job>.mp3', async () => {
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
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
