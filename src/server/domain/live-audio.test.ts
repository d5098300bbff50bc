import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { longText } from '../../../test/helpers/http.js';
import { newAccount, newJob } from '../adapters/contracts/fixtures.contract.js';
import { LocalLiveAudioFiles } from '../adapters/live-audio-files.js';
import { LocalBlobStorage } from '../adapters/local-blob-storage.js';
import { JobFiles } from './job-files.js';
import { SqliteStore } from '../adapters/sqlite-store.js';
import { createLogger } from '../log.js';
import type { Synthesizer } from '../ports/index.js';
import { createSynthesizer } from '../synth/index.js';
import { JobRunner } from './job-runner.js';
import { LiveAudio } from './live-audio.js';

/** Every piece a listener gets, or the error it ends with. */
async function listenAll(stream: ReadableStream<Uint8Array>): Promise<{ pieces: Uint8Array[]; error?: unknown }> {
  const pieces: Uint8Array[] = [];
  const reader = stream.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) pieces.push(read.value);
    return { pieces };
  } catch (error) {
    return { pieces, error };
  }
}

const joined = (pieces: Uint8Array[]) => Buffer.concat(pieces);

/** The listeners of live audio over real SQLite, a real audio directory, live files and the real engine. */
describe('LiveAudio', () => {
  let dir: string;
  let store: SqliteStore;
  let audio: JobFiles;
  let synth: Synthesizer;
  const log = createLogger('silent');
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-live-'));
    store = new SqliteStore(join(dir, 'db.sqlite'));
    audio = new JobFiles(new LocalBlobStorage(join(dir, 'audio')));
    synth = createSynthesizer({ threads: 1 });
  });
  afterAll(async () => {
    await synth?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function processingJob(text: string) {
    const account = newAccount();
    await store.createAccount(account);
    const job = newJob(account.id, { text });
    expect(await store.createJob(job, 1_000_000)).toEqual({ kind: 'created' });
    return job;
  }

  it('reads a running job from its live file in pieces of at most 64 KiB, ending with the stored file; the live file is removed', async () => {
    const live = new LiveAudio({ store, audio }, { files: new LocalLiveAudioFiles(join(dir, 'live')), log });
    const job = await processingJob(longText(60));
    const running = new JobRunner(store, audio, synth, log, undefined, { live }).run(job.id);
    const [early, late] = [live.listen(job.id), live.listen(job.id)];
    const [first, second] = await Promise.all([listenAll(early), listenAll(late)]);
    await running;
    const stored = Buffer.from(await new Response(await audio.open(job.id)).arrayBuffer());
    for (const heard of [first, second]) {
      expect(heard.error).toBeUndefined();
      expect(Buffer.compare(joined(heard.pieces), stored)).toBe(0);
      expect(Math.max(...heard.pieces.map((p) => p.byteLength))).toBeLessThanOrEqual(64 * 1024);
    }
    expect(first.pieces.length).toBeGreaterThan(1);
    expect(await readdir(join(dir, 'live'))).toEqual([]);
  }, 120_000);

  it('a job run by another process (the distributed mode) is waited for, sending nothing, then served whole from the store', async () => {
    const here = new LiveAudio({ store, audio });
    const job = await processingJob(longText(10));
    const listening = listenAll(here.listen(job.id));
    const early = await Promise.race([listening.then(() => 'ended'), new Promise((r) => setTimeout(() => r('waiting'), 1500))]);
    expect(early).toBe('waiting');
    // The worker elsewhere: a runner this LiveAudio knows nothing of.
    expect(await new JobRunner(store, audio, synth, log).run(job.id)).toBe(true);
    const heard = await listening;
    expect(heard.error).toBeUndefined();
    const stored = Buffer.from(await new Response(await audio.open(job.id)).arrayBuffer());
    expect(Buffer.compare(joined(heard.pieces), stored)).toBe(0);
  }, 60_000);

  it('a waiting listener of a job that fails ends with an error, not a normal end', async () => {
    const here = new LiveAudio({ store, audio });
    const job = await processingJob('It fails elsewhere.');
    const listening = listenAll(here.listen(job.id));
    await store.failJob(job.id, { code: 'INTERNAL_ERROR', message: 'The engine failed. Retry with a new Idempotency-Key.', completedAt: Date.now() });
    const heard = await listening;
    expect(heard.pieces).toEqual([]);
    expect(heard.error).toBeInstanceOf(Error);
  }, 10_000);

  it('a listener that goes away while it waits stops asking the store', async () => {
    let reads = 0;
    const counted = {
      getJob: (id: string) => {
        reads += 1;
        return store.getJob(id);
      },
    };
    const job = await processingJob('Nobody runs this one.');
    const stream = new LiveAudio({ store: counted, audio }).listen(job.id);
    const reader = stream.getReader();
    const pending = reader.read();
    await new Promise((r) => setTimeout(r, 1500));
    expect(reads).toBeGreaterThanOrEqual(2);
    await reader.cancel();
    expect(await pending).toEqual({ done: true, value: undefined });
    const after = reads;
    await new Promise((r) => setTimeout(r, 2500));
    expect(reads).toBeLessThanOrEqual(after + 1);
  }, 10_000);
});
