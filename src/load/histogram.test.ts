import { decodeFromCompressedBase64 } from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from './histogram.js';

describe('latency histograms (HdrHistogram)', () => {
  it('summarises in milliseconds within HdrHistogram precision', () => {
    const h = new LatencyHistogram();
    for (let ms = 1; ms <= 1000; ms++) h.record(ms);
    const s = h.summary();
    expect(s.count).toBe(1000);
    expect(s.min_ms).toBeCloseTo(1, 2);
    expect(s.p50_ms! / 500).toBeCloseTo(1, 2);
    expect(s.p95_ms! / 950).toBeCloseTo(1, 2);
    expect(s.p99_ms! / 990).toBeCloseTo(1, 2);
    expect(s.max_ms! / 1000).toBeCloseTo(1, 2);
    expect(s.p99_ms!).toBeLessThanOrEqual(s.max_ms!);
    expect(s.mean_ms! / 500.5).toBeCloseTo(1, 2);
  });

  it('keeps sub-millisecond values and has no figures without samples', () => {
    const h = new LatencyHistogram();
    expect(h.summary()).toEqual({ count: 0, min_ms: null, mean_ms: null, p50_ms: null, p90_ms: null, p95_ms: null, p99_ms: null, max_ms: null });
    expect(h.percentile(95)).toBeNull();
    h.record(0.25);
    expect(h.summary().max_ms).toBeCloseTo(0.25, 3);
    h.record(Number.NaN);
    expect(h.count).toBe(1);
  });

  it('encodes to the compressed form HdrHistogram tools read back', () => {
    const h = new LatencyHistogram();
    for (const ms of [5, 10, 2000]) h.record(ms);
    const back = decodeFromCompressedBase64(h.encode());
    expect(back.totalCount).toBe(3);
    expect(back.maxValue / 1000).toBeCloseTo(2000, -1);
  });
});
