import { describe, expect, it } from 'vitest';
import { Recorder } from './recorder.js';
import { Schedule } from './schedule.js';

/** 1 request per 2 s for 60 s: due at 0, 2000, …, 58 000 ms, every one on a one-second bucket edge. */
const slow = () => [...new Schedule([{ durationMs: 60_000, target: 0.5 }], 0.5).dueTimes()];

describe('the timeline of a synthetic schedule', () => {
  it('counts a submission sent in the bucket it was due, even when its timer woke a little early', () => {
    const r = new Recorder(1000, ['k']);
    const dues = slow();
    expect(dues).toHaveLength(30);
    dues.forEach((due, i) => {
      r.onDue(due);
      // Timers count whole milliseconds: some wake a fraction of one before the due time, others late.
      const sentAt = due + [-0.4, 0, 0.7, -0.01][i % 4]!;
      r.onSent(sentAt, sentAt - due, 0, true);
    });
    const points = r.timeline();
    expect(points.map((p) => p.sent)).toEqual(points.map((p) => p.due));
    expect(points.map((p) => p.due)).toEqual(Array.from({ length: 59 }, (_, i) => (i % 2 === 0 ? 1 : 0)));
    // No negative lag either.
    expect(r.lag.summary().min_ms).toBeGreaterThanOrEqual(0);
  });

  it('merges buckets into coarser ones: counts add up, percentiles from the merged samples', () => {
    const r = new Recorder(1000, ['k']);
    for (const due of slow()) {
      r.onDue(due);
      r.onSent(due + 3, 3, 0, true);
      r.onPostAnswer(due + 50, 200, due / 1000 + 10, 0);
    }
    const points = r.timeline(10_000);
    expect(points.map((p) => p.t)).toEqual([0, 10, 20, 30, 40, 50]);
    expect(points.map((p) => p.due)).toEqual([5, 5, 5, 5, 5, 5]);
    expect(points.map((p) => p.sent)).toEqual([5, 5, 5, 5, 5, 5]);
    expect(points.map((p) => p.statuses['200'])).toEqual([5, 5, 5, 5, 5, 5]);
    // Samples 10, 12, 14, 16, 18 ms in the first ten seconds.
    expect(points[0]).toMatchObject({ submit_p50_ms: 14, submit_p95_ms: 18, lag_max_ms: 3 });
  });

  it('sizes the chart timeline from the run: ten-second buckets at 1 per 2 s, one-second ones at 10/s', () => {
    const r = new Recorder(1000, ['k']);
    for (const due of slow()) {
      r.onDue(due);
      r.onSent(due, 0, 0, true);
    }
    const t = r.chartTimeline(60_000);
    expect(t.bucket_s).toBe(10);
    expect(t.points.map((p) => p.sent / t.bucket_s)).toEqual([0.5, 0.5, 0.5, 0.5, 0.5, 0.5]);

    const fast = new Recorder(1000, ['k']);
    for (const due of new Schedule([{ durationMs: 30_000, target: 10 }], 10).dueTimes()) fast.onDue(due);
    expect(fast.chartTimeline(30_000).bucket_s).toBe(1);
  });
});
