import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalAudioStorage } from './local-audio-storage.js';

describe('LocalAudioStorage: partial files in a directory per job', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-audio-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const job = '2f1c7a52-0d0b-4c8e-9d7e-3f6a1b2c4d5e';
  const other = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

  it('puts a job’s parts in <dir>/.parts/<job>, beside nothing else', async () => {
    const parts = await new LocalAudioStorage(dir).preparePartsDir(job);
    expect(parts).toBe(join(dir, '.parts', job));
    expect(await readdir(join(dir, '.parts'))).toEqual([job]);
  });

  it('removes a job’s stale parts and its directory, and leaves other jobs and finished audio alone', async () => {
    const storage = new LocalAudioStorage(dir);
    const mine = await storage.preparePartsDir(job);
    const theirs = await storage.preparePartsDir(other);
    await writeFile(join(mine, `.${job}.mp3.a.part`), 'x');
    await writeFile(join(theirs, `.${other}.mp3.b.part`), 'x');
    await writeFile(storage.pathFor(other), 'mp3');
    await storage.removeLeftovers(job);
    expect(await readdir(join(dir, '.parts'))).toEqual([other]);
    expect(await readdir(theirs)).toEqual([`.${other}.mp3.b.part`]);
    expect(await storage.stat(other)).toEqual({ size: 3 });
  });

  it('in a shared directory keeps fresh parts (another run may be writing) until told to take them all', async () => {
    const storage = new LocalAudioStorage(dir, 60_000);
    const mine = await storage.preparePartsDir(job);
    await writeFile(join(mine, 'fresh.part'), 'x');
    await writeFile(join(mine, 'stale.part'), 'x');
    const old = new Date(Date.now() - 120_000);
    await utimes(join(mine, 'stale.part'), old, old);
    await storage.removeLeftovers(job);
    expect(await readdir(mine)).toEqual(['fresh.part']);
    await storage.removeLeftovers(job, 0);
    expect(await readdir(join(dir, '.parts'))).toEqual([]);
  });

  it('copes with a job that never had parts', async () => {
    await expect(new LocalAudioStorage(dir).removeLeftovers(job)).resolves.toBeUndefined();
  });
});
