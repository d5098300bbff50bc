/** What a successful call tells besides its body: the answer's request id, status and rate-limit state. */
import { readRateLimitHeaders } from '../contract/ratelimit-headers.js';
import { type RateLimitInfo, parseRetryAfter } from './errors.js';

/**
 * The HTTP answer a result came from, as stripe-node's `lastResponse`: the request id to quote to
 * support or find in the service's logs, the status, and the rate-limit bucket of that request as the
 * RateLimit-Policy / RateLimit headers reported it (what is left, and when it refills).
 */
export interface ResponseInfo {
  /** `X-Request-Id` of the answer (the body's `meta.request_id` when the header is missing). */
  requestId?: string;
  status: number;
  /** The bucket of the request's method ("post" or "get"): its quota and window, what remains and for how long. */
  rateLimit?: RateLimitInfo;
  /** Retry-After of the answer, in seconds, when it carried one (a processing job's next poll). */
  retryAfterSeconds?: number;
}

/**
 * A result with the answer it came from, as `lastResponse`. The property is not enumerable, so the
 * object still serialises (JSON.stringify, spreading) as the API's body alone.
 */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };

export function responseInfo(response: Response, body?: unknown): ResponseInfo {
  const bodyId = (body as { meta?: { request_id?: unknown } } | undefined)?.meta?.request_id;
  const requestId = response.headers.get('x-request-id') ?? (typeof bodyId === 'string' ? bodyId : undefined);
  const rateLimit = readRateLimitHeaders((name) => response.headers.get(name));
  const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
  return {
    requestId,
    status: response.status,
    ...(rateLimit ? { rateLimit } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  };
}

/** Attaches `lastResponse` (not enumerable) to a result object and returns it. */
export function withResponse<T extends object>(value: T, response: ResponseInfo): WithResponse<T> {
  Object.defineProperty(value, 'lastResponse', { value: response, enumerable: false, configurable: true });
  return value as WithResponse<T>;
}

/** A completed job of `speak`: `lastResponse`, and the POST's answer as `submitResponse` (not enumerable either). */
export type SpeakResult<T> = WithResponse<T> & { readonly submitResponse: ResponseInfo };

export function withSubmitResponse<T extends object>(value: WithResponse<T>, submit: ResponseInfo): SpeakResult<T> {
  Object.defineProperty(value, 'submitResponse', { value: submit, enumerable: false, configurable: true });
  return value as SpeakResult<T>;
}
