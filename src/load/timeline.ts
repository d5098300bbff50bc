/** The run's timeline: per bucket of time, counts and the raw samples of its percentiles. */

import { defined } from './defined.js';

/** Status groups of the status-mix chart. */
export const STATUS_GROUPS = ['200', '202', '429', '4xx', '5xx', 'network'] as const;
export type StatusGroup = (typeof STATUS_GROUPS)[number];

/** The status group of an answer's status (undefined: no answer). */
export function statusGroup(status: number | undefined): StatusGroup {
  if (status === undefined) return 'network';
  if (status === 200 || status === 202 || status === 429) return String(status) as StatusGroup;
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  return '200';
}

/** Counts and raw samples of one bucket of time. */
export interface Bucket {
  due: number;
  sent: number;
  statuses: Record<StatusGroup, number>;
  completed: number;
  errors: number;
  audioSeconds: number;
  submitMs: number[];
  ttaMs: number[];
  lagMaxMs: number;
}

export interface TimelinePoint {
  /** Start of the bucket, seconds from the start of the run. */
  t: number;
  due: number;
  sent: number;
  statuses: Record<StatusGroup, number>;
  completed: number;
  errors: number;
  audio_seconds: number;
  submit_p50_ms: number | null;
  submit_p95_ms: number | null;
  time_to_audio_p50_ms: number | null;
  time_to_audio_p95_ms: number | null;
  lag_max_ms: number;
}

export const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

/** The p-th percentile of the samples by nearest rank, to 0.1 ms. */
function nearestRank(samples: number[], p: number): number | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return round(defined(sorted[rank], `sample ${rank + 1} of ${sorted.length}`), 1);
}

/** A bucket with nothing in it yet. */
export function emptyBucket(): Bucket {
  return {
    due: 0,
    sent: 0,
    statuses: Object.fromEntries(STATUS_GROUPS.map((g) => [g, 0])) as Record<StatusGroup, number>,
    completed: 0,
    errors: 0,
    audioSeconds: 0,
    submitMs: [],
    ttaMs: [],
    lagMaxMs: 0,
  };
}

/** The buckets of `baseMs` merged into buckets of `bucketMs` (rounded up to a multiple of `baseMs`): counts add up, percentiles come from the merged raw samples. */
export function mergedTimeline(buckets: readonly Bucket[], baseMs: number, bucketMs: number): TimelinePoint[] {
  const factor = Math.max(1, Math.ceil(bucketMs / baseMs - 1e-9));
  const merged: Bucket[] = [];
  buckets.forEach((b, i) => {
    const j = Math.floor(i / factor);
    merged[j] ??= emptyBucket();
    const m = merged[j];
    m.due += b.due;
    m.sent += b.sent;
    for (const g of STATUS_GROUPS) m.statuses[g] += b.statuses[g];
    m.completed += b.completed;
    m.errors += b.errors;
    m.audioSeconds += b.audioSeconds;
    m.submitMs.push(...b.submitMs);
    m.ttaMs.push(...b.ttaMs);
    m.lagMaxMs = Math.max(m.lagMaxMs, b.lagMaxMs);
  });
  const size = factor * baseMs;
  return merged.map((b, i) => ({
    t: round((i * size) / 1000, 3),
    due: b.due,
    sent: b.sent,
    statuses: { ...b.statuses },
    completed: b.completed,
    errors: b.errors,
    audio_seconds: round(b.audioSeconds, 2),
    submit_p50_ms: nearestRank(b.submitMs, 50),
    submit_p95_ms: nearestRank(b.submitMs, 95),
    time_to_audio_p50_ms: nearestRank(b.ttaMs, 50),
    time_to_audio_p95_ms: nearestRank(b.ttaMs, 95),
    lag_max_ms: round(b.lagMaxMs, 1),
  }));
}
