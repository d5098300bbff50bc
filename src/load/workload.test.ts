import { describe, expect, it } from 'vitest';
import { codePointLength } from '../contract/limits.js';
import { Workload, asksTimings, seededRandom, textOfLength } from './workload.js';

describe('the workload', () => {
  it('makes texts of exactly the length asked, different per submission', () => {
    for (const chars of [1, 2, 17, 100, 1_000, 20_000]) expect(codePointLength(textOfLength(chars, 7))).toBe(chars);
    expect(textOfLength(100, 1)).not.toBe(textOfLength(100, 2));
    expect(textOfLength(100, 3)).toMatch(/^Request 3\. .*\.$/);
  });

  it('draws classes by weight, the same way for the same seed', () => {
    const mix = [
      { name: 'short', weight: 80, chars: 10 },
      { name: 'long', weight: 20, chars: 50 },
      { name: 'never', weight: 0, chars: 5 },
    ];
    const w = new Workload(mix, ['af_heart', 'st_m1'], [1, 1.5], 'fr', 42);
    const subs = Array.from({ length: 2000 }, (_, n) => w.next(n));
    const longShare = subs.filter((s) => s.textClass === 'long').length / subs.length;
    expect(longShare).toBeGreaterThan(0.17);
    expect(longShare).toBeLessThan(0.23);
    expect(subs.some((s) => s.textClass === 'never')).toBe(false);
    expect(new Set(subs.slice(0, 4).map((s) => `${s.body.voice}@${s.body.speed}`)).size).toBe(4);
    expect(subs[0]!.body.language).toBe('fr');
    const again = new Workload(mix, ['af_heart', 'st_m1'], [1, 1.5], 'fr', 42);
    expect(Array.from({ length: 50 }, (_, n) => again.next(n).textClass)).toEqual(subs.slice(0, 50).map((s) => s.textClass));
  });

  it('asks for word timings on the given share of submissions, spread evenly, without changing the draws', () => {
    const mix = [{ name: 'short', weight: 1, chars: 20 }];
    for (const share of [0, 0.2, 0.25, 1 / 3, 0.5, 1]) {
      const w = new Workload(mix, ['af_heart'], [1.2], undefined, 7, share);
      const subs = Array.from({ length: 300 }, (_, n) => w.next(n));
      const asked = subs.filter((s) => s.asksTimings);
      expect(asked.length, String(share)).toBe(Math.round(300 * share));
      expect(asked.every((s) => s.body.timestamps === 'word')).toBe(true);
      expect(subs.filter((s) => !s.asksTimings).some((s) => 'timestamps' in s.body)).toBe(false);
      // Evenly: every 10 consecutive submissions hold the share of 10, give or take one.
      for (let i = 0; i + 10 <= 300; i += 10) expect(Math.abs(subs.slice(i, i + 10).filter((s) => s.asksTimings).length - 10 * share)).toBeLessThan(1);
    }
    const plain = new Workload(mix, ['af_heart'], [1.2], undefined, 7);
    expect(plain.next(0).asksTimings).toBe(false);
    expect(asksTimings(4, 0.2)).toBe(true);
    expect([0, 1, 2, 3].map((n) => asksTimings(n, 0.2))).toEqual([false, false, false, false]);
  });

  it('has a seeded generator in [0, 1)', () => {
    const r = seededRandom(5);
    const values = Array.from({ length: 1000 }, r);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    expect(seededRandom(5)()).toBe(values[0]);
  });
});
