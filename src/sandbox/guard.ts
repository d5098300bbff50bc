import type { MiddlewareHandler } from 'hono';
import { ApiError, invalidRequest, type AppEnv } from '@agent-tts/server';

const SANDBOX_PATH = /^\/sandbox(?:\/|$)/i;
const READS = new Set(['GET', 'HEAD']);
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * Keeps web pages from moving or wiping a running sandbox. A browser lets any page send a "simple"
 * cross-origin request (a POST of text/plain or a form, without a preflight) and lets it read nothing of
 * the answer, but the request has its effect. So a write to `/sandbox/*` (any method but GET and HEAD)
 * is refused when:
 * - it carries an `Origin` other than the sandbox's own or the one clients reach it on (PUBLIC_BASE_URL)
 *   (browsers send one on every cross-origin write, and on a preflight): 403, before CORS, so that no
 *   preflight of a write passes either;
 * - it carries a body, or a Content-Type, that is not JSON: 400, as the API answers a wrong content
 *   type. A request with a JSON type is never "simple": a page elsewhere needs a preflight for it.
 * Clients that send no Origin (curl, test code, the conformance suite) are not affected.
 */
export function sandboxGuard(ownOrigins: string | readonly string[]): MiddlewareHandler<AppEnv> {
  const owns = [...new Set((typeof ownOrigins === 'string' ? [ownOrigins] : ownOrigins).map((o) => new URL(o).origin))];
  const own = owns.join(' or ');
  return async (c, next) => {
    if (!SANDBOX_PATH.test(c.req.path)) return next();
    const preflight = c.req.method === 'OPTIONS' ? c.req.header('access-control-request-method') : undefined;
    const write = preflight !== undefined ? !READS.has(preflight.toUpperCase()) : c.req.method !== 'OPTIONS' && !READS.has(c.req.method);
    if (!write) return next();
    const origin = c.req.header('origin');
    if (origin !== undefined && !owns.includes(origin.toLowerCase())) {
      throw new ApiError(
        'INVALID_REQUEST',
        `Writes to ${c.req.path} are accepted from the sandbox's own origin (${own}) or from clients that send no Origin header (test code, curl), not from a web page at ${JSON.stringify(origin)}: ` +
          'a page a developer happens to visit must not move or clear a running sandbox. Drive the clock and the journal from the test code.',
        undefined,
        {},
        403,
      );
    }
    if (preflight !== undefined) return next();
    const type = c.req.header('content-type');
    const length = c.req.header('content-length');
    const carriesBody = c.req.header('transfer-encoding') !== undefined || (length !== undefined && Number(length) !== 0);
    if ((type !== undefined || carriesBody) && !JSON_TYPE.test(type ?? '')) {
      throw invalidRequest(
        `Content-Type must be application/json: writes to /sandbox/* take a JSON body (or none), and this one came ${type === undefined ? 'without a Content-Type' : `as ${JSON.stringify(type)}`}.`,
      );
    }
    return next();
  };
}
