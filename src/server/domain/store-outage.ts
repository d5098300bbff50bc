import type { Logger } from '../log.js';
import { storeUnreachable } from './job-audio.js';

/**
 * How long a run waits for an unreachable audio store once the job's audio is made, and how often it
 * tries again meanwhile: after `firstDelayMs`, doubled each time up to `maxDelayMs`, each wait taken
 * between half and all of that at random (jitter, so that the runs an outage stopped do not all come
 * back at once). A run tries at least once after the synthesis, whatever the budget.
 */
export interface StoreOutagePolicy {
  budgetMs: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

/** AUDIO_STORE_OUTAGE_BUDGET_SECONDS's default: a store down for a minute or so is ridden out. */
export const DEFAULT_STORE_OUTAGE: StoreOutagePolicy = { budgetMs: 120_000, firstDelayMs: 500, maxDelayMs: 10_000 };

/**
 * The saves of one finished run to the audio store (its audio from the spool, then its word timings),
 * each tried again with backoff and jitter while the store cannot be reached. They share one outage
 * budget, counted from the first save (the synthesis is done by then), in real time (monotonic), not
 * the injected clock: it bounds how long a run waits.
 */
export class StoreOutageWait {
  private deadline: number | undefined;
  private since = 0;
  private delay: number;

  constructor(
    private readonly jobId: string,
    private readonly policy: StoreOutagePolicy,
    private readonly log: Logger,
    private readonly signal?: AbortSignal,
  ) {
    this.delay = policy.firstDelayMs;
  }

  /**
   * Runs `save` until it succeeds (true), rejects with anything but the store being unreachable, or the
   * budget is spent (rejects with the last failure); false when shutdown interrupted the wait. `what`
   * names what is saved in the log ("the audio", "the word timings"); `saved`, the line logged once it
   * is (by default, only when it took more than one attempt).
   */
  async save(what: string, save: () => Promise<unknown>, saved?: string): Promise<boolean> {
    if (this.deadline === undefined) {
      this.since = performance.now();
      this.deadline = this.since + this.policy.budgetMs;
    }
    const { jobId } = this;
    for (let attempt = 1; ; attempt++) {
      if (this.signal?.aborted) return false;
      try {
        await save();
        if (saved !== undefined || attempt > 1) {
          this.log.info({ job_id: jobId, attempts: attempt, waited_ms: this.waited() }, saved ?? `${what} saved once the audio store answered`);
        }
        return true;
      } catch (error) {
        if (!storeUnreachable(error)) throw error;
        const left = this.deadline - performance.now();
        if (left <= 0) {
          this.log.warn({ job_id: jobId, attempts: attempt, waited_ms: this.waited() }, 'audio store still unreachable; the outage budget is spent');
          throw error;
        }
        const wait = Math.min(left, this.delay / 2 + (Math.random() * this.delay) / 2);
        this.delay = Math.min(this.policy.maxDelayMs, this.delay * 2);
        this.log.info(
          { job_id: jobId, attempt, retry_in_ms: Math.round(wait), budget_left_ms: Math.round(left) },
          `audio store unreachable; saving ${what} again after a wait`,
        );
        if (!(await sleep(wait, this.signal))) return false;
      }
    }
  }

  private waited(): number {
    return Math.round(performance.now() - this.since);
  }
}

/** Waits `ms`; false when `signal` fires first. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (finished: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
      resolve(finished);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
