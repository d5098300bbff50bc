/** Nearest-rank percentile of unsorted samples; NaN when there are none. */
function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function mean(samples: readonly number[]): number {
  return samples.length === 0 ? Number.NaN : samples.reduce((sum, x) => sum + x, 0) / samples.length;
}

/** Rounds for reports: enough digits to compare, no float noise. */
export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export interface LatencySummary {
  count: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
}

export function summarizeLatency(samplesMs: readonly number[]): LatencySummary {
  return {
    count: samplesMs.length,
    p50_ms: round(percentile(samplesMs, 50)),
    p90_ms: round(percentile(samplesMs, 90)),
    p99_ms: round(percentile(samplesMs, 99)),
    max_ms: round(samplesMs.length ? Math.max(...samplesMs) : Number.NaN),
  };
}
