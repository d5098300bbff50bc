import type { MiddlewareHandler } from 'hono';
import type { Authenticator } from '../../domain/auth.js';
import { ApiError } from '../../domain/errors.js';
import { StoreUnavailableError } from '../../ports/index.js';
import type { BucketKind, JobService } from '../../domain/jobs.js';
import type { AppEnv } from '../context.js';
import { hasRateHeaders, setRateHeaders } from '../rate-headers.js';

/**
 * Requires an API key: sets `principal` (and `displayKey`, for logs) or answers 401/403. Every answer
 * to a request whose key is valid carries the RateLimit headers of the bucket the request belongs to
 * (POST or GET): handlers set them from the decision they made; for any other answer (a validation
 * error, a 403 for the account) they are reported here without taking a place.
 */
export function requireApiKey(auth: Authenticator, jobs: JobService): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const kind: BucketKind = c.req.method === 'POST' ? 'post' : 'get';
    const result = await auth.authenticate(c.req.header('authorization'), jobs.now());
    if (!result.ok) {
      if (result.displayKey) c.set('displayKey', result.displayKey);
      if (result.publicId !== undefined) {
        setRateHeaders(c, kind, await jobs.peekBucket(kind, result.publicId), jobs.rateLimits.windowMs);
      }
      const headers: Record<string, string> = result.code === 'INVALID_KEY' ? { 'WWW-Authenticate': 'Bearer' } : {};
      throw new ApiError(result.code, result.message, undefined, headers);
    }
    c.set('principal', result.principal);
    c.set('displayKey', result.principal.displayKey);
    try {
      await next();
    } finally {
      // Only refusals get here without the headers, so the common answer pays nothing for this. Not
      // after a store outage: the peek would wait out a second deadline before the answer leaves.
      if (!hasRateHeaders(c) && !(c.error instanceof StoreUnavailableError)) {
        const bucket = await jobs.peekBucket(kind, result.principal.key.publicId).catch(() => undefined);
        if (bucket) setRateHeaders(c, kind, bucket, jobs.rateLimits.windowMs);
      }
    }
  };
}
