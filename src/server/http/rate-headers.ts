import type { RateLimitDecision } from '../ports.js';
import type { AppContext } from './context.js';

/** IETF draft ratelimit headers on every response to an authenticated request. */
export function setRateHeaders(c: AppContext, d: RateLimitDecision, windowMs: number): void {
  c.header('RateLimit-Policy', `${d.limit};w=${Math.round(windowMs / 1000)}`);
  c.header('RateLimit', `limit=${d.limit}, remaining=${d.remaining}, reset=${d.resetSeconds}`);
}
