import type { Context } from 'hono';
import { formatRateLimit, formatRateLimitPolicy } from '@agent-tts/contract/ratelimit-headers.js';
import type { BucketKind } from '../domain/jobs.js';
import type { RateLimitDecision } from '../ports/index.js';

/**
 * The rate-limit headers of draft-ietf-httpapi-ratelimit-headers-11 on every response to an
 * authenticated request: `RateLimit-Policy: "post";q=1;w=60` and `RateLimit: "post";r=0;t=60`. The
 * policy is the request's bucket: POST creates jobs ("post"), GET reads them ("get").
 */
export function setRateHeaders(c: Context, kind: BucketKind, d: RateLimitDecision, windowMs: number): void {
  c.header('RateLimit-Policy', formatRateLimitPolicy(kind, d.limit, Math.round(windowMs / 1000)));
  c.header('RateLimit', formatRateLimit(kind, d.remaining, d.resetSeconds));
}

/** Whether this answer already carries them (set by the handler, or by an error's own headers). */
export function hasRateHeaders(c: Context): boolean {
  return c.res.headers.has('RateLimit');
}
