import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { RedisKeys } from './keys.js';
import { LuaScript, asRedisUnavailable, withinDeadline, type RedisClient } from './client.js';
import type { RateLimitDecision, RateLimiter } from '../../ports/index.js';

/**
 * Sliding log in a sorted set: one member per admitted request, scored by its time. Trimming, counting,
 * admitting and reading the oldest entry happen in one script, so concurrent requests on any number
 * of API instances are admitted exactly up to the limit per rolling window.
 *
 * The clock is Redis's own (TIME), so instances with skewed clocks still share one window; a test may
 * pass its own time instead (ARGV[5]). The script is lua/sliding-window.lua.
 */
const SLIDING_WINDOW = new LuaScript(readFileSync(new URL('./lua/sliding-window.lua', import.meta.url), 'utf8'));

/**
 * Members of the sliding log are `<ms>-<this process's nonce>-<count>`: unique across instances (the
 * nonce) and within one (the count), without asking the system for random bytes on every request
 * (`randomBytes` per check was a twentieth of the Redis poll's CPU time).
 */
const PROCESS_NONCE = randomBytes(6).toString('hex');
let admissions = 0;

export class RedisRateLimiter implements RateLimiter {
  private readonly keys: RedisKeys;

  /** `now`: for tests that drive time themselves; production uses Redis's clock. */
  constructor(
    private readonly client: RedisClient,
    prefix: string,
    private readonly now?: () => number,
  ) {
    this.keys = new RedisKeys(prefix);
  }

  async check(bucket: string, limit: number, windowMs: number, consume: boolean): Promise<RateLimitDecision> {
    // Unique per request even within one millisecond, so no two admissions collapse into one member.
    admissions = (admissions + 1) % Number.MAX_SAFE_INTEGER;
    const member = `${Date.now()}-${PROCESS_NONCE}-${admissions.toString(36)}`;
    const reply = (await this.bounded('rate limit check', () =>
      SLIDING_WINDOW.run(this.client, [this.keys.rateBucket(bucket)], [windowMs, limit, consume ? '1' : '0', member, this.now ? String(this.now()) : '']),
    )) as number[];
    const [allowed, count = 0, resetSeconds = 0] = reply.map(Number);
    const decision: RateLimitDecision = { allowed: allowed === 1, limit, remaining: Math.max(0, limit - count), resetSeconds };
    if (allowed === 1 && consume) decision.admission = member;
    return decision;
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
