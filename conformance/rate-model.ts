import { type Time, realTime } from './time.js';

export type Bucket = 'post' | 'get';

export interface RateLimits {
  post: number;
  get: number;
  windowMs: number;
}

interface KeyState {
  /** Times (ms) of requests the server counted, or may still be counting (in flight). */
  post: number[];
  get: number[];
  /** A 429 told us not to come back before this time. */
  blockedUntil: Record<Bucket, number>;
}

/** Slack for the gap between the server's clock of a request and ours. */
const MARGIN_MS = 400;

/**
 * The suite's model of each API key's two rate-limit buckets (docs/api-rules.md#limits), so rules that are not about
 * rate limits never trip them: a request waits until the model says its bucket has room. A POST is
 * counted only when it created a job — rejected and replayed requests consume no quota, as the
 * document states — and a GET always. A 429 blocks the bucket for its Retry-After. Its times are the
 * deployment's (`Time`): on a test clock a wait for room moves the clock instead of sleeping.
 */
export class RateModel {
  private readonly states = new Map<string, KeyState>();

  constructor(
    private readonly limits: RateLimits,
    readonly time: Time = realTime,
  ) {}

  private state(key: string): KeyState {
    let s = this.states.get(key);
    if (!s) {
      s = { post: [], get: [], blockedUntil: { post: 0, get: 0 } };
      this.states.set(key, s);
    }
    return s;
  }

  /** When a request in this bucket would be admitted, by the model. */
  readyAt(key: string, bucket: Bucket, now = this.time.now()): number {
    const s = this.state(key);
    const times = s[bucket].filter((t) => t > now - this.limits.windowMs - MARGIN_MS).sort((a, b) => a - b);
    s[bucket] = times;
    const limit = bucket === 'post' ? this.limits.post : this.limits.get;
    let at = s.blockedUntil[bucket];
    // The request that must leave the window before one more is admitted, when the window is full.
    const leaving = times.length >= limit ? times[times.length - limit] : undefined;
    if (leaving !== undefined) at = Math.max(at, leaving + this.limits.windowMs + MARGIN_MS);
    return at;
  }

  /** Waits until the model says the bucket has room (without taking it). */
  async room(key: string, bucket: Bucket): Promise<void> {
    for (;;) {
      const now = this.time.now();
      const at = this.readyAt(key, bucket, now);
      if (at <= now) return;
      await this.time.sleep(at - now);
    }
  }

  /** Waits for room, then holds a place; the returned token settles it once the answer is known. */
  async acquire(key: string, bucket: Bucket): Promise<Slot> {
    await this.room(key, bucket);
    const s = this.state(key);
    const held = this.time.now();
    s[bucket].push(held);
    return {
      settle: ({ counted, retryAfterSeconds }) => {
        const list = s[bucket];
        const index = list.indexOf(held);
        if (index >= 0) list.splice(index, 1);
        // The answer's arrival is the latest moment the server could have counted the request.
        if (counted) list.push(this.time.now());
        if (retryAfterSeconds !== undefined) {
          s.blockedUntil[bucket] = Math.max(s.blockedUntil[bucket], this.time.now() + retryAfterSeconds * 1000 + MARGIN_MS);
        }
      },
    };
  }

  /** Records a request that bypassed acquire (the rate-limit rules send them on purpose). */
  note(key: string, bucket: Bucket, counted: boolean, retryAfterSeconds?: number): void {
    const s = this.state(key);
    if (counted) s[bucket].push(this.time.now());
    if (retryAfterSeconds !== undefined) {
      s.blockedUntil[bucket] = Math.max(s.blockedUntil[bucket], this.time.now() + retryAfterSeconds * 1000 + MARGIN_MS);
    }
  }
}

export interface Slot {
  settle(outcome: { counted: boolean; retryAfterSeconds?: number }): void;
}
