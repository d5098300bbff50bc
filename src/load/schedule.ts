import { defined } from './defined.js';
import type { Stage } from './flag-values.js';

/**
 * The open-loop arrival schedule: the rate r(t) ramps linearly within each stage from the previous
 * target (the start rate for the first) to the stage's own. Submission k is due at the moment the
 * expected count ∫r reaches k, so a flat 2/s for 20 s sends at 0, 0.5, …, 19.5 s: 40 submissions.
 */
export class Schedule {
  readonly totalMs: number;

  constructor(
    readonly stages: readonly Stage[],
    readonly startRate: number,
  ) {
    this.totalMs = stages.reduce((sum, s) => sum + s.durationMs, 0);
  }

  /** The highest rate anywhere in the schedule (requests per second). */
  get peakRate(): number {
    return Math.max(this.startRate, ...this.stages.map((s) => s.target));
  }

  /** Expected submissions over the whole schedule (the area under r). */
  get expectedCount(): number {
    let from = this.startRate;
    let count = 0;
    for (const s of this.stages) {
      count += ((from + s.target) / 2) * (s.durationMs / 1000);
      from = s.target;
    }
    return count;
  }

  /** The scheduled rate at `ms` after the start. */
  rateAt(ms: number): number {
    let from = this.startRate;
    let t0 = 0;
    for (const s of this.stages) {
      if (ms < t0 + s.durationMs) return from + ((s.target - from) * (ms - t0)) / s.durationMs;
      t0 += s.durationMs;
      from = s.target;
    }
    return from;
  }

  /** Due times (ms from the start) of every submission, in order; stops at the end of the schedule. */
  *dueTimes(): Generator<number> {
    let from = this.startRate;
    let t0 = 0;
    let before = 0; // expected count at the start of this stage
    let k = 0;
    for (const s of this.stages) {
      const d = s.durationMs / 1000;
      const a = (s.target - from) / d; // slope, requests per second²
      const area = ((from + s.target) / 2) * d;
      // Within the stage, count(t) = from·t + a·t²/2; solve count(t) = k - before for t.
      while (k - before < area - 1e-9) {
        const c = k - before;
        let t: number;
        if (Math.abs(a) < 1e-12) t = c / from;
        else t = (-from + Math.sqrt(Math.max(0, from * from + 2 * a * c))) / a;
        const ms = t0 + t * 1000;
        if (ms >= t0 + s.durationMs) break;
        yield ms;
        k++;
      }
      before += area;
      t0 += s.durationMs;
      from = s.target;
    }
  }
}

/** How many submissions per second N keys sustain: N × limit per window. */
export function allowedRate(keys: number, postLimit: number, windowSeconds: number): number {
  return (keys * postLimit) / windowSeconds;
}

/**
 * Spreads submissions over the API keys so that none sends more than `limit` POSTs in any rolling
 * `windowMs` (the API's per-key POST limit): round robin, skipping a key whose window is full.
 * A POST that the deployment refused with 429 spent no quota (docs/api-rules.md), so it is given back.
 */
export class KeySpreader {
  private readonly sent: number[][];
  private next = 0;

  constructor(
    readonly keyCount: number,
    readonly limit: number,
    readonly windowMs: number,
  ) {
    if (keyCount < 1) throw new Error('KeySpreader needs at least one key');
    this.sent = Array.from({ length: keyCount }, () => []);
  }

  /** The send times of key `i` still in its window, oldest first. */
  private log(i: number): number[] {
    return defined(this.sent[i], `the send times of key ${i}`);
  }

  private used(i: number, now: number): number {
    const log = this.log(i);
    for (let oldest = log[0]; oldest !== undefined && oldest <= now - this.windowMs; oldest = log[0]) log.shift();
    return log.length;
  }

  /**
   * The key for a POST sent at `now`: the next in turn with room in its window. When none has room
   * (a rate above what the keys allow, with --allow-429), still the next in turn, so the refusals are
   * spread over the keys too, and `withinLimit` false: the deployment is expected to answer 429.
   */
  take(now: number): { key: number; withinLimit: boolean } {
    for (let step = 0; step < this.keyCount; step++) {
      const i = (this.next + step) % this.keyCount;
      if (this.used(i, now) < this.limit) {
        this.next = (i + 1) % this.keyCount;
        this.log(i).push(now);
        return { key: i, withinLimit: true };
      }
    }
    const key = this.next;
    this.log(key).push(now);
    this.next = (key + 1) % this.keyCount;
    return { key, withinLimit: false };
  }

  /** The POST at `at` on `key` was refused (429): it did not count against the key's window. */
  giveBack(key: number, at: number): void {
    const log = this.log(key);
    const i = log.indexOf(at);
    if (i >= 0) log.splice(i, 1);
  }
}
