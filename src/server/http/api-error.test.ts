import { describe, expect, it } from 'vitest';
import { ApiError, invalidRequest } from './api-error.js';

describe('ApiError', () => {
  it('takes its status from the error table unless given one', () => {
    expect(new ApiError('INVALID_KEY', 'm').status).toBe(401);
    expect(new ApiError('NO_API_ACCESS', 'm').status).toBe(403);
    expect(new ApiError('NOT_FOUND', 'm').status).toBe(404);
    expect(new ApiError('TTS_PROVIDER_ERROR', 'm').status).toBe(502);
    expect(new ApiError('RATE_LIMITED', 'm').status).toBe(429);
    expect(new ApiError('INTERNAL_ERROR', 'm').status).toBe(500);
    expect(new ApiError('INVALID_REQUEST', 'm', undefined, {}, 405).status).toBe(405);
  });

  it('keeps code, message, details and headers; invalidRequest makes a 400 INVALID_REQUEST', () => {
    const error = new ApiError('RATE_LIMITED', 'slow down', { retry_after_seconds: 3 }, { 'Retry-After': '3' });
    expect(error).toBeInstanceOf(Error);
    expect([error.code, error.message, error.details, error.headers]).toEqual([
      'RATE_LIMITED',
      'slow down',
      { retry_after_seconds: 3 },
      { 'Retry-After': '3' },
    ]);
    const invalid = invalidRequest('bad');
    expect([invalid.code, invalid.status, invalid.message, invalid.headers]).toEqual(['INVALID_REQUEST', 400, 'bad', {}]);
  });
});
