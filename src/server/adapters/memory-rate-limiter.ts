import type { RateLimitDecision, RateLimiter } from '../ports/index.js';

/**
 * The times of the requests a bucket admitted within the window, oldest first, as a queue: expired
 * entries leave from the front by moving `head`, so a check costs O(1) amortised however large the
 * limit (a copy per request would make a raised limit the hot path's main cost).
 */
class Window {
  times: number[] = [];
  head = 0;

  get size(): number {
    return this.times.length - this.head;
  }

  expire(before: number): void {
    while (this.head < this.times.length && (this.times[this.head] ?? Number.POSITIVE_INFINITY) <= before) this.head++;
    // Compact once the dead prefix is half the array, so memory follows the live entries.
    if (this.head > 32 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  oldest(): number | undefined {
    return this.size > 0 ? this.times[this.head] : undefined;
  }

  newest(): number | undefined {
    return this.size > 0 ? this.times[this.times.length - 1] : undefined;
  }

  /** Removes one admission made at `time`: entries of one time are interchangeable. Searched from the newest. */
  remove(time: number): void {
    for (let i = this.times.length - 1; i >= this.head && (this.times[i] ?? Number.NEGATIVE_INFINITY) >= time; i--) {
      if (this.times[i] === time) {
        this.times.splice(i, 1);
        return;
      }
    }
  }
}

/**
 * Rolling-window limiter for one process: each bucket keeps the times of the requests it admitted
 * within the window (at most `limit` of them), so the window is exact, not a fixed minute.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    // Drop idle buckets so memory follows the number of active keys, not every key ever seen.
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async check(bucket: string, limit: number, windowMs: number, consume: boolean): Promise<RateLimitDecision> {
    const now = this.now();
    let window = this.buckets.get(bucket);
    if (!window) {
      window = new Window();
      this.buckets.set(bucket, window);
    }
    window.expire(now - windowMs);
    const allowed = window.size < limit;
    const taken = allowed && consume;
    if (taken) window.times.push(now);
    // Seconds until the oldest admitted request leaves the window and frees a place.
    const oldest = window.oldest();
    const resetSeconds = oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
    const decision: RateLimitDecision = { allowed, limit, remaining: Math.max(0, limit - window.size), resetSeconds };
    if (taken) decision.admission = String(now);
    return decision;
  }

  async refund(bucket: string, admission: string): Promise<void> {
    this.buckets.get(bucket)?.remove(Number(admission));
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, window] of this.buckets) {
      // Windows are at most an hour (RATE_WINDOW_SECONDS ≤ 3600); older entries are certainly idle.
      if ((window.newest() ?? 0) < now - 3_600_000) this.buckets.delete(key);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
