import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { RedisKeys } from './keys.js';
import { asRedisUnavailable, withinDeadline, type RedisClient } from './client.js';
import { LuaScript } from './lua-script.js';
import type { RateLimitDecision, RateLimiter } from '../../ports/index.js';

/**
 * Sliding log in a sorted set: one member per admitted request, scored by its time. Trimming, counting,
 * admitting and reading the oldest entry happen in one script, so concurrent requests on any number
 * of API instances are admitted exactly up to the limit per rolling window.
 *
 * The clock is Redis's own (TIME), so instances with skewed clocks still share one window; a test may
 * pass its own time instead. The script is lua/sliding-window.lua; it takes a batch of checks.
 */
const SLIDING_WINDOW = new LuaScript(readFileSync(new URL('./lua/sliding-window.lua', import.meta.url), 'utf8'));

/**
 * Members of the sliding log are `<ms>-<this process's nonce>-<count>`: unique across instances (the
 * nonce) and within one (the count), without asking the system for random bytes on every request
 * (`randomBytes` per check was a twentieth of the Redis poll's CPU time).
 */
const PROCESS_NONCE = randomBytes(6).toString('hex');
let admissions = 0;

/** Checks in one script call at most: a batch larger than this is sent as several. */
const MAX_BATCH = 128;

interface PendingCheck {
  key: string;
  limit: number;
  windowMs: number;
  consume: boolean;
  member: string;
  resolve: (decision: RateLimitDecision) => void;
  reject: (error: unknown) => void;
}

/**
 * The checks that arrive in one turn of the event loop (the requests Node read from their sockets in
 * one go) go to Redis as one script call, run in order as one atomic step: the same decisions as one
 * call each, at one command's cost for all of them. Under load several requests arrive per turn (4 on
 * average in the poll benchmark's 10 connections), so this cuts the Redis poll's commands, replies and
 * deadline bookkeeping by as much. A check waits at most until the end of its turn, where node-redis
 * would send it anyway (it writes once per turn).
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly keys: RedisKeys;
  private batch: PendingCheck[] = [];

  /** `now`: for tests that drive time themselves; production uses Redis's clock. */
  constructor(
    private readonly client: RedisClient,
    prefix: string,
    private readonly now?: () => number,
  ) {
    this.keys = new RedisKeys(prefix);
  }

  check(bucket: string, limit: number, windowMs: number, consume: boolean): Promise<RateLimitDecision> {
    // Unique per request even within one millisecond, so no two admissions collapse into one member.
    admissions = (admissions + 1) % Number.MAX_SAFE_INTEGER;
    const member = `${Date.now()}-${PROCESS_NONCE}-${admissions.toString(36)}`;
    return new Promise((resolve, reject) => {
      this.batch.push({ key: this.keys.rateBucket(bucket), limit, windowMs, consume, member, resolve, reject });
      if (this.batch.length === 1) setImmediate(this.flush);
    });
  }

  private readonly flush = (): void => {
    const batch = this.batch;
    this.batch = [];
    for (let from = 0; from < batch.length; from += MAX_BATCH) void this.send(batch.slice(from, from + MAX_BATCH));
  };

  private async send(checks: PendingCheck[]): Promise<void> {
    const keys = checks.map((c) => c.key);
    const args: (string | number)[] = [this.now ? String(this.now()) : ''];
    for (const c of checks) args.push(c.windowMs, c.limit, c.consume ? '1' : '0', c.member);
    let reply: unknown[];
    try {
      // Untimed: `bounded` gives it the client's deadline.
      reply = (await this.bounded('rate limit check', () => SLIDING_WINDOW.run(this.client, keys, args, true))) as unknown[];
    } catch (error) {
      for (const c of checks) c.reject(error);
      return;
    }
    checks.forEach((c, i) => {
      const allowed = Number(reply[i * 3]) === 1;
      const count = Number(reply[i * 3 + 1] ?? 0);
      const decision: RateLimitDecision = { allowed, limit: c.limit, remaining: Math.max(0, c.limit - count), resetSeconds: Number(reply[i * 3 + 2] ?? 0) };
      if (allowed && c.consume) decision.admission = c.member;
      c.resolve(decision);
    });
  }

  async refund(bucket: string, admission: string): Promise<void> {
    await this.bounded('rate limit refund', () => this.client.zRem(this.keys.rateBucket(bucket), admission));
  }

  /** Within the client's command deadline, an outage reported as such (as the store's operations). */
  private async bounded<T>(what: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await withinDeadline(this.client, what, operation);
    } catch (error) {
      throw asRedisUnavailable(error, what, this.client);
    }
  }

  /** The client belongs to the services that created it. */
  async close(): Promise<void> {}
}
