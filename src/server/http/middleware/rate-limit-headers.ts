import type { MiddlewareHandler } from 'hono';
import { formatRateLimit, formatRateLimitPolicy } from '@agent-tts/contract/ratelimit-headers.js';
import type { BucketReport } from '../../domain/rate-limits.js';
import type { AppEnv } from '../context.js';

/**
 * The one place the rate-limit headers of draft-ietf-httpapi-ratelimit-headers-11 are made
 * (`rateLimitPolicyOf`, `rateLimitOf`; the poll answered ahead of the app writes the same values) and set:
 * `RateLimit-Policy: "post";q=1;w=60` and `RateLimit: "post";r=0;t=60`, for the bucket the request
 * belongs to (POST creates jobs, "post"; GET reads them, "get"). They are written after the rest of
 * the request has run, from the bucket the handler or authentication put on the context
 * (`rateLimit`), on whatever answer it made: createApp's error handler has by then turned a thrown
 * error into its answer. An answer without a bucket on the context gets no headers.
 *
 * They go into the answer's own headers (`c.res.headers`), not through `c.header`: once an answer is
 * built, `c.header` copies it into a new web Response (its body read as a stream), and
 * @hono/node-server then writes that through its slow path (a stream, an AbortSignal, the headers
 * copied again) instead of sending the string it was given. Setting the headers of the answer keeps
 * it the adapter's lightweight response; the poll's throughput depends on it (bench/README.md, poll).
 */
export const rateLimitHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const bucket = c.get('rateLimit');
  if (!bucket) return;
  const headers = c.res.headers;
  headers.set('RateLimit-Policy', rateLimitPolicyOf(bucket));
  headers.set('RateLimit', rateLimitOf(bucket));
};

/** `RateLimit-Policy` of a bucket: `"get";q=30;w=60`. */
export const rateLimitPolicyOf = ({ kind, decision, windowMs }: BucketReport): string =>
  formatRateLimitPolicy(kind, decision.limit, Math.round(windowMs / 1000));

/** `RateLimit` of a bucket: `"get";r=29;t=60`. */
export const rateLimitOf = ({ kind, decision }: BucketReport): string => formatRateLimit(kind, decision.remaining, decision.resetSeconds);
