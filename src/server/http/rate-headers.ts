import { formatRateLimit, formatRateLimitPolicy } from '../../contract/ratelimit-headers.js';
import type { RateLimitDecision } from '../ports.js';
import type { AppContext } from './context.js';

/**
 * The rate-limit headers of draft-ietf-httpapi-ratelimit-headers-11 on every response to an
 * authenticated request: `RateLimit-Policy: "post";q=1;w=60` and `RateLimit: "post";r=0;t=60`. The
 * policy is the bucket of the request's method: POST creates jobs ("post"), every other method reads
 * them ("get").
 */
export function setRateHeaders(c: AppContext, d: RateLimitDecision, windowMs: number): void {
  const name = c.req.method === 'POST' ? 'post' : 'get';
  c.header('RateLimit-Policy', formatRateLimitPolicy(name, d.limit, Math.round(windowMs / 1000)));
  c.header('RateLimit', formatRateLimit(name, d.remaining, d.resetSeconds));
}
