import { chooseBucketSeconds } from './buckets.js';
import type { Figures, RequestKind } from './figures.js';
import { LatencyHistogram } from './histogram.js';
import { type Bucket, type TimelinePoint, emptyBucket, mergedTimeline, round, statusGroup } from './timeline.js';

/** How a submission ended. */
export type Ending = 'completed' | 'rate_limited' | 'error' | 'interrupted';

/** part / whole to four decimals; null for a whole of 0. */
const share = (part: number, whole: number) => (whole > 0 ? round(part / whole, 4) : null);

/** Up to this many distinct error messages are kept for the report. */
const MAX_ERROR_SAMPLES = 20;

/**
 * Everything the run measures. Overall latencies go to HDR histograms; the timeline keeps, per bucket
 * of time, counts and the raw samples of that bucket (few per bucket) for its percentiles.
 */
export class Recorder {
  readonly submitLatency = new LatencyHistogram();
  readonly submitByStatus = new Map<string, LatencyHistogram>();
  readonly tta = new LatencyHistogram();
  readonly ttaInline = new LatencyHistogram();
  readonly ttaJob = new LatencyHistogram();
  readonly download = new LatencyHistogram();
  readonly lag = new LatencyHistogram();
  readonly streamFirstByte = new LatencyHistogram();
  readonly http: Record<RequestKind, Record<string, number>> = { post: {}, poll: {}, download: {} };
  readonly errorCodes: Record<string, number> = {};
  readonly errorSamples = new Map<string, number>();
  readonly pollsPerJob = new Map<number, number>();
  readonly keyPosts: number[];
  readonly keyRefused: number[];
  due = 0;
  sent = 0;
  sentOverLimit = 0;
  inFlight = 0;
  inline = 0;
  job = 0;
  polling = 0;
  endings: Record<Ending, number> = { completed: 0, rate_limited: 0, error: 0, interrupted: 0 };
  audioSeconds = 0;
  audioMissingDuration = 0;
  downloads = 0;
  bytes = 0;
  lastSentAtMs = 0;
  /** Word timings: submissions that asked; of their completed answers, those with and without `timings`; answers with timings not asked for. */
  readonly timings = { asked: 0, completed: 0, with_timings: 0, missing: 0, unasked_with_timings: 0 };
  /** Streaming (--stream): see Figures['stream']. */
  readonly stream = { jobs: 0, with_url: 0, not_offered: 0, first_byte: 0, failed: 0, failures: {} as Record<string, number> };
  private readonly buckets: Bucket[] = [];

  constructor(
    readonly bucketMs: number,
    readonly keyDisplays: readonly string[],
  ) {
    this.keyPosts = keyDisplays.map(() => 0);
    this.keyRefused = keyDisplays.map(() => 0);
  }

  private bucket(ms: number): Bucket {
    const i = Math.max(0, Math.floor(ms / this.bucketMs));
    for (;;) {
      const bucket = this.buckets[i];
      if (bucket) return bucket;
      this.buckets.push(emptyBucket());
    }
  }

  onDue(dueMs: number): void {
    this.due++;
    this.bucket(dueMs).due++;
  }

  /**
   * A submission sent at `atMs`, `lagMs` after it was due (both on the run's clock, from its start).
   * A timer may wake a fraction of a millisecond before the due time it was set for; a submission is
   * never counted as sent before it was due, so it lands in its due time's bucket with no lag (sent
   * one bucket before "due" otherwise, whenever due times fall on bucket edges: at 1 per 2 s, all of them).
   */
  onSent(atMs: number, lagMs: number, key: number, withinLimit: boolean, asksTimings = false): void {
    if (lagMs < 0) {
      atMs -= lagMs;
      lagMs = 0;
    }
    this.sent++;
    if (asksTimings) this.timings.asked++;
    this.inFlight++;
    this.lastSentAtMs = Math.max(this.lastSentAtMs, atMs);
    if (!withinLimit) this.sentOverLimit++;
    this.keyPosts[key] = (this.keyPosts[key] ?? 0) + 1;
    this.lag.record(lagMs);
    const b = this.bucket(atMs);
    b.sent++;
    b.lagMaxMs = Math.max(b.lagMaxMs, lagMs);
  }

  /** One exchange of a kind: `status` undefined for a failure without an answer (`failure` names it). */
  onExchange(kind: RequestKind, status: number | undefined, failure?: string): void {
    const label = status !== undefined ? String(status) : (failure ?? 'network');
    this.http[kind][label] = (this.http[kind][label] ?? 0) + 1;
  }

  onPostAnswer(atMs: number, status: number | undefined, ms: number | undefined, key: number): void {
    this.bucket(atMs).statuses[statusGroup(status)]++;
    if (status === 429) this.keyRefused[key] = (this.keyRefused[key] ?? 0) + 1;
    if (status === undefined || ms === undefined) return;
    this.submitLatency.record(ms);
    const label = String(status);
    let h = this.submitByStatus.get(label);
    if (!h) {
      h = new LatencyHistogram();
      this.submitByStatus.set(label, h);
    }
    h.record(ms);
    this.bucket(atMs).submitMs.push(ms);
  }

  onPath(path: 'inline' | 'job'): void {
    if (path === 'inline') this.inline++;
    else this.job++;
  }

  onDownload(ms: number, bytes: number): void {
    this.download.record(ms);
    this.downloads++;
    this.bytes += bytes;
  }

  /** A submission whose answer is a completed job: whether it asked for timings, and whether the answer carries them. */
  onTimings(asked: boolean, carried: boolean): void {
    if (!asked) {
      if (carried) this.timings.unasked_with_timings++;
      return;
    }
    this.timings.completed++;
    this.timings[carried ? 'with_timings' : 'missing']++;
  }

  /** A job answered 202 in a run with --stream: whether the answer carried a stream_url. */
  onStreamOffered(offered: boolean): void {
    this.stream.jobs++;
    this.stream[offered ? 'with_url' : 'not_offered']++;
  }

  /** A stream's first audio byte, `ms` after its POST was sent. */
  onStreamFirstByte(ms: number): void {
    this.stream.first_byte++;
    this.streamFirstByte.record(ms);
  }

  onStreamFailed(code: string): void {
    this.stream.failed++;
    this.stream.failures[code] = (this.stream.failures[code] ?? 0) + 1;
  }

  onPollsDone(polls: number): void {
    this.pollsPerJob.set(polls, (this.pollsPerJob.get(polls) ?? 0) + 1);
  }

  onCompleted(atMs: number, path: 'inline' | 'job', ttaMs: number, audioSeconds: number | undefined): void {
    this.end('completed');
    this.tta.record(ttaMs);
    (path === 'inline' ? this.ttaInline : this.ttaJob).record(ttaMs);
    const b = this.bucket(atMs);
    b.completed++;
    b.ttaMs.push(ttaMs);
    if (audioSeconds === undefined) this.audioMissingDuration++;
    else {
      this.audioSeconds += audioSeconds;
      b.audioSeconds += audioSeconds;
    }
  }

  onError(atMs: number, code: string, message: string): void {
    this.end('error');
    this.bucket(atMs).errors++;
    this.errorCodes[code] = (this.errorCodes[code] ?? 0) + 1;
    const sample = `${code}: ${message}`.slice(0, 300);
    if (this.errorSamples.has(sample) || this.errorSamples.size < MAX_ERROR_SAMPLES) this.errorSamples.set(sample, (this.errorSamples.get(sample) ?? 0) + 1);
  }

  onRateLimited(): void {
    this.end('rate_limited');
    this.errorCodes.RATE_LIMITED = (this.errorCodes.RATE_LIMITED ?? 0) + 1;
  }

  onInterrupted(): void {
    this.end('interrupted');
  }

  private end(ending: Ending): void {
    this.endings[ending]++;
    this.inFlight--;
  }

  /**
   * The timeline in buckets of `bucketMs` (a multiple of the recorder's own, which it is rounded up
   * to): counts add up, percentiles come from the raw samples of the merged buckets.
   */
  timeline(bucketMs = this.bucketMs): TimelinePoint[] {
    return mergedTimeline(this.buckets, this.bucketMs, bucketMs);
  }

  /**
   * The timeline for the report's charts: buckets sized by chooseBucketSeconds from the run's length
   * and its number of submissions over the schedule, so that a slow run does not plot as a 0↔1 sawtooth.
   */
  chartTimeline(elapsedMs: number, scheduleElapsedMs = elapsedMs): { bucket_s: number; points: TimelinePoint[] } {
    const bucketS = chooseBucketSeconds({
      durationS: elapsedMs / 1000,
      events: Math.max(this.due, this.sent),
      activeS: Math.max(scheduleElapsedMs, this.lastSentAtMs) / 1000,
      baseS: this.bucketMs / 1000,
    });
    return { bucket_s: bucketS, points: this.timeline(bucketS * 1000) };
  }

  figures(opts: {
    elapsedMs: number;
    scheduleElapsedMs: number;
    peakScheduledRate: number;
    eventLoopDelayP99Ms: number | null;
    clientCpuPercent: number | null;
  }): Figures {
    const accepted = this.inline + this.job;
    let jobs = 0;
    let polls = 0;
    let maxPolls: number | null = null;
    for (const [count, n] of this.pollsPerJob) {
      jobs += n;
      polls += count * n;
      maxPolls = Math.max(maxPolls ?? 0, count);
    }
    const sendingWindowMs = Math.max(opts.scheduleElapsedMs, this.lastSentAtMs);
    const scheduled = opts.scheduleElapsedMs > 0 ? this.due / (opts.scheduleElapsedMs / 1000) : null;
    const achieved = sendingWindowMs > 0 ? this.sent / (sendingWindowMs / 1000) : null;
    return {
      submissions: {
        due: this.due,
        sent: this.sent,
        sent_over_key_limit: this.sentOverLimit,
        not_sent: this.due - this.sent,
        in_flight_at_end: this.inFlight,
        completed: this.endings.completed,
        rate_limited: this.endings.rate_limited,
        errors: this.endings.error,
        interrupted: this.endings.interrupted,
      },
      paths: { inline: this.inline, job: this.job },
      inline_share: share(this.inline, accepted),
      error_rate: share(this.endings.error, this.sent),
      rate_limited_rate: share(this.endings.rate_limited, this.sent),
      success_rate: share(this.endings.completed, this.sent),
      time_to_audio: this.tta.summary(),
      time_to_audio_inline: this.ttaInline.summary(),
      time_to_audio_job: this.ttaJob.summary(),
      submit_latency: this.submitLatency.summary(),
      submit_latency_by_status: Object.fromEntries([...this.submitByStatus].sort().map(([k, h]) => [k, h.summary()])),
      download_time: this.download.summary(),
      polls_per_job: {
        jobs,
        mean: jobs > 0 ? round(polls / jobs, 2) : null,
        max: maxPolls,
        distribution: Object.fromEntries([...this.pollsPerJob].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v])),
      },
      http_status: { post: { ...this.http.post }, poll: { ...this.http.poll }, download: { ...this.http.download } },
      error_codes: { ...this.errorCodes },
      rate: {
        scheduled_per_s: scheduled === null ? null : round(scheduled, 3),
        achieved_per_s: achieved === null ? null : round(achieved, 3),
        peak_scheduled_per_s: round(opts.peakScheduledRate, 3),
        sending_window_s: round(sendingWindowMs / 1000, 3),
        rate_shortfall: scheduled && achieved !== null ? round(Math.max(0, 1 - achieved / scheduled), 4) : null,
      },
      generator: { lag: this.lag.summary(), event_loop_delay_p99_ms: opts.eventLoopDelayP99Ms, client_cpu_percent: opts.clientCpuPercent },
      audio: {
        seconds: round(this.audioSeconds, 2),
        seconds_per_second: opts.elapsedMs > 0 ? round(this.audioSeconds / (opts.elapsedMs / 1000), 3) : null,
        downloads: this.downloads,
        bytes: this.bytes,
        mean_bytes: this.downloads > 0 ? Math.round(this.bytes / this.downloads) : null,
        missing_duration: this.audioMissingDuration,
      },
      keys: this.keyDisplays.map((display, i) => ({ display, posts: this.keyPosts[i] ?? 0, refused: this.keyRefused[i] ?? 0 })),
      timings: { ...this.timings },
      stream: { ...this.stream, failures: { ...this.stream.failures } },
      stream_first_byte: this.streamFirstByte.summary(),
      elapsed_s: round(opts.elapsedMs / 1000, 3),
    };
  }
}
