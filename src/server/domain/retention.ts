import type { Logger } from '../log.js';
import type { Clock, JobRepository } from '../ports/index.js';
import type { AudioStorage } from './job-files.js';

/** Jobs deleted per round: their audio goes in one batch (an S3 DeleteObjects takes up to 1000 keys). */
const BATCH = 1000;

/** Partial writes untouched this long belong to a dead run, whatever the mode. */
const LEFTOVER_STALE_MS = 10 * 60_000;

/** Deletes jobs (record and audio) whose plan retention has passed at `now` (the deployment's clock), in batches. */
export async function sweepExpiredJobs(store: Pick<JobRepository, 'deleteExpiredJobs'>, audio: AudioStorage, log: Logger, now: number): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = await store.deleteExpiredJobs(now, BATCH);
    if (ids.length > 0) {
      await audio.deleteMany(ids);
      // Partial writes of these jobs (a run that died before they expired): one listing, not one per job.
      const expired = new Set(ids);
      for (const id of await audio.listLeftovers(0)) if (expired.has(id)) await audio.removeLeftovers(id, 0);
    }
    total += ids.length;
    if (ids.length < BATCH) break;
  }
  if (total > 0) log.info({ deleted: total }, 'retention: expired jobs deleted');
  return total;
}

/**
 * Removes partial writes left by runs that died (a crashed worker, a killed process): those untouched
 * for `staleMs`. A live run writes as it encodes, so its partial write is never that old; a job whose
 * run died is run again from the start, and that run clears its own leftovers first.
 */
export async function sweepLeftovers(audio: AudioStorage, log: Logger, staleMs = LEFTOVER_STALE_MS): Promise<number> {
  const ids = await audio.listLeftovers(staleMs);
  for (const id of ids) await audio.removeLeftovers(id, staleMs);
  if (ids.length > 0) log.info({ jobs: ids.length }, 'leftover partial audio removed');
  return ids.length;
}

/** What one sweep of the storage removed: jobs past retention, and jobs whose stale partial audio went. */
export interface StorageSweep {
  expiredJobs: number;
  leftoverJobs: number;
}

/**
 * One sweep of the storage at `now` (the deployment's clock): jobs past retention, then stale partial
 * audio. A failure is thrown (the admin's `storage sweep` reports it); see storageSweepRound for the
 * background's.
 */
export async function sweepStorage(store: Pick<JobRepository, 'deleteExpiredJobs'>, audio: AudioStorage, log: Logger, now: number): Promise<StorageSweep> {
  const expiredJobs = await sweepExpiredJobs(store, audio, log, now);
  const leftoverJobs = await sweepLeftovers(audio, log);
  return { expiredJobs, leftoverJobs };
}

/**
 * The server's background round over its storage: jobs past retention at the clock's time, then stale
 * partial audio. Each failure is logged, and the other sweep still runs; the round itself never fails.
 */
export function storageSweepRound(store: Pick<JobRepository, 'deleteExpiredJobs'>, audio: AudioStorage, log: Logger, clock: Clock): () => Promise<void> {
  return async () => {
    await sweepExpiredJobs(store, audio, log, clock.now()).catch((error: unknown) => log.error({ err: error }, 'retention sweep failed'));
    await sweepLeftovers(audio, log).catch((error: unknown) => log.error({ err: error }, 'leftover sweep failed'));
  };
}

/** Background sweeps under way; stop() ends them (a round running finishes). */
export interface ScheduledSweeps {
  stop(): void;
}

/**
 * The one scheduler of background sweeps (the server's storage round, the sandbox's per clock):
 * `round` once now when `runNow` (awaited), then every `intervalMs` on a timer that never keeps the
 * process alive, until stop(). A round handles its own failures (storageSweepRound logs them), so
 * the next one always runs on time.
 */
export async function scheduleSweeps(round: () => Promise<unknown>, options: { intervalMs: number; runNow?: boolean }): Promise<ScheduledSweeps> {
  if (options.runNow) await round();
  const timer = setInterval(() => void round(), options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
