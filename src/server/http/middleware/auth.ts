import type { MiddlewareHandler } from 'hono';
import type { Authenticator } from '../../domain/auth.js';
import { ApiError } from '../api-error.js';
import type { BucketKind, RateLimits } from '../../domain/rate-limits.js';
import type { AppEnv } from '../context.js';

/**
 * Requires an API key: sets `principal` (and `displayKey`, for logs) or answers 401/403. Every answer
 * to a request whose key is valid reports the bucket the request belongs to (POST or GET), which
 * rateLimitHeaders (run before this) writes: the routes put the bucket the domain gave them on the
 * context (routes/jobs.ts); a 403 for the account reports it as it stands, peeked here, taking no
 * place. Keys and subscriptions are judged at the deployment's clock (the Authenticator's).
 */
export function requireApiKey(auth: Authenticator, limits: RateLimits): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const kind: BucketKind = c.req.method === 'POST' ? 'post' : 'get';
    const result = await auth.authenticate(c.req.header('authorization'));
    if (!result.ok) {
      if (result.displayKey) c.set('displayKey', result.displayKey);
      if (result.publicId !== undefined) c.set('rateLimit', await limits.peek(kind, result.publicId));
      const headers: Record<string, string> = result.code === 'INVALID_KEY' ? { 'WWW-Authenticate': 'Bearer' } : {};
      throw new ApiError(result.code, result.message, undefined, headers);
    }
    c.set('principal', result.principal);
    c.set('displayKey', result.principal.displayKey);
    await next();
  };
}
