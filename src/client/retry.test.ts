import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, backoffDelayMs, resolveRetryPolicy, sleep } from './retry.js';

describe('backoffDelayMs', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };

  it('draws from an exponentially growing ceiling (full jitter)', () => {
    expect(backoffDelayMs(policy, 1, undefined, () => 0.999)).toBe(99);
    expect(backoffDelayMs(policy, 3, undefined, () => 0.999)).toBe(399);
    expect(backoffDelayMs(policy, 3, undefined, () => 0)).toBe(0);
  });

  it('never exceeds the ceiling', () => {
    expect(backoffDelayMs(policy, 20, undefined, () => 0.999)).toBe(999);
  });

  it('waits at least Retry-After, plus under a second of jitter', () => {
    expect(backoffDelayMs(policy, 1, 7, () => 0)).toBe(7000);
    expect(backoffDelayMs(policy, 1, 7, () => 0.5)).toBe(7500);
    expect(backoffDelayMs(policy, 1, 7, () => 0.999)).toBeLessThan(8000);
  });
});

describe('resolveRetryPolicy', () => {
  it('rejects a policy without attempts', () => {
    expect(() => resolveRetryPolicy({ maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => resolveRetryPolicy({ maxAttempts: 1.5 })).toThrow(/maxAttempts/);
  });
  it('fills in defaults', () => {
    expect(resolveRetryPolicy({ maxAttempts: 2 })).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 2 });
  });
});

describe('sleep', () => {
  it('rejects with the abort reason as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = sleep(10_000, controller.signal);
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await expect(pending).rejects.toThrow('stop');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
