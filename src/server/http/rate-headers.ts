import type { Context } from 'hono';
import type { BucketKind } from '../domain/jobs.js';
import type { RateLimitDecision } from '../ports.js';

/** IETF draft ratelimit headers on every response to an authenticated request. */
export function setRateHeaders(c: Context, _kind: BucketKind, d: RateLimitDecision, windowMs: number): void {
  c.header('RateLimit-Policy', `${d.limit};w=${Math.round(windowMs / 1000)}`);
  c.header('RateLimit', `limit=${d.limit}, remaining=${d.remaining}, reset=${d.resetSeconds}`);
}

/** Whether this answer already carries them (set by the handler, or by an error's own headers). */
export function hasRateHeaders(c: Context): boolean {
  return c.res.headers.has('RateLimit');
}
