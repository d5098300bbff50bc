import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { BUCKET_STEPS_S } from './buckets.js';
import { follow } from './follow.js';
import { Recorder } from './recorder.js';
import { KeySpreader, Schedule } from './schedule.js';
import type { LoadSettings } from './settings.js';
import { Workload } from './workload.js';

export interface RunOptions {
  settings: LoadSettings;
  baseUrl: string;
  /** Full API keys (never printed) and their display forms, index for index. */
  keys: readonly string[];
  keyDisplays: readonly string[];
  /** Aborted on Ctrl-C: nothing more is sent and every exchange in flight is dropped. */
  signal: AbortSignal;
  /** Called once the run has started, with what it records into (for a progress line). */
  onStart?: (recorder: Recorder, schedule: Schedule, startedAtPerfMs: number) => void;
}

export interface RunResult {
  recorder: Recorder;
  startedAt: Date;
  endedAt: Date;
  elapsedMs: number;
  /** How much of the schedule ran (all of it unless stopped early). */
  scheduleElapsedMs: number;
  interrupted: boolean;
  /** Why sending stopped: the schedule ended, --max-requests was reached, or Ctrl-C. */
  stoppedBy: 'schedule' | 'max-requests' | 'interrupt';
  eventLoopDelayP99Ms: number | null;
  clientCpuPercent: number | null;
  runId: string;
}

/**
 * Waits until `now()` reaches `dueMs`. A timer can wake a fraction of a millisecond early by the
 * performance clock (timers count whole milliseconds): waiting again for the rest keeps every
 * submission from going out before its due time.
 */
export async function sleepUntil(dueMs: number, now: () => number, sleepFor: (ms: number) => Promise<unknown>): Promise<void> {
  for (let wait = dueMs - now(); wait > 0; wait = dueMs - now()) await sleepFor(wait);
}

/**
 * Runs the workload: submissions go out on the open-loop schedule whatever happened to the earlier
 * ones; each is followed to its end (inline answer, or polling a 202 at its retry_after_seconds), and
 * its audio downloaded. Resolves when every submission has ended, or at once after an abort.
 */
export async function runLoad(opts: RunOptions): Promise<RunResult> {
  const { settings, baseUrl, signal } = opts;
  // Every exchange and every wait listens to the run's signal: hundreds at once is expected, not a leak.
  setMaxListeners(0, signal);
  const schedule = new Schedule(settings.stages, settings.startRate);
  // The recorder's own bucket: at most ~600 of them; a step of the charts' list, so theirs are multiples of it.
  const bucketS = BUCKET_STEPS_S.find((s) => schedule.totalMs / 1000 / s <= 600) ?? BUCKET_STEPS_S.at(-1);
  if (bucketS === undefined) throw new Error("BUCKET_STEPS_S is empty; it lists the charts' bucket steps");
  const bucketMs = bucketS * 1000;
  const recorder = new Recorder(bucketMs, opts.keyDisplays);
  const spreader = new KeySpreader(opts.keys.length, settings.postLimit, settings.rateWindowSeconds * 1000);
  const workload = new Workload(settings.mix, settings.voices, settings.speeds, settings.language, settings.seed, settings.timingsShare);
  const runId = randomBytes(4).toString('hex');
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpuBefore = process.cpuUsage();
  const startedAt = new Date();
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const inFlight = new Set<Promise<void>>();
  opts.onStart?.(recorder, schedule, t0);
  const run = { settings, baseUrl, signal, keys: opts.keys, recorder, spreader, runId, now };

  let stoppedBy: RunResult['stoppedBy'] = 'schedule';
  let n = 0;
  for (const dueMs of schedule.dueTimes()) {
    if (signal.aborted) break;
    if (settings.maxRequests !== undefined && n >= settings.maxRequests) {
      stoppedBy = 'max-requests';
      break;
    }
    try {
      await sleepUntil(dueMs, now, (ms) => sleep(ms, undefined, { signal }));
    } catch {
      break;
    }
    recorder.onDue(dueMs);
    const sub = workload.next(n++);
    const p = follow(run, sub, dueMs);
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  if (signal.aborted) stoppedBy = 'interrupt';
  const scheduleElapsedMs = stoppedBy === 'schedule' ? schedule.totalMs : Math.min(schedule.totalMs, now());
  while (inFlight.size > 0) await Promise.all([...inFlight]);
  delay.disable();
  const elapsedMs = now();
  const cpu = process.cpuUsage(cpuBefore);
  return {
    recorder,
    startedAt,
    endedAt: new Date(),
    elapsedMs,
    scheduleElapsedMs,
    interrupted: signal.aborted,
    stoppedBy: signal.aborted ? 'interrupt' : stoppedBy,
    eventLoopDelayP99Ms: delay.count > 0 ? Math.round(delay.percentile(99) / 1e4) / 100 : null,
    clientCpuPercent: elapsedMs > 0 ? Math.round(((cpu.user + cpu.system) / 1000 / elapsedMs) * 1000) / 10 : null,
    runId,
  };
}
