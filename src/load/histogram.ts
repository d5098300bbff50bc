import { build, encodeIntoCompressedBase64, type Histogram } from 'hdr-histogram-js';

/** Percentiles of one latency, in milliseconds; null figures when there are no samples. */
export interface LatencySummary {
  count: number;
  min_ms: number | null;
  mean_ms: number | null;
  p50_ms: number | null;
  p90_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
}

/** Values are recorded in microseconds, up to an hour, with 3 significant digits (HdrHistogram). */
const HIGHEST_US = 3_600_000_000;

/**
 * A latency histogram (HdrHistogram, `hdr-histogram-js`): constant memory whatever the number of
 * samples, percentiles within 0.1%. Values above an hour are clamped to an hour.
 */
export class LatencyHistogram {
  private readonly h: Histogram;

  constructor() {
    this.h = build({ lowestDiscernibleValue: 1, highestTrackableValue: HIGHEST_US, numberOfSignificantValueDigits: 3, autoResize: false });
  }

  record(ms: number): void {
    if (!Number.isFinite(ms)) return;
    this.h.recordValue(Math.min(HIGHEST_US, Math.max(1, Math.round(ms * 1000))));
  }

  get count(): number {
    return this.h.totalCount;
  }

  /** The value at percentile `p` (0–100), in ms; null without samples. */
  percentile(p: number): number | null {
    return this.count === 0 ? null : Math.min(this.h.getValueAtPercentile(p), this.h.maxValue) / 1000;
  }

  summary(): LatencySummary {
    const n = this.count;
    // HdrHistogram answers a percentile with the highest value equivalent to its bucket: never above the max.
    const ms = (us: number) => (n === 0 ? null : Math.round(Math.min(us, this.h.maxValue)) / 1000);
    return {
      count: n,
      min_ms: ms(this.h.minNonZeroValue),
      mean_ms: ms(this.h.mean),
      p50_ms: ms(this.h.getValueAtPercentile(50)),
      p90_ms: ms(this.h.getValueAtPercentile(90)),
      p95_ms: ms(this.h.getValueAtPercentile(95)),
      p99_ms: ms(this.h.getValueAtPercentile(99)),
      max_ms: ms(this.h.maxValue),
    };
  }

  /** The whole histogram, HdrHistogram's compressed base64 form (microseconds), for later merging or re-analysis. */
  encode(): string {
    return encodeIntoCompressedBase64(this.h);
  }
}
