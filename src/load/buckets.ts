/** The sizes of the buckets of time a run is recorded and charted in. */

/** Bucket sizes the charts choose from, in seconds. */
export const BUCKET_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600] as const;

/**
 * The bucket size of the timeline charts, from the run's length and its number of events: the
 * smallest step (a multiple of `baseS`, the recorder's own bucket) that holds at least
 * `minPerBucket` events on average and leaves at most `maxBuckets` buckets. A run too short or too
 * sparse to reach the average gets the largest step that still fits in it. The rate is taken over
 * `activeS` when given, so the wait for the last answers after the schedule does not dilute it. One-second buckets at
 * 1 request per 2 s would alternate 0 and 1; ten-second ones hold 5 each.
 */
export function chooseBucketSeconds(opts: {
  /** The length of the plotted run. */
  durationS: number;
  events: number;
  /** The span the events went out over, when shorter than the run (the schedule, without the wait for the last answers). */
  activeS?: number;
  baseS?: number;
  minPerBucket?: number;
  maxBuckets?: number;
}): number {
  const base = opts.baseS ?? 1;
  const minPer = opts.minPerBucket ?? 5;
  const maxBuckets = opts.maxBuckets ?? 120;
  const duration = Math.max(0, opts.durationS);
  const steps: number[] = BUCKET_STEPS_S.filter((s) => s >= base && s % base === 0);
  if (steps.length === 0 || steps[0] !== base) steps.unshift(base);
  // steps now begins with base.
  if (!(duration > 0)) return base;
  const active = opts.activeS !== undefined && opts.activeS > 0 ? Math.min(opts.activeS, duration) : duration;
  const rate = Math.max(0, opts.events) / active;
  const fits = steps.find((s) => rate * s >= minPer && duration / s <= maxBuckets && s <= duration);
  if (fits !== undefined) return fits;
  // Too few events for the average: the largest step inside the run (but still no more than maxBuckets buckets).
  const inside = steps.filter((s) => s <= duration);
  const enough = steps.find((s) => duration / s <= maxBuckets) ?? steps.at(-1) ?? base;
  return Math.max(enough, inside.at(-1) ?? base);
}
