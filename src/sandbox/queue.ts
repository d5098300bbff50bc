import type { JobQueue, JobRun, QueueStats, Store } from '@agent-tts/server';
import type { SandboxClock } from './clock.js';
import type { SandboxClocks } from './clocks.js';
import { endSeconds } from './outcomes.js';
import type { InstantSynthesizer } from './synthesizer.js';

/** How often the progress of held jobs is written while the clock runs with real time. */
const PROGRESS_TICK_MS = 250;

/**
 * The sandbox's queue: the server's own in-process queue, with each job held until the sandbox clock
 * reaches the time its outcome takes (outcomes.ts); its progress meanwhile follows the clock. A job
 * taking no time goes through at once, so its POST is answered inline as on the server. The inline wait
 * itself stays in real time: a held job does not keep the POST waiting.
 *
 * Each job is on the clock of its account (clocks.ts): it is held on that clock, started inside it (so
 * the runner stamps its completion and expiry on it), and its progress follows it.
 */
export class SandboxQueue implements JobQueue {
  /** Held jobs: start (createdAt) and end, in sandbox time. */
  private readonly held = new Map<string, { start: number; end: number; fraction: number; clock: SandboxClock }>();
  private readonly ticker: NodeJS.Timeout;

  constructor(
    private readonly inner: JobQueue,
    private readonly store: Store,
    private readonly synth: InstantSynthesizer,
    private readonly clocks: SandboxClocks,
  ) {
    this.ticker = setInterval(() => void this.writeProgress(), PROGRESS_TICK_MS);
    this.ticker.unref();
    clocks.onMove(() => this.writeProgress());
  }

  async enqueue(jobId: string): Promise<void> {
    const job = await this.store.getJob(jobId);
    if (job?.status !== 'processing') return this.inner.enqueue(jobId);
    const clock = this.clocks.ofAccount(job.accountId);
    const outcome = this.synth.outcome(job.text, job.speed, job.language);
    const end = job.createdAt + endSeconds(outcome) * 1000;
    if (end <= clock.now()) return this.clocks.runOn(clock, () => this.inner.enqueue(jobId));
    const total = outcome.seconds * 1000;
    this.held.set(jobId, { start: job.createdAt, end, fraction: total > 0 ? (end - job.createdAt) / total : 1, clock });
    this.clocks.scheduleOn(clock, end, async () => {
      this.held.delete(jobId);
      // Registered before the job is handed over, so its end cannot be missed.
      const finished = this.inner.waitForFinish(jobId, 10_000);
      await this.inner.enqueue(jobId);
      await finished;
    });
  }

  /** Whether a job is held on the clock (a POST then answers 202 at once). */
  isHeld(jobId: string): boolean {
    return this.held.has(jobId);
  }

  waitForFinish(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.held.has(jobId)) return Promise.resolve();
    return this.inner.waitForFinish(jobId, timeoutMs, signal);
  }

  /** Forgets the held jobs of a deleted test clock (their timers went with it). */
  dropClock(clock: SandboxClock): void {
    for (const [id, h] of this.held) if (h.clock === clock) this.held.delete(id);
  }

  /** Progress of held jobs from their clocks: the share of their time that has passed, up to where they end. */
  private async writeProgress(): Promise<void> {
    await Promise.all(
      [...this.held].map(([id, h]) => {
        const share = Math.min(1, Math.max(0, (h.clock.now() - h.start) / Math.max(1, h.end - h.start)));
        return this.store.updateProgress(id, Math.min(0.99, share * h.fraction)).catch(() => undefined);
      }),
    );
  }

  stats(): Promise<QueueStats> {
    return this.inner.stats ? this.inner.stats() : Promise.resolve({ waiting: this.held.size, active: 0 });
  }

  async close(): Promise<void> {
    clearInterval(this.ticker);
    this.held.clear();
    await this.inner.close();
  }
}

/**
 * The job runner of the sandbox's queue: each run is on the clock of its job's account, wherever it was
 * started. The in-process queue starts a waiting job from the promise chain of the one that just ended
 * (when more jobs wait than it runs at once), which would otherwise carry that job's clock over to it.
 */
export function runOnAccountClock(run: JobRun, store: Store, clocks: SandboxClocks): JobRun {
  return {
    async run(jobId, signal) {
      // With no account on a test clock every job is on the global clock: no read of the job to find out.
      const job = clocks.anyOnTestClocks ? await store.getJob(jobId) : undefined;
      const clock = job ? clocks.ofAccount(job.accountId) : clocks.global;
      return clocks.runOn(clock, () => run.run(jobId, signal));
    },
  };
}
