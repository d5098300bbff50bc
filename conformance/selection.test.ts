import { describe, expect, it } from 'vitest';
import { disabledReason, globToRegExp, unmatchedPatterns } from './selection.js';

describe('--only / --skip patterns', () => {
  it('matches ids exactly or by glob', () => {
    expect(globToRegExp('auth.*').test('auth.missing-header')).toBe(true);
    expect(globToRegExp('auth.*').test('authx.missing')).toBe(false);
    expect(globToRegExp('*.retry-*').test('idempotency.retry-after-error')).toBe(true);
    expect(globToRegExp('rate-limit.get').test('rate-limit.get')).toBe(true);
    expect(globToRegExp('rate-limit.get').test('rate-limit.gets')).toBe(false);
    expect(globToRegExp('job.?').test('job.a')).toBe(true);
  });

  it('disables what --only leaves out and what --skip names', () => {
    expect(disabledReason('auth.revoked-key', [], [])).toBeUndefined();
    expect(disabledReason('auth.revoked-key', ['cors.*'], [])).toMatch(/--only/);
    expect(disabledReason('auth.revoked-key', ['auth.*'], ['*.revoked-key'])).toMatch(/--skip/);
  });

  it('names the patterns that match no rule id', () => {
    const ids = ['auth.missing-header', 'auth.revoked-key', 'rate-limit.get'];
    expect(unmatchedPatterns([], ids)).toEqual([]);
    expect(unmatchedPatterns(['auth.*', 'rate-limit.get', '*.revoked-?ey'], ids)).toEqual([]);
    expect(unmatchedPatterns(['auth', 'auth.*', 'nonexist.rule', 'rate-limit.gets'], ids)).toEqual(['auth', 'nonexist.rule', 'rate-limit.gets']);
  });
});
