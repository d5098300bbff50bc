import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';

const ALLOW_METHODS = 'GET, POST, OPTIONS';
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, User-Agent';
const EXPOSE_HEADERS = 'Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, Idempotent-Replayed, WWW-Authenticate, Agent-TTS-Sandbox';

/**
 * CORS (docs/api-rules.md#cors): the first-party origin and preview origins get CORS headers; any other origin
 * gets none, so browsers refuse the response. Non-browser clients send no Origin and are unaffected.
 */
export function cors(origins: readonly string[], previewPattern?: RegExp): MiddlewareHandler<AppEnv> {
  const allowed = new Set(origins.map((o) => o.toLowerCase()));
  const isAllowed = (origin: string) => allowed.has(origin.toLowerCase()) || (previewPattern?.test(origin) ?? false);
  return async (c, next) => {
    const origin = c.req.header('origin');
    const ok = origin !== undefined && isAllowed(origin);
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')) {
      c.header('Vary', 'Origin');
      if (ok) {
        c.header('Access-Control-Allow-Origin', origin);
        c.header('Access-Control-Allow-Methods', ALLOW_METHODS);
        c.header('Access-Control-Allow-Headers', ALLOW_HEADERS);
        c.header('Access-Control-Max-Age', '600');
      }
      return c.body(null, 204);
    }
    // Set before the handler runs, so its response is built with them: changing headers after
    // `next()` makes Hono rebuild the response, which costs the Node adapter its fast path.
    c.header('Vary', 'Origin');
    if (ok) {
      c.header('Access-Control-Allow-Origin', origin);
      c.header('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    }
    await next();
  };
}
