import { loadavg } from 'node:os';
import type { HttpResult } from '../harness/http-client.js';
import { MB, type RssSampler } from '../harness/proc.js';
import { profileMarkdown, type ProfileSummary, type ProfileWindow } from '../harness/profile.js';
import { status, type BenchContext, type TargetResult } from '../harness/report-types.js';
import { round } from '../harness/stats.js';

/**
 * The long-job benchmark's figures and report: wall time and throughput against the direct pipeline,
 * CPU time, peak memory of server and client, and the two targets (wall time, memory).
 */

export const FULL_CHARS = 500_000;
const TARGET_WALL_S = 150;
const TARGET_PEAK_MB = 400;

/** The long-job benchmark's settings, quick or full. */
export interface LongParams {
  chars: number;
  /** Characters of the same text synthesized by the pipeline called directly, as the baseline. */
  baseline_chars: number;
  inline_wait_ms: number;
  poll_interval_ms: number;
  limit_s: number;
}

/** The direct pipeline on the first part of the text. */
export interface Baseline {
  chars: number;
  wall_s: number;
  audio_seconds: number;
  audio_seconds_per_s: number;
  cpu_s: number;
  audio_seconds_per_cpu_s: number;
}

/** The job end to end, with when each step ended (performance.now()) and the profile window it spans. */
export interface JobRun {
  posted: HttpResult;
  jobId: string;
  polls: number;
  /** The completed job's body. */
  body: Record<string, unknown>;
  download: { status: number; bytes: number; head: Buffer; contentLength?: number };
  started: number;
  completedAt: number;
  finished: number;
  window: ProfileWindow;
}

/** What was read of the server, the client and the machine around the job. */
interface Readings {
  ctx: BenchContext;
  params: LongParams;
  jobConcurrency: number;
  job: JobRun;
  /** The server's "job completed" log record of the job. */
  jobLog: Record<string, unknown> | undefined;
  serverCpuS: number;
  load0: number;
  baseline: Baseline;
  serverHwm: number | undefined;
  sampled: ReturnType<RssSampler<'server' | 'client'>['stop']>;
  clientHwm: number | undefined;
}

/** The figures of the run, as the results file records them. */
export function longFigures({ ctx, params, jobConcurrency, job, jobLog, serverCpuS, load0, baseline, serverHwm, sampled, clientHwm }: Readings) {
  const { posted, polls, download, started, completedAt, finished } = job;
  const postMs = posted.ms;
  const audioSeconds = Number((job.body.audio as { duration_seconds?: number }).duration_seconds);
  const wallS = (finished - started) / 1000;
  return {
    chars: params.chars,
    job_concurrency: jobConcurrency,
    wall_s: round(wallS, 1),
    post_ms: round(postMs),
    post_status: posted.status,
    polls,
    completed_after_s: round((completedAt - started) / 1000, 1),
    download_s: round((finished - completedAt) / 1000, 2),
    server_synthesis_s: typeof jobLog?.wall_ms === 'number' ? round(jobLog.wall_ms / 1000, 1) : undefined,
    audio_seconds: round(audioSeconds, 1),
    audio_hours: round(audioSeconds / 3600, 2),
    audio_seconds_per_s: round(audioSeconds / wallS, 1),
    chars_per_s: round(params.chars / wallS, 0),
    server_cpu_s: round(serverCpuS, 1),
    /** Cores the server really got on average: well under the thread count means a contended machine. */
    server_cores_used: round(serverCpuS / wallS, 2),
    /**
     * The wall time had the server had its synthesis threads' cores to itself: its CPU time spread over
     * them. A projection, not a measurement; it tells a shared machine's share from the code's.
     */
    cpu_bound_projection_s: round(serverCpuS / ctx.synthThreads, 1),
    audio_seconds_per_cpu_s: round(audioSeconds / serverCpuS, 1),
    vs_direct: round(audioSeconds / wallS / baseline.audio_seconds_per_s, 3),
    /** The same comparison per CPU second, which a shared machine disturbs far less than wall time. */
    vs_direct_per_cpu: round(audioSeconds / serverCpuS / baseline.audio_seconds_per_cpu_s, 3),
    loadavg_1m: [round(load0, 2), round(loadavg()[0] ?? Number.NaN, 2)],
    baseline,
    mp3_bytes: download.bytes,
    server_peak_rss_mb: serverHwm === undefined ? undefined : round(serverHwm / MB, 1),
    server_sampled_peak_rss_mb: round(sampled.server.peak_rss_bytes / MB, 1),
    client_sampled_peak_rss_mb: round(sampled.client.peak_rss_bytes / MB, 1),
    client_lifetime_peak_rss_mb: clientHwm === undefined ? undefined : round(clientHwm / MB, 1),
    rss_samples: sampled.server.samples,
  };
}

type LongFigures = ReturnType<typeof longFigures>;

/** The targets: wall time and peak memory of the full text (a quick run's text is shorter: not evaluated). */
export function longTargets(ctx: BenchContext, params: LongParams, figures: LongFigures): TargetResult[] {
  const full = params.chars === FULL_CHARS;
  const serverPeak = figures.server_peak_rss_mb ?? figures.server_sampled_peak_rss_mb;
  const clientPeak = figures.client_sampled_peak_rss_mb;
  return [
    {
      id: 'long-wall',
      target: `long job: ${FULL_CHARS.toLocaleString('en')} characters end to end (POST → poll → download) in ≤ ${TARGET_WALL_S} s on ${ctx.synthThreads} synthesis threads`,
      measured: `${figures.wall_s} s for ${params.chars.toLocaleString('en')} characters (server got ${figures.server_cores_used} cores on average; CPU time / ${ctx.synthThreads} = ${figures.cpu_bound_projection_s} s)`,
      status: full ? status(figures.wall_s <= TARGET_WALL_S) : 'not evaluated',
      note: full ? undefined : `quick run with ${params.chars.toLocaleString('en')} characters`,
    },
    {
      id: 'long-memory',
      target: `long job: ${FULL_CHARS.toLocaleString('en')} characters with peak memory ≤ ${TARGET_PEAK_MB} MB per process (server and client)`,
      measured: `server ${serverPeak} MB (VmHWM), benchmark client ${clientPeak} MB (sampled VmRSS)`,
      status: full ? status(serverPeak <= TARGET_PEAK_MB && clientPeak <= TARGET_PEAK_MB) : 'not evaluated',
      note: full ? undefined : `quick run with ${params.chars.toLocaleString('en')} characters`,
    },
  ];
}

/** The report's Markdown: what was run, the table of figures, and the profiles. */
export function longMarkdown(
  ctx: BenchContext,
  params: LongParams,
  figures: LongFigures,
  postStatus: number,
  profiles: { main?: ProfileSummary; workers?: ProfileSummary } | undefined,
): string {
  const { baseline, job_concurrency: jobConcurrency, polls } = figures;
  const md = [
    `${params.chars.toLocaleString('en')} characters of prose, default voice and speed, through the API of a fresh embedded server (SYNTH_THREADS=${ctx.synthThreads}, JOB_CONCURRENCY=${jobConcurrency}, INLINE_WAIT_MS=${params.inline_wait_ms}, ` +
      `rate limits raised so the client can poll every ${params.poll_interval_ms} ms and warm the server up like the baseline): POST → ${postStatus} after ${figures.post_ms} ms → ${polls} polls → download of the audio_url. ` +
      'Server peak: VmHWM of the server process (its synthesis threads included); VmRSS of both processes sampled every 200 ms. ' +
      `Baseline: the first ${params.baseline_chars.toLocaleString('en')} characters of the same text through \`synthesizeToFile\` called directly in the benchmark process (${ctx.synthThreads} threads), just before. ` +
      'CPU: user + system time of the server process over the job (/proc/<pid>/stat), all threads.',
    '',
    '| Figure | Value |',
    '| --- | ---: |',
    `| wall time, POST to end of download | **${figures.wall_s} s** |`,
    `| job completed (seen by polling) after | ${figures.completed_after_s} s |`,
    `| synthesis in the server (its log) | ${figures.server_synthesis_s ?? '–'} s |`,
    `| download | ${figures.download_s} s, ${(figures.mp3_bytes / MB).toFixed(1)} MB MP3 |`,
    `| audio produced | ${figures.audio_seconds} s (${figures.audio_hours} h) |`,
    `| audio seconds per second | **${figures.audio_seconds_per_s}** |`,
    `| characters per second | ${figures.chars_per_s} |`,
    `| direct pipeline, ${baseline.chars.toLocaleString('en')} characters: audio seconds per second | ${baseline.audio_seconds_per_s} (${baseline.audio_seconds} s of audio in ${baseline.wall_s} s) |`,
    `| API / direct, audio seconds per wall second | ${round(figures.vs_direct * 100, 1)}% |`,
    `| API / direct, audio seconds per CPU second (steadier on a shared machine) | **${round(figures.vs_direct_per_cpu * 100, 1)}%** |`,
    `| server CPU time over the job | ${figures.server_cpu_s} s (${figures.server_cores_used} cores on average of ${ctx.synthThreads}) |`,
    `| projection: wall time with ${ctx.synthThreads} cores to itself (CPU time / ${ctx.synthThreads}) | ${figures.cpu_bound_projection_s} s |`,
    `| audio seconds per CPU second: server / direct | ${figures.audio_seconds_per_cpu_s} / ${baseline.audio_seconds_per_cpu_s} |`,
    `| load average (1 min) at start / end | ${figures.loadavg_1m.join(' / ')} |`,
    `| server peak RSS (VmHWM) | **${figures.server_peak_rss_mb ?? '–'} MB** |`,
    `| server peak RSS (sampled) | ${figures.server_sampled_peak_rss_mb} MB |`,
    `| client peak RSS (sampled during the job) | ${figures.client_sampled_peak_rss_mb} MB |`,
    ...(profiles?.main ? ['', '#### Profile, main thread', '', profileMarkdown(profiles.main)] : []),
    ...(profiles?.workers ? ['', '#### Profile, synthesis threads', '', profileMarkdown(profiles.workers)] : []),
  ];
  return md.join('\n');
}
