/** The content of the routes' responses: JSON bodies with named examples, and the error responses shared by the operations. */
import type { z } from '@hono/zod-openapi';
import type { ErrorCode } from './errors.js';
import { ERROR_TABLE } from './errors.js';
import { errorExamples } from './examples.js';
import { LIMITS } from './limits.js';
import { rateLimitedMessage } from './messages.js';
import type { PolicyName } from './ratelimit-headers.js';
import { ErrorBody } from './envelope-schemas.js';
import {
  type Headers,
  POLICIES,
  commonHeaders,
  corsHeader,
  header,
  looseHeaders,
  publicHeaders,
  rateLimitHeaders,
  requestIdHeader,
} from './response-headers.js';

// Generic, so that a route's response types carry the schema's type: a handler bound to the route
// fails to compile when it answers a body its schema does not describe.
export const json = <T extends z.ZodType>(schema: T, examples: Record<string, { summary: string; value: unknown }>) => ({
  'application/json': { schema, examples },
});

/**
 * One error response per HTTP status, with a named example for each code that status can carry;
 * `messages` gives the examples of an operation its own wording (what that operation refuses).
 */
export function errorResponse(codes: readonly ErrorCode[], extraHeaders: Headers, baseHeaders: Headers, messages: Partial<Record<ErrorCode, string>> = {}) {
  const lines = codes.map((code) => `\`${code}\`: ${ERROR_TABLE[code].condition}. ${ERROR_TABLE[code].action}`);
  return {
    description: lines.join('\n\n'),
    headers: { ...baseHeaders, ...extraHeaders },
    content: json(ErrorBody, errorExamples(codes, messages)),
  };
}

export const authErrors = (policy: PolicyName) => ({
  // A key that fails authentication gets no rate-limit headers: no bucket is its own.
  401: errorResponse(
    ['INVALID_KEY'],
    { 'WWW-Authenticate': header('`Bearer`: the scheme to use.', { type: 'string', enum: ['Bearer'], maxLength: 6 }, 'Bearer', true) },
    { 'X-Request-Id': requestIdHeader, ...corsHeader },
  ),
  // The key itself is valid: its buckets are reported, as on every authenticated answer.
  403: errorResponse(['INACTIVE_SUBSCRIPTION', 'NO_API_ACCESS'], {}, commonHeaders(policy)),
});
/** The 429 of the operation with this policy: its headers, Retry-After and message say the same. */
export const rateLimited = (policy: PolicyName) => {
  const { quota, retryAfter } = POLICIES[policy];
  return errorResponse(
    ['RATE_LIMITED'],
    {
      'Retry-After': header(
        'Whole seconds (at least 1) until the bucket admits a request: the `t` of `RateLimit`, and the wait the message names.',
        { type: 'string', pattern: '^\\d{1,6}$', maxLength: 6 },
        String(retryAfter),
        true,
      ),
    },
    { 'X-Request-Id': requestIdHeader, ...rateLimitHeaders(policy, true, true), ...corsHeader },
    { RATE_LIMITED: rateLimitedMessage(policy === 'post' ? 'POST' : 'GET', quota, LIMITS.rateWindowSeconds, retryAfter) },
  );
};
export const internalError = (policy: PolicyName) => errorResponse(['INTERNAL_ERROR'], {}, looseHeaders(policy));
export const publicError = (codes: readonly ErrorCode[], extra: Headers = {}, messages: Partial<Record<ErrorCode, string>> = {}) =>
  errorResponse(codes, extra, publicHeaders, messages);
