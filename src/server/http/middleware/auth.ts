import type { MiddlewareHandler } from 'hono';
import type { Authenticator } from '../../domain/auth.js';
import { ApiError } from '../../domain/errors.js';
import type { BucketKind, RateLimits } from '../../domain/rate-limits.js';
import { type Clock, StoreUnavailableError } from '../../ports/index.js';
import type { AppEnv } from '../context.js';

/**
 * Requires an API key: sets `principal` (and `displayKey`, for logs) or answers 401/403. Every answer
 * to a request whose key is valid reports the bucket the request belongs to (POST or GET), which
 * rateLimitHeaders (run before this) writes: handlers put the bucket they decided on the context; for
 * any other answer (a validation error, a 403 for the account) it is peeked here, taking no place.
 * Keys and subscriptions are judged at the deployment's clock.
 */
export function requireApiKey(auth: Authenticator, limits: RateLimits, clock: Clock): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const kind: BucketKind = c.req.method === 'POST' ? 'post' : 'get';
    const result = await auth.authenticate(c.req.header('authorization'), clock.now());
    if (!result.ok) {
      if (result.displayKey) c.set('displayKey', result.displayKey);
      if (result.publicId !== undefined) c.set('rateLimit', await limits.peek(kind, result.publicId));
      const headers: Record<string, string> = result.code === 'INVALID_KEY' ? { 'WWW-Authenticate': 'Bearer' } : {};
      throw new ApiError(result.code, result.message, undefined, headers);
    }
    c.set('principal', result.principal);
    c.set('displayKey', result.principal.displayKey);
    try {
      await next();
    } finally {
      // Only refusals get here without a bucket, so the common answer pays nothing for this. Not
      // after a store outage: the peek would wait out a second deadline before the answer leaves.
      if (c.get('rateLimit') === undefined && !(c.error instanceof StoreUnavailableError)) {
        const bucket = await limits.peek(kind, result.principal.key.publicId).catch(() => undefined);
        if (bucket) c.set('rateLimit', bucket);
      }
    }
  };
}
