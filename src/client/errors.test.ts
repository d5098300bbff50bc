import { describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../contract/errors.js';
import { AgentTtsError, errorFromResponse, parseRetryAfter, stripQuery } from './errors.js';

const body = (code: string, message: string, details?: object) => ({
  success: false,
  error: { code, message, ...(details ? { details } : {}) },
  meta: { request_id: '11111111-2222-4333-8444-555555555555', api_version: '2026-04' },
});

describe('errorFromResponse', () => {
  it('carries code, message, details, status, request id and the suggested action of §7', () => {
    const response = new Response(null, { status: 403 });
    const error = errorFromResponse(response, body('USAGE_LIMIT_EXCEEDED', 'used up', { limit: 30, used: 30, tier: 'free', upgrade_url: 'https://x/billing' }));
    expect(error).toBeInstanceOf(AgentTtsError);
    expect(error.code).toBe('USAGE_LIMIT_EXCEEDED');
    expect(error.status).toBe(403);
    expect(error.requestId).toBe('11111111-2222-4333-8444-555555555555');
    expect(error.details).toEqual({ limit: 30, used: 30, tier: 'free', upgrade_url: 'https://x/billing' });
    expect(error.suggestedAction).toBe(ERROR_TABLE.USAGE_LIMIT_EXCEEDED.action);
    expect(error.retryable).toBe(false);
  });

  it('reads Retry-After', () => {
    const response = new Response(null, { status: 429, headers: { 'Retry-After': '42' } });
    const error = errorFromResponse(response, body('RATE_LIMITED', 'slow down'));
    expect(error.retryAfterSeconds).toBe(42);
    expect(error.retryable).toBe(true);
  });

  it('turns a body that is not the API error shape into INVALID_RESPONSE, keeping the status', () => {
    const error = errorFromResponse(new Response(null, { status: 502 }), '<html>Bad gateway</html>');
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.status).toBe(502);
    expect(error.retryable).toBe(true);
    expect(errorFromResponse(new Response(null, { status: 404 }), 'nope').retryable).toBe(false);
  });
});

describe('AgentTtsError rules of §4.7', () => {
  it('asks for a new key only when the message says so', () => {
    const fresh = new AgentTtsError({ code: 'TTS_PROVIDER_ERROR', message: 'Engine failed. Retry with backoff, using a new Idempotency-Key.' });
    const same = new AgentTtsError({ code: 'INTERNAL_ERROR', message: 'Internal server error. Retry with backoff.' });
    expect(fresh.needsNewIdempotencyKey).toBe(true);
    expect(same.needsNewIdempotencyKey).toBe(false);
    expect(fresh.retryable && same.retryable).toBe(true);
  });

  it('does not retry client errors', () => {
    for (const code of ['INVALID_KEY', 'INVALID_REQUEST', 'TEXT_TOO_LONG', 'NOT_FOUND', 'NO_API_ACCESS'] as const) {
      expect(new AgentTtsError({ code, message: 'x', status: ERROR_TABLE[code].status }).retryable).toBe(false);
    }
  });
});

describe('helpers', () => {
  it('parses Retry-After seconds and dates', () => {
    expect(parseRetryAfter('5')).toBe(5);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    const inTen = new Date(Date.now() + 10_000).toUTCString();
    expect(parseRetryAfter(inTen)).toBeGreaterThanOrEqual(8);
  });
  it('strips the signed query of URLs', () => {
    expect(stripQuery('http://h/v1/audio/x.mp3?expires=1&sig=abc')).toBe('http://h/v1/audio/x.mp3');
  });
});

describe('errorFromResponse: the RateLimit headers of draft-ietf-httpapi-ratelimit-headers-11', () => {
  const limited = (headers: Record<string, string>) =>
    errorFromResponse(new Response(null, { status: 429, headers }), body('RATE_LIMITED', 'Too many requests'));

  it('reads the named policy and what is left of it', () => {
    const error = limited({ 'retry-after': '42', 'ratelimit-policy': '"post";q=1;w=60', ratelimit: '"post";r=0;t=42' });
    expect(error.rateLimit).toEqual({ policy: { name: 'post', quota: 1, windowSeconds: 60 }, state: { name: 'post', remaining: 0, resetSeconds: 42 } });
    expect(error.retryAfterSeconds).toBe(42);
  });

  it('falls back to RateLimit t= when a 429 has no Retry-After', () => {
    expect(limited({ 'ratelimit-policy': '"get";q=30;w=60', ratelimit: '"get";r=0;t=17' }).retryAfterSeconds).toBe(17);
  });

  it('ignores the draft-07 syntax rather than misreading it', () => {
    const error = limited({ 'ratelimit-policy': '1;w=60', ratelimit: 'limit=1, remaining=0, reset=60' });
    expect(error.rateLimit).toBeUndefined();
    expect(error.retryAfterSeconds).toBeUndefined();
  });
});
