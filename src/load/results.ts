/** The results of a run as the reports carry them: its parameters, figures, thresholds and notes. */
import type { Figures } from './figures.js';
import type { ThresholdResult } from './thresholds.js';
import type { TimelinePoint } from './timeline.js';
import { flatMetrics } from './figures.js';
import type { RunResult } from './runner.js';
import { USER_AGENT } from './exchange.js';
import { type Schedule, allowedRate } from './schedule.js';
import type { LoadSettings } from './settings.js';
import { evaluateThresholds } from './thresholds.js';

export interface MachineInfo {
  node: string;
  os: string;
  arch: string;
  cpus: number;
  cpu_model: string;
  memory_total_mb: number;
  memory_free_mb: number;
  loadavg_at_start: number[];
}

/** Everything results.json holds: every figure and parameter, the machine and the target. */
export interface LoadResults {
  tool: { name: 'agent-tts-load'; version: string };
  run: {
    id: string;
    started_at: string;
    ended_at: string;
    elapsed_s: number;
    interrupted: boolean;
    stopped_by: string;
    /** pass: every threshold held; fail: one did not; none: no threshold given; interrupted: not judged. */
    verdict: 'pass' | 'fail' | 'none' | 'interrupted';
    exit_code: number;
  };
  parameters: Record<string, unknown>;
  target: { base_url: string; keys: number };
  machine: MachineInfo;
  client: { http: string; user_agent: string };
  figures: Figures;
  metrics: Record<string, number | null>;
  thresholds: ThresholdResult[];
  notes: string[];
  error_samples: { message: string; count: number }[];
  timeline: { bucket_s: number; points: TimelinePoint[] };
  /** HdrHistogram compressed base64 (microseconds) of each latency, for merging runs or other percentiles. */
  histograms: Record<string, string>;
}

export const NAME = 'agent-tts-load';
const VERSION = '0.1.0';

/** The exit codes of the tool. */
export const EXIT = { OK: 0, THRESHOLD_FAILED: 1, USAGE: 2, TOOL_FAULT: 3, INTERRUPTED: 130 } as const;

/** The run's parameters as the reports list them. */
function parametersOf(settings: LoadSettings, schedule: Schedule, keys: number): Record<string, unknown> {
  return {
    stages: settings.stages.map((s) => ({ duration_s: s.durationMs / 1000, target_per_s: s.target })),
    start_rate_per_s: settings.startRate,
    duration_s: schedule.totalMs / 1000,
    expected_submissions: Math.round(schedule.expectedCount * 100) / 100,
    peak_rate_per_s: schedule.peakRate,
    max_requests: settings.maxRequests ?? null,
    mix: settings.mix,
    voices: settings.voices,
    speeds: settings.speeds,
    language: settings.language ?? null,
    timings_share: settings.timingsShare,
    stream: settings.stream,
    seed: settings.seed,
    post_limit: settings.postLimit,
    rate_window_s: settings.rateWindowSeconds,
    allowed_rate_per_s: Math.round(allowedRate(keys, settings.postLimit, settings.rateWindowSeconds) * 1e4) / 1e4,
    allow_429: settings.allow429,
    request_timeout_s: settings.requestTimeoutMs / 1000,
    job_timeout_s: settings.jobTimeoutMs / 1000,
    thresholds: settings.thresholds.map((t) => t.expression),
  };
}

/** What a reader of the report should know about the run beyond its figures. */
function notesOf(figures: Figures, run: RunResult, settings: LoadSettings): string[] {
  const notes: string[] = [];
  if ((figures.generator.lag.p99_ms ?? 0) > 100) {
    notes.push(
      `The generator sent some submissions late (lag p99 ${figures.generator.lag.p99_ms} ms): this client (or its machine) was busy, so the load it offered fell behind the schedule for a while.`,
    );
  }
  if (figures.submissions.sent_over_key_limit > 0)
    notes.push(`${figures.submissions.sent_over_key_limit} submissions were sent on keys whose POST window was already full (--allow-429).`);
  const poll429 = figures.http_status.poll['429'] ?? 0;
  if (poll429 > 0)
    notes.push(
      `${poll429} status polls were refused with 429 (the per-key GET limit): each waited its Retry-After, which adds to the job path's time to audio.`,
    );
  if (figures.audio.missing_duration > 0)
    notes.push(`${figures.audio.missing_duration} completed jobs gave no audio.duration_seconds; their audio is not in the audio seconds.`);
  const t = figures.timings;
  if (t.missing > 0)
    notes.push(
      `${t.missing} of ${t.completed} completed answers to submissions that asked for word timings carried no timings: the deployment does not offer the extension, or lost them.`,
    );
  if (t.unasked_with_timings > 0) notes.push(`${t.unasked_with_timings} completed answers carried timings that their submission did not ask for.`);
  const st = figures.stream;
  if (st.not_offered > 0)
    notes.push(
      `${st.not_offered} of ${st.jobs} jobs answered 202 carried no stream_url: the deployment does not stream audio while a job runs (an extension), so they have no time to first audio byte.`,
    );
  if (st.failed > 0)
    notes.push(
      `${st.failed} streams gave no audio byte (${Object.entries(st.failures)
        .map(([k, v]) => `${k}×${v}`)
        .join(' ')}); they are not in the time to first audio byte.`,
    );
  if (run.stoppedBy === 'max-requests') notes.push(`Sending stopped at --max-requests ${settings.maxRequests}.`);
  if (run.interrupted)
    notes.push('The run was interrupted (Ctrl-C): the figures cover what happened until then; thresholds were not judged for the exit code.');

  return notes;
}

/** The results of a finished (or interrupted) run: figures, metrics and thresholds judged, verdict and exit code. */
export function resultsOf(
  run: RunResult,
  settings: LoadSettings,
  schedule: Schedule,
  target: { baseUrl: string; keys: number; machine: LoadResults['machine'] },
): LoadResults {
  const figures = run.recorder.figures({
    elapsedMs: run.elapsedMs,
    scheduleElapsedMs: run.scheduleElapsedMs,
    peakScheduledRate: schedule.peakRate,
    eventLoopDelayP99Ms: run.eventLoopDelayP99Ms,
    clientCpuPercent: run.clientCpuPercent,
  });
  const metrics = flatMetrics(figures);
  const thresholds = evaluateThresholds(settings.thresholds, metrics);
  const failed = thresholds.filter((t) => !t.pass);
  const verdict: LoadResults['run']['verdict'] = run.interrupted ? 'interrupted' : thresholds.length === 0 ? 'none' : failed.length > 0 ? 'fail' : 'pass';
  const exitCode = run.interrupted ? EXIT.INTERRUPTED : failed.length > 0 ? EXIT.THRESHOLD_FAILED : EXIT.OK;
  const notes = notesOf(figures, run, settings);
  return {
    tool: { name: NAME, version: VERSION },
    run: {
      id: run.runId,
      started_at: run.startedAt.toISOString(),
      ended_at: run.endedAt.toISOString(),
      elapsed_s: Math.round(run.elapsedMs) / 1000,
      interrupted: run.interrupted,
      stopped_by: run.stoppedBy,
      verdict,
      exit_code: exitCode,
    },
    parameters: parametersOf(settings, schedule, target.keys),
    target: { base_url: target.baseUrl, keys: target.keys },
    machine: target.machine,
    client: { http: `global fetch (undici, Node ${process.version}): keep-alive connections, no cap on connections per origin`, user_agent: USER_AGENT },
    figures,
    metrics,
    thresholds,
    notes,
    error_samples: [...run.recorder.errorSamples].map(([message, count]) => ({ message, count })),
    timeline: run.recorder.chartTimeline(run.elapsedMs, run.scheduleElapsedMs),
    histograms: {
      time_to_audio: run.recorder.tta.encode(),
      time_to_audio_inline: run.recorder.ttaInline.encode(),
      time_to_audio_job: run.recorder.ttaJob.encode(),
      submit_latency: run.recorder.submitLatency.encode(),
      download_time: run.recorder.download.encode(),
      generator_lag: run.recorder.lag.encode(),
    },
  };
}
