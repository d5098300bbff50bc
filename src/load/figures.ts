/** The figures of a run as the report and its JSON give them, and the flat metrics thresholds are judged against. */
import type { LatencySummary } from './histogram.js';

/** What one HTTP exchange of a kind came to: its status, or a client-side failure. */
export type RequestKind = 'post' | 'poll' | 'download';

export interface Figures {
  submissions: {
    due: number;
    sent: number;
    /** Sent on a key whose window was already full (only with --allow-429): expected refusals. */
    sent_over_key_limit: number;
    not_sent: number;
    in_flight_at_end: number;
    completed: number;
    rate_limited: number;
    errors: number;
    interrupted: number;
  };
  paths: { inline: number; job: number };
  inline_share: number | null;
  error_rate: number | null;
  rate_limited_rate: number | null;
  success_rate: number | null;
  time_to_audio: LatencySummary;
  time_to_audio_inline: LatencySummary;
  time_to_audio_job: LatencySummary;
  submit_latency: LatencySummary;
  submit_latency_by_status: Record<string, LatencySummary>;
  download_time: LatencySummary;
  polls_per_job: { jobs: number; mean: number | null; max: number | null; distribution: Record<string, number> };
  http_status: Record<RequestKind, Record<string, number>>;
  error_codes: Record<string, number>;
  rate: {
    scheduled_per_s: number | null;
    achieved_per_s: number | null;
    peak_scheduled_per_s: number;
    sending_window_s: number;
    rate_shortfall: number | null;
  };
  generator: { lag: LatencySummary; event_loop_delay_p99_ms: number | null; client_cpu_percent: number | null };
  audio: { seconds: number; seconds_per_second: number | null; downloads: number; bytes: number; mean_bytes: number | null; missing_duration: number };
  keys: { display: string; posts: number; refused: number }[];
  /**
   * Word timings (--timings-share): submissions sent that asked; of those answered with a completed
   * job, how many carried `timings` and how many did not; and answers carrying timings not asked for.
   */
  timings: { asked: number; completed: number; with_timings: number; missing: number; unasked_with_timings: number };
  /**
   * Streaming (--stream; docs/api-rules.md#streaming-audio): of the jobs answered 202, how many carried
   * a stream_url, how many did not, how many streams gave a first audio byte and how many failed (by
   * code: `HTTP_<status>`, `TIMEOUT`, `NETWORK_ERROR`, `EMPTY` for a body that ended with no byte).
   * All zero without --stream.
   */
  stream: { jobs: number; with_url: number; not_offered: number; first_byte: number; failed: number; failures: Record<string, number> };
  /** POST sent → first audio byte of the job's stream_url, for the jobs whose stream gave one. */
  stream_first_byte: LatencySummary;
  elapsed_s: number;
}

/** The flat metrics thresholds are judged against (names in thresholds.ts). */
export function flatMetrics(f: Figures): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  const families: [string, LatencySummary][] = [
    ['time_to_audio', f.time_to_audio],
    ['time_to_audio_inline', f.time_to_audio_inline],
    ['time_to_audio_job', f.time_to_audio_job],
    ['submit_latency', f.submit_latency],
    ['download_time', f.download_time],
    ['stream_first_byte', f.stream_first_byte],
  ];
  for (const [name, s] of families) {
    for (const stat of ['p50', 'p90', 'p95', 'p99', 'max', 'mean', 'min'] as const) out[`${name}_${stat}`] = s[`${stat}_ms`];
  }
  out.inline_share = f.inline_share;
  out.error_rate = f.error_rate;
  out.rate_limited_rate = f.rate_limited_rate;
  out.success_rate = f.success_rate;
  out.submissions = f.submissions.sent;
  out.completed = f.submissions.completed;
  out.polls_per_job_mean = f.polls_per_job.mean;
  out.polls_per_job_max = f.polls_per_job.max;
  out.achieved_rate = f.rate.achieved_per_s;
  out.rate_shortfall = f.rate.rate_shortfall;
  out.generator_lag_p99 = f.generator.lag.p99_ms;
  out.generator_lag_max = f.generator.lag.max_ms;
  out.audio_seconds_per_second = f.audio.seconds_per_second;
  out.timings_asked = f.timings.asked;
  out.timings_missing = f.timings.missing;
  return out;
}
