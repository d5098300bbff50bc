import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSynthesizer, type Synthesizer } from '../../synth/index.js';
import { LocalAudioStorage } from '../adapters/local-audio-storage.js';
import { SqliteStore } from '../adapters/sqlite-store.js';
import { newAccount, newJob } from '../adapters/store.contract.js';
import { createLogger } from '../log.js';
import { JobRunner } from './job-runner.js';

describe('JobRunner', () => {
  let dir: string;
  let store: SqliteStore;
  let audio: LocalAudioStorage;
  let synth: Synthesizer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-runner-'));
    store = new SqliteStore(join(dir, 'db.sqlite'));
    audio = new LocalAudioStorage(join(dir, 'audio'));
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
