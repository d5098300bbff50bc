import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileSpool } from '../adapters/file-spool.js';
import { LocalBlobStorage } from '../adapters/local-blob-storage.js';
import { type AudioStorage, JobFiles } from './job-files.js';
import { createLogger } from '../log.js';
import { type AudioSpoolFile, AudioStorageUnavailableError } from '../ports/index.js';
import { JobAudioWrite, storeUnreachable } from './job-audio.js';
import { LiveRun } from './live-audio.js';
import { LocalLiveAudioFiles } from '../adapters/live-audio-files.js';

interface LogLine {
  level: number;
  msg: string;
  job_id?: string;
  err?: { name?: string; message?: string };
}

const WARN = 40;

/** A logger whose lines (warnings and up) are kept for the test to read. */
function recordingLogger() {
  const lines: LogLine[] = [];
  const log = createLogger('warn', 'job-audio-test', { destination: { write: (line) => lines.push(JSON.parse(line) as LogLine) } });
  return { log, warnings: () => lines.filter((l) => l.level === WARN) };
}

/** The job's audio as the storage gives it back; undefined when absent. */
async function stored(storage: AudioStorage, jobId: string): Promise<Buffer | undefined> {
  const stream = await storage.open(jobId);
  return stream ? Buffer.from(await new Response(stream).arrayBuffer()) : undefined;
}

/** Some chunks of audio, as a synthesis would write them. */
function chunks(count: number, size: number): Buffer[] {
  return Array.from({ length: count }, () => randomBytes(size));
}

/**
 * The real storage, with an outage that can be switched on: while `down`, a streaming write throws
 * AudioStorageUnavailableError once it has taken `failAfter` bytes (a write that would go past them
 * throws, accepting nothing), and `putFile` throws it too.
 */
function flakyStorage(real: AudioStorage, failAfter: number) {
  const state = { down: false, aborts: 0, putFiles: 0 };
  const storage: AudioStorage = Object.create(real) as AudioStorage;
  storage.createWriter = async (jobId) => {
    const writer = await real.createWriter(jobId);
    let taken = 0;
    return {
      write: async (bytes) => {
        if (state.down && taken + bytes.byteLength > failAfter) throw new AudioStorageUnavailableError('audio store unreachable');
        await writer.write(bytes);
        taken += bytes.byteLength;
      },
      commit: () => {
        if (state.down) return Promise.reject(new AudioStorageUnavailableError('audio store unreachable'));
        return writer.commit();
      },
      abort: () => {
        state.aborts++;
        return writer.abort();
      },
    };
  };
  storage.putFile = (jobId, path) => {
    state.putFiles++;
    if (state.down) return Promise.reject(new AudioStorageUnavailableError('audio store unreachable'));
    return real.putFile(jobId, path);
  };
  return { storage, state };
}

describe('JobAudioWrite', () => {
  let dir: string;
  let storage: JobFiles;
  let spool: FileSpool;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-job-audio-'));
    storage = new JobFiles(new LocalBlobStorage(join(dir, 'audio')));
    spool = new FileSpool(join(dir, 'spool'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('streams what the sink takes into the storage and commits it as the job audio, after removing a dead run leftovers', async () => {
    const job = randomUUID();
    // A dead run of the job: a partial write never committed nor aborted.
    const dead = await storage.createWriter(job);
    await dead.write(Buffer.from('stale bytes of a dead run'));
    expect(await readdir(join(dir, 'audio', '.parts', `${job}.mp3`))).toHaveLength(1);

    const { log, warnings } = recordingLogger();
    const write = new JobAudioWrite(job, storage, undefined, log);
    const audio = chunks(5, 4096);
    for (const chunk of audio) await write.sink.write(chunk);
    expect(await stored(storage, job)).toBeUndefined();
    expect(write.committed).toBe(false);

    const saveFile = vi.fn(async () => true);
    expect(await write.commit(saveFile)).toBe(true);
    expect(write.committed).toBe(true);
    expect(saveFile).not.toHaveBeenCalled();
    expect(await stored(storage, job)).toEqual(Buffer.concat(audio));
    expect((await storage.stat(job))?.size).toBe(5 * 4096);
    // The dead run's partial file went before this run's write started: no part is left at all.
    await expect(readdir(join(dir, 'audio', '.parts', `${job}.mp3`))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(warnings()).toEqual([]);
  });

  it('goes on into the spool when the store becomes unreachable mid-write, and saves the audio from it when the store answers', async () => {
    const job = randomUUID();
    const { storage: flaky, state } = flakyStorage(storage, 3 * 1000);
    const { log, warnings } = recordingLogger();
    const file = await spool.create(job);
    const write = new JobAudioWrite(job, flaky, file, log);
    const audio = chunks(8, 1000);

    for (const chunk of audio.slice(0, 2)) await write.sink.write(chunk);
    state.down = true;
    // The third chunk still fits, the fourth is refused by the store: the rest goes into the spool only.
    for (const chunk of audio.slice(2)) await write.sink.write(chunk);

    const outage = warnings();
    expect(outage).toHaveLength(1);
    expect(outage[0]).toMatchObject({ job_id: job, err: { name: 'AudioStorageUnavailableError', message: 'audio store unreachable' } });
    expect(outage[0]?.msg).toMatch(/spool/);
    // The stopped streaming write is discarded (in the background).
    await vi.waitFor(() => expect(state.aborts).toBe(1));

    const saveFile = vi.fn(async (path: string) => {
      expect(path).toBe(file.path);
      // Still down: the store refuses the file.
      await expect(flaky.putFile(job, path)).rejects.toBeInstanceOf(AudioStorageUnavailableError);
      expect(await stored(storage, job)).toBeUndefined();
      // The store answers again.
      state.down = false;
      await flaky.putFile(job, path);
      return true;
    });
    expect(await write.commit(saveFile)).toBe(true);
    expect(saveFile).toHaveBeenCalledTimes(1);
    expect(write.committed).toBe(true);
    expect(await stored(storage, job)).toEqual(Buffer.concat(audio));
    expect(warnings()).toHaveLength(1);

    await write.discard();
    expect(await readdir(join(dir, 'spool'))).toEqual([]);
  });

  it('reports the commit as not done when saving from the spool is interrupted', async () => {
    const job = randomUUID();
    const { storage: flaky, state } = flakyStorage(storage, 0);
    const { log } = recordingLogger();
    const write = new JobAudioWrite(job, flaky, await spool.create(job), log);
    state.down = true;
    await write.sink.write(randomBytes(100));
    expect(await write.commit(async () => false)).toBe(false);
    expect(write.committed).toBe(false);
    expect(await stored(storage, job)).toBeUndefined();
    await write.discard();
  });

  it('without a spool, fails the write on the same outage: the error reaches the caller and nothing is stored', async () => {
    const job = randomUUID();
    const { storage: flaky, state } = flakyStorage(storage, 3 * 1000);
    const { log, warnings } = recordingLogger();
    const write = new JobAudioWrite(job, flaky, undefined, log);
    const audio = chunks(8, 1000);

    for (const chunk of audio.slice(0, 2)) await write.sink.write(chunk);
    state.down = true;
    await write.sink.write(audio[2]!);
    const refused = write.sink.write(audio[3]!);
    await expect(refused).rejects.toBeInstanceOf(AudioStorageUnavailableError);
    const thrown = await refused.catch((e: unknown) => e);

    // The run fails on what the synthesis threw; the streaming write is aborted.
    expect(await write.failure(thrown)).toBe(thrown);
    expect(state.aborts).toBe(1);
    expect(write.committed).toBe(false);
    state.down = false;
    expect(await stored(storage, job)).toBeUndefined();
    expect(warnings()).toEqual([]);
  });

  it('drops a failing spool with a warning and still streams the audio to the store', async () => {
    const job = randomUUID();
    const real = await spool.create(job);
    let spoolWrites = 0;
    const failing: AudioSpoolFile = {
      path: real.path,
      write: async (bytes) => {
        spoolWrites++;
        if (spoolWrites > 1) throw new Error('ENOSPC: no space left on device');
        await real.write(bytes);
      },
      close: () => real.close(),
      discard: vi.fn(() => real.discard()),
    };
    const { log, warnings } = recordingLogger();
    const write = new JobAudioWrite(job, storage, failing, log);
    const audio = chunks(6, 2048);
    for (const chunk of audio) await write.sink.write(chunk);

    // Dropped on its first failure: never written again, its file removed.
    expect(spoolWrites).toBe(2);
    expect(failing.discard).toHaveBeenCalledTimes(1);
    expect(await readdir(join(dir, 'spool'))).toEqual([]);
    const dropped = warnings();
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({ job_id: job, err: { message: 'ENOSPC: no space left on device' } });
    expect(dropped[0]?.msg).toMatch(/spool failed/);

    const saveFile = vi.fn(async () => true);
    expect(await write.commit(saveFile)).toBe(true);
    expect(saveFile).not.toHaveBeenCalled();
    expect(await stored(storage, job)).toEqual(Buffer.concat(audio));
  });
  it('at LOG_LEVEL=debug records each live write (the bytes so far and when, for the stream benchmark), and nothing at info', async () => {
    for (const level of ['debug', 'info'] as const) {
      const job = randomUUID();
      const lines: (LogLine & { live_bytes?: number; at_ms?: number })[] = [];
      const log = createLogger(level, 'job-audio-test', { destination: { write: (line) => lines.push(JSON.parse(line) as LogLine) } });
      const run = new LiveRun(await new LocalLiveAudioFiles(join(dir, 'live')).create(job));
      const write = new JobAudioWrite(job, storage, undefined, log, run);
      const before = Date.now();
      for (const chunk of chunks(3, 1000)) await write.sink.write(chunk);
      const records = lines.filter((l) => l.msg === 'live audio written');
      if (level === 'info') {
        expect(records).toEqual([]);
        continue;
      }
      expect(records.map((r) => [r.job_id, r.live_bytes])).toEqual([
        [job, 1000],
        [job, 2000],
        [job, 3000],
      ]);
      const times = records.map((r) => r.at_ms ?? 0);
      expect(times).toEqual(times.toSorted((a, b) => a - b));
      expect(times[0]).toBeGreaterThanOrEqual(before - 1);
      expect(times[2]).toBeLessThanOrEqual(Date.now() + 1);
    }
  });
});

describe('storeUnreachable', () => {
  it('recognises the store unreachable, thrown directly or as a nested cause', () => {
    const unavailable = new AudioStorageUnavailableError('audio store unreachable');
    expect(storeUnreachable(unavailable)).toBe(true);
    expect(storeUnreachable(new Error('synthesis failed', { cause: unavailable }))).toBe(true);
    expect(storeUnreachable(new Error('outer', { cause: new Error('sink write failed', { cause: unavailable }) }))).toBe(true);
  });

  it('does not take other errors for it', () => {
    expect(storeUnreachable(new Error('audio store unreachable'))).toBe(false);
    expect(storeUnreachable(new Error('synthesis failed', { cause: new Error('boom') }))).toBe(false);
    expect(storeUnreachable(Object.assign(new Error('look-alike'), { name: 'AudioStorageUnavailableError' }))).toBe(false);
    expect(storeUnreachable(undefined)).toBe(false);
    expect(storeUnreachable('AudioStorageUnavailableError')).toBe(false);
  });
});
