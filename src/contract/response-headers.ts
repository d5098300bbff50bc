/**
 * The response headers the document describes: X-Request-Id, CORS, and each operation's rate-limit
 * policy with the values its examples show.
 */
import { LIMITS } from './limits.js';
import { type PolicyName, RATELIMIT_DRAFT, formatRateLimit, formatRateLimitPolicy } from './ratelimit-headers.js';

type HeaderSchema = { type: 'string'; maxLength: number; pattern?: string; format?: string; enum?: string[] };
type HeaderObject = {
  description: string;
  required?: boolean;
  schema: HeaderSchema;
  /** Also what the mock (Prism) sends for the header. */
  example: string;
};
export const header = (description: string, schema: HeaderSchema, example: string, required = false): HeaderObject => ({
  description,
  ...(required ? { required: true } : {}),
  schema,
  example,
});
export const text = (pattern: string, maxLength = 256): HeaderSchema => ({ type: 'string', pattern, maxLength });
export type Headers = Record<string, HeaderObject>;

export const requestIdHeader = header(
  'The request id, as in meta.request_id.',
  { type: 'string', format: 'uuid', maxLength: 36 },
  'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f',
  true,
);
/**
 * Each operation's policy at the server's default limits (src/contract/limits.ts), and what is left
 * of it in the examples: after a submission the one POST of the window is used; after a poll 29 GETs
 * are left. A 429 example has nothing left and waits `retryAfter` seconds: the `t` of its RateLimit,
 * its Retry-After and the wait its message names (test/openapi-ratelimit-examples.test.ts).
 */
export const POLICIES = {
  post: { quota: LIMITS.postPerMinute, remaining: 0, retryAfter: 42 },
  get: { quota: LIMITS.getPerMinute, remaining: LIMITS.getPerMinute - 1, retryAfter: 12 },
} as const satisfies Record<PolicyName, { quota: number; remaining: number; retryAfter: number }>;

/**
 * Sent on every response to a request whose key passed authentication (required where always so):
 * the policy of the operation's own bucket, as the server sends it. `limited`: the values of a 429.
 */
export const rateLimitHeaders = (policy: PolicyName, required: boolean, limited = false): Headers => {
  const { quota, remaining, retryAfter } = POLICIES[policy];
  const window = LIMITS.rateWindowSeconds;
  const state = limited ? formatRateLimit(policy, 0, retryAfter) : formatRateLimit(policy, remaining, window);
  return {
    'RateLimit-Policy': header(
      `The policy of the bucket that applies to this request, as in ${RATELIMIT_DRAFT} (a Structured Fields List): the policy name (\`"post"\` for POST, \`"get"\` for GET; \`"${policy}"\` here) with \`q\` (requests per window) and \`w\` (the window in seconds): \`${formatRateLimitPolicy(policy, quota, window)}\` with the default limits. Sent whenever the key passed authentication.`,
      text(`^"${policy}";q=\\d{1,9};w=\\d{1,9}$`, 48),
      formatRateLimitPolicy(policy, quota, window),
      required,
    ),
    RateLimit: header(
      `What is left of that policy, as in ${RATELIMIT_DRAFT} (a Structured Fields List): the policy name with \`r\` (requests remaining) and \`t\` (seconds until the quota is restored), e.g. \`${state}\`.${limited ? ' On a 429 `r` is 0 and `t` equals Retry-After.' : ''} Sent whenever the key passed authentication.`,
      text(`^"${policy}";r=\\d{1,9};t=\\d{1,9}$`, 48),
      state,
      required,
    ),
  };
};
/** CORS (docs/api-rules.md#cors): present only for browser requests from an allowed origin. */
export const corsHeader: Headers = {
  'Access-Control-Allow-Origin': header(
    'The request’s Origin, when it is the first-party origin or a preview origin; absent otherwise.',
    text('^https?://[^\\s/]+$', 512),
    'https://app.example.com',
  ),
};
/** Headers of a response to an authenticated request of the operation with this policy. */
export const commonHeaders = (policy: PolicyName): Headers => ({ 'X-Request-Id': requestIdHeader, ...rateLimitHeaders(policy, true), ...corsHeader });
/** Headers of a response that may come before (or without) a rate-limit decision. */
export const looseHeaders = (policy: PolicyName): Headers => ({ 'X-Request-Id': requestIdHeader, ...rateLimitHeaders(policy, false), ...corsHeader });
/** Headers of the routes without an API key (audio download, voice catalog): no rate-limit bucket applies. */
export const publicHeaders = { 'X-Request-Id': requestIdHeader, ...corsHeader };
