import { describe, expect, it } from 'vitest';
import { centiminutesToMinutes, minutesToCentiminutes, secondsToCentiminutes, usageMonth } from './usage.js';

describe('usage arithmetic', () => {
  it('charges audio seconds in hundredths of a minute, rounded up, never negative', () => {
    expect(secondsToCentiminutes(60)).toBe(100);
    expect(secondsToCentiminutes(0.6)).toBe(1);
    expect(secondsToCentiminutes(0.61)).toBe(2);
    expect(secondsToCentiminutes(1.2)).toBe(2);
    expect(secondsToCentiminutes(0)).toBe(0);
    expect(secondsToCentiminutes(-5)).toBe(0);
  });

  it('converts between minutes and hundredths of a minute', () => {
    expect(centiminutesToMinutes(1235)).toBe(12.35);
    expect(centiminutesToMinutes(0.6)).toBe(0.01);
    expect(minutesToCentiminutes(12.345)).toBe(1235);
    expect(minutesToCentiminutes(0.004)).toBe(0);
  });

  it('puts a moment in its UTC calendar month', () => {
    expect(usageMonth(Date.UTC(2026, 0, 31, 23, 59, 59, 999))).toBe('2026-01');
    expect(usageMonth(Date.UTC(2026, 1, 1))).toBe('2026-02');
    expect(usageMonth(Date.UTC(2026, 11, 31, 23, 30))).toBe('2026-12');
  });
});
