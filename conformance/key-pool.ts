import { displayKey } from './redaction.js';
import type { Bucket, RateModel } from './rate-model.js';

export interface Lease {
  keys: string[];
  release(): void;
}

interface Waiter {
  count: number;
  fresh?: Bucket;
  specific?: string;
  grant: (keys: string[]) => void;
}

/**
 * Hands out the fixtures' active API keys, each to one rule at a time: every key is its own account,
 * so a rule that compares an account's billed minutes, or counts its rate limit, holds the account to
 * itself. Among free keys a rule that will POST gets the one whose POST bucket refills soonest.
 */
export class KeyPool {
  private readonly free: Set<string>;
  private readonly queue: Waiter[] = [];

  constructor(
    readonly keys: readonly string[],
    private readonly model: RateModel,
  ) {
    this.free = new Set(keys);
  }

  get size(): number {
    return this.keys.length;
  }

  /** Leases `count` keys; `fresh` prefers keys whose bucket of that kind is ready soonest. */
  lease(options: { count?: number; fresh?: Bucket; specific?: string } = {}): Promise<Lease> {
    const count = options.specific ? 1 : (options.count ?? 1);
    if (count > this.keys.length) {
      return Promise.reject(new NotEnoughKeys(count, this.keys.length));
    }
    if (options.specific && !this.keys.includes(options.specific)) {
      return Promise.reject(new Error(`key ${displayKey(options.specific)} is not one of the active keys`));
    }
    return new Promise((resolve) => {
      this.queue.push({
        count,
        fresh: options.fresh,
        specific: options.specific,
        grant: (keys) => resolve({ keys, release: once(() => this.giveBack(keys)) }),
      });
      this.serve();
    });
  }

  private giveBack(keys: string[]): void {
    for (const key of keys) this.free.add(key);
    // Deferred: a scenario releases its key just before the rules awaiting it resume, and those may
    // ask for that very key (its account holds their job); let them queue before anyone is served.
    setImmediate(() => this.serve());
  }

  /**
   * Grants waiters in arrival order. A waiter for a particular key never blocks the others; once a
   * waiter for any keys must wait, later such waiters wait behind it, so one needing two keys is not
   * starved by a stream of single-key leases.
   */
  private serve(): void {
    let generalBlocked = false;
    for (let i = 0; i < this.queue.length; ) {
      const waiter = this.queue[i];
      if (!waiter) break;
      const picked = waiter.specific || !generalBlocked ? this.pick(waiter) : undefined;
      if (!picked) {
        if (!waiter.specific) generalBlocked = true;
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      for (const key of picked) this.free.delete(key);
      waiter.grant(picked);
    }
  }

  private pick(waiter: Waiter): string[] | undefined {
    if (waiter.specific) return this.free.has(waiter.specific) ? [waiter.specific] : undefined;
    // Keys that a queued rule is waiting for by name go to that rule: it needs that account's jobs.
    const wanted = new Set(this.queue.flatMap((w) => (w.specific ? [w.specific] : [])));
    const candidates = [...this.free].filter((key) => !wanted.has(key));
    if (candidates.length < waiter.count) return undefined;
    const now = this.model.time.now();
    const bucket = waiter.fresh ?? 'get';
    candidates.sort((a, b) => this.model.readyAt(a, bucket, now) - this.model.readyAt(b, bucket, now));
    return candidates.slice(0, waiter.count);
  }
}

export class NotEnoughKeys extends Error {
  constructor(
    readonly needed: number,
    readonly available: number,
  ) {
    super(`needs ${needed} active keys of distinct accounts; the fixtures file lists ${available}`);
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      fn();
    }
  };
}
