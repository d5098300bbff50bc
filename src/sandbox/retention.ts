import { type AudioStorage, type JobRepository, scheduleSweeps, sweepExpiredJobs, type ScheduledSweeps, type Logger } from '@agent-tts/server';
import type { SandboxClock } from './clock.js';
import type { SandboxClocks } from './clocks.js';

/** How often every clock's retention is swept besides when the clock moves. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Retention, per clock: a clock judges the jobs of its own accounts only (the global clock, those of
 * every account not on a test clock), so a clock ahead or behind never deletes another's audio.
 * Swept when a clock moves (a failure logged) and every minute on the scheduler of the server's sweeps.
 */
export async function sweepPerClock(
  clocks: SandboxClocks,
  store: Pick<JobRepository, 'deleteExpiredJobs'>,
  audio: AudioStorage,
  log: Logger,
): Promise<ScheduledSweeps> {
  const sweep = (on: SandboxClock, now = on.now()) =>
    sweepExpiredJobs(
      {
        deleteExpiredJobs: (at, limit) =>
          store.deleteExpiredJobs(at, limit, on === clocks.global ? { ids: clocks.accountsOnTestClocks(), except: true } : { ids: clocks.accountsOf(on) }),
      },
      audio,
      log,
      now,
    );
  clocks.onMove(async (on, now) => {
    await sweep(on, now).catch((error: unknown) => log.error({ err: error }, 'retention sweep failed'));
  });
  return scheduleSweeps(() => Promise.all(clocks.all().map((on) => sweep(on).catch(() => undefined))), { intervalMs: SWEEP_INTERVAL_MS });
}

/** Deletes every job (and its audio) of `accountIds`, whatever its retention: a deleted test clock's. */
export async function deleteJobsOf(
  accountIds: readonly string[],
  store: Pick<JobRepository, 'deleteExpiredJobs'>,
  audio: AudioStorage,
  log: Logger,
): Promise<void> {
  const end = Number.MAX_SAFE_INTEGER;
  await sweepExpiredJobs({ deleteExpiredJobs: (_at, limit) => store.deleteExpiredJobs(end, limit, { ids: accountIds }) }, audio, log, end);
}
