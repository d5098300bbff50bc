import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalBlobStorage } from '../adapters/local-blob-storage.js';
import { JobFiles, jobFileKey, jobKeys, jobOfKey } from './job-files.js';

const job = '0b3c7a52-0d0b-4c8e-9d7e-3f6a1b2c4d5e';

describe('the keys of a job’s files', () => {
  it('are its audio, word timings and captions side by side, and lead back to the job', () => {
    expect(jobKeys(job)).toEqual([`${job}.mp3`, `${job}.timings.json`, `${job}.captions.vtt`, `${job}.captions.srt`, `${job}.live`]);
    expect(jobFileKey(job, 'audio')).toBe(`${job}.mp3`);
    expect(jobFileKey(job, 'srt')).toBe(`${job}.captions.srt`);
    for (const key of jobKeys(job)) expect(jobOfKey(key)).toBe(job);
    // A previous version kept partial writes per job.
    expect(jobOfKey(job)).toBe(job);
    for (const key of ['a/b.mp3', '.mp3', 'x.y.mp3', 'note.txt', `${job}.mp4`]) expect(jobOfKey(key), key).toBeUndefined();
  });
});

describe('JobFiles', () => {
  it('removes a job’s leftovers of the previous layout (.parts/<job>/) with those of its files, and no other job’s', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-tts-job-files-'));
    try {
      const other = '1b3c7a52-0d0b-4c8e-9d7e-3f6a1b2c4d5e';
      const files = new JobFiles(new LocalBlobStorage(dir));
      await mkdir(join(dir, '.parts', job), { recursive: true });
      await writeFile(join(dir, '.parts', job, 'old.part'), 'x');
      const w = await files.createWriter(job);
      const kept = await files.createWriter(other);
      expect((await files.listLeftovers(0)).sort()).toEqual([job, other].sort());
      await files.removeLeftovers(job, 0);
      expect(await files.listLeftovers(0)).toEqual([other]);
      expect(await readdir(join(dir, '.parts'))).toEqual([`${other}.mp3`]);
      await w.abort();
      await kept.abort();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
