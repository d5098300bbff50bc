import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createSynthesizer } from '../synth/index.js';
import { JobRunner } from '../domain/job-runner.js';
import { describeJobQueueContract } from './job-queue.contract.js';
import { JobFiles } from '../domain/job-files.js';
import { LocalBlobStorage } from './local-blob-storage.js';
import { LocalJobQueue } from './local-queue.js';
import { SqliteStore } from './sqlite-store.js';

describeJobQueueContract('LocalJobQueue', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-tts-queue-'));
  const log = pino({ level: 'silent' });
  const store = new SqliteStore(join(dir, 'store.sqlite'));
  const audio = new JobFiles(new LocalBlobStorage(dir));
  const synth = createSynthesizer({ engine: 'espeak', threads: 1 });
  const runner = new JobRunner(store, audio, synth, log);
  const runs = new Map<string, number>();
  const counting = {
    run(jobId: string, signal?: AbortSignal) {
      runs.set(jobId, (runs.get(jobId) ?? 0) + 1);
      return runner.run(jobId, signal);
    },
  };
  const queue = new LocalJobQueue(counting, 2, log);
  return {
    queue,
    store,
    audio,
    runsOf: (jobId) => runs.get(jobId) ?? 0,
    async close() {
      await queue.close();
      await synth.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
