import { describe, expect, it } from 'vitest';
import { KeySpreader, Schedule, allowedRate } from './schedule.js';

describe('the open-loop schedule', () => {
  it('sends a flat rate evenly: 2/s for 20 s is 40 submissions, 0.5 s apart', () => {
    const times = [...new Schedule([{ durationMs: 20_000, target: 2 }], 2).dueTimes()];
    expect(times).toHaveLength(40);
    expect(times[0]).toBe(0);
    expect(times[1]).toBeCloseTo(500);
    expect(times[39]).toBeCloseTo(19_500);
  });

  it('ramps linearly within each stage, as k6 does', () => {
    const schedule = new Schedule(
      [
        { durationMs: 10_000, target: 4 },
        { durationMs: 10_000, target: 4 },
        { durationMs: 10_000, target: 0 },
      ],
      0,
    );
    expect(schedule.expectedCount).toBeCloseTo(20 + 40 + 20);
    expect(schedule.peakRate).toBe(4);
    expect(schedule.rateAt(5_000)).toBeCloseTo(2);
    expect(schedule.rateAt(15_000)).toBeCloseTo(4);
    expect(schedule.rateAt(25_000)).toBeCloseTo(2);
    const times = [...schedule.dueTimes()];
    expect(times.length).toBeGreaterThanOrEqual(79);
    expect(times.length).toBeLessThanOrEqual(80);
    // The first ramp sends 20 in 10 s but most of them late in it: the gaps shrink as the rate grows.
    expect(times.filter((t) => t < 5_000)).toHaveLength(5);
    expect(times.filter((t) => t < 10_000)).toHaveLength(20);
    for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThan(times[i - 1]!);
    expect(times[times.length - 1]!).toBeLessThan(30_000);
  });

  it('sends nothing in a stage held at 0', () => {
    expect([
      ...new Schedule(
        [
          { durationMs: 5_000, target: 0 },
          { durationMs: 1_000, target: 0 },
        ],
        0,
      ).dueTimes(),
    ]).toEqual([]);
  });
});

describe('spreading submissions over the keys', () => {
  it('allows N keys × limit per window', () => {
    expect(allowedRate(8, 1, 60)).toBeCloseTo(8 / 60);
    expect(allowedRate(8, 1000, 60)).toBeCloseTo(133.33, 1);
  });

  it('takes keys in turn and never puts more than the limit in any window', () => {
    const spreader = new KeySpreader(3, 2, 60_000);
    const used: number[] = [];
    // 6 POSTs allowed per minute: one every 10 s stays within the limit of every key.
    for (let t = 0; t < 600_000; t += 10_000) {
      const { key, withinLimit } = spreader.take(t);
      expect(withinLimit).toBe(true);
      used.push(key);
    }
    expect(used.slice(0, 6)).toEqual([0, 1, 2, 0, 1, 2]);
    for (let k = 0; k < 3; k++) {
      const times = used.map((key, i) => (key === k ? i * 10_000 : -1)).filter((t) => t >= 0);
      for (let i = 2; i < times.length; i++) expect(times[i]! - times[i - 2]!).toBeGreaterThanOrEqual(60_000);
    }
  });

  it('skips a key whose window is full, and says when none has room', () => {
    const spreader = new KeySpreader(2, 1, 60_000);
    expect(spreader.take(0)).toEqual({ key: 0, withinLimit: true });
    expect(spreader.take(1_000)).toEqual({ key: 1, withinLimit: true });
    // Both used within the minute: the key that frees first is named, and the POST is expected to be refused.
    expect(spreader.take(2_000)).toEqual({ key: 0, withinLimit: false });
    expect(spreader.take(61_000)).toEqual({ key: 1, withinLimit: true });
  });

  it('gives back a refused POST: it spent no quota', () => {
    const spreader = new KeySpreader(1, 1, 60_000);
    expect(spreader.take(0).withinLimit).toBe(true);
    spreader.giveBack(0, 0);
    expect(spreader.take(1_000).withinLimit).toBe(true);
    expect(spreader.take(2_000).withinLimit).toBe(false);
  });
});
