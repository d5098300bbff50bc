import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentServer } from '../harness/agent-server.js';
import { describeFailure, getJob, pollUntilDone, postTts } from '../harness/api.js';
import { downloadCounting } from '../harness/http-client.js';
import { loadavg } from 'node:os';
import { MB, RssSampler, procCpuSeconds, procStatusBytes } from '../harness/proc.js';
import { monotonicUs, profileMarkdown, readProfile } from '../harness/profile.js';
import { status, type BenchContext, type BenchmarkOutput, type TargetResult } from '../harness/report-types.js';
import { round } from '../harness/stats.js';
import { proseOfLength } from '../harness/texts.js';
import { DirectPipeline, defaultSynthesisRequest } from './inline.js';

const FULL_CHARS = 500_000;
const TARGET_WALL_S = 150;
const TARGET_PEAK_MB = 400;

interface Params {
  chars: number;
  /** Characters of the same text synthesized by the pipeline called directly, as the baseline. */
  baseline_chars: number;
  inline_wait_ms: number;
  poll_interval_ms: number;
  limit_s: number;
}

/** MP3 files start with an ID3 tag or a frame sync (11 set bits). */
function looksLikeMp3(head: Buffer): boolean {
  return head.subarray(0, 3).toString('latin1') === 'ID3' || (head[0] === 0xff && (head[1]! & 0xe0) === 0xe0);
}

export async function runLong(ctx: BenchContext): Promise<BenchmarkOutput> {
  const params: Params = ctx.quick
    ? { chars: 5_000, baseline_chars: 1_000, inline_wait_ms: 1_000, poll_interval_ms: 250, limit_s: 60 }
    : { chars: FULL_CHARS, baseline_chars: 50_000, inline_wait_ms: 10_000, poll_interval_ms: 1000, limit_s: 1800 };
  const text = proseOfLength(params.chars);

  // Baseline: the pipeline called directly in this process on the first tenth of the same text.
  ctx.log(`long: baseline, ${params.baseline_chars.toLocaleString('en')} characters through the pipeline called directly`);
  const direct = await DirectPipeline.create(ctx.synthThreads);
  let baseline: { chars: number; wall_s: number; audio_seconds: number; audio_seconds_per_s: number; cpu_s: number; audio_seconds_per_cpu_s: number };
  try {
    // Every thread of the pool compiles its engine before the measured call.
    await Promise.all(Array.from({ length: ctx.synthThreads * 2 }, () => direct.once(defaultSynthesisRequest(text.slice(0, 200)))));
    const cpu0 = process.cpuUsage();
    const run = await direct.run(defaultSynthesisRequest(proseOfLength(params.baseline_chars)));
    const cpu = process.cpuUsage(cpu0);
    const cpuS = (cpu.user + cpu.system) / 1e6;
    baseline = {
      chars: params.baseline_chars,
      wall_s: round(run.ms / 1000, 1),
      audio_seconds: round(run.audioSeconds, 1),
      audio_seconds_per_s: round(run.audioSeconds / (run.ms / 1000), 1),
      cpu_s: round(cpuS, 1),
      audio_seconds_per_cpu_s: round(run.audioSeconds / cpuS, 1),
    };
  } finally {
    await direct.close();
  }
  ctx.log(`  direct: ${baseline.audio_seconds_per_s} audio s/s`);

  ctx.log(`long: ${params.chars.toLocaleString('en')} characters end to end (POST → 202 → poll → download)`);
  const profileDir = ctx.profileDir ? join(ctx.profileDir, 'long') : undefined;
  if (profileDir) await mkdir(profileDir, { recursive: true });
  const server = await AgentServer.start({
    label: 'long',
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : undefined,
    // Polls more often than the default 30 per minute allow, and warms up with a few POSTs; the quick run
    // shortens the inline wait so that its shorter text still goes POST → 202 → poll.
    env: { RATE_GET_LIMIT: '100000000', RATE_POST_LIMIT: '100000000', INLINE_WAIT_MS: String(params.inline_wait_ms) },
    synthThreads: ctx.synthThreads,
  });
  const sampler = new RssSampler({ server: server.pid, client: 'self' }, 200);
  let sampled: ReturnType<RssSampler['stop']> | undefined;
  try {
    const key = (await server.seed(1)).keys.active[0]!;
    const jobConcurrency = server.config().jobConcurrency;
    // The same warm-up as the baseline's: every synthesis thread has compiled and run the engine.
    await Promise.all(
      Array.from({ length: ctx.synthThreads * 2 }, async () => {
        const warm = await postTts(server.baseUrl, key, text.slice(0, 200), 60_000);
        const end = warm.status === 202 ? await pollUntilDone(server.baseUrl, key, String(warm.json?.job_id), 60_000) : warm.json;
        if (end?.status !== 'completed') throw new Error(`warm-up failed: ${describeFailure(warm)}`);
      }),
    );
    const load0 = loadavg()[0]!;
    const cpuServer0 = procCpuSeconds(server.pid) ?? Number.NaN;
    const started = performance.now();
    const window = { startUs: monotonicUs(), endUs: 0 };
    const posted = await postTts(server.baseUrl, key, text, 60_000);
    if (posted.status !== 202 && posted.status !== 200) throw new Error(`POST failed: ${describeFailure(posted)}`);
    const jobId = String(posted.json?.job_id);
    const postMs = posted.ms;

    let body = posted.json;
    let polls = 0;
    while (body?.status === 'processing') {
      if (performance.now() - started > params.limit_s * 1000) throw new Error(`the job did not complete within ${params.limit_s} s`);
      await sleep(params.poll_interval_ms);
      const result = await getJob(server.baseUrl, key, jobId);
      polls++;
      if (result.status !== 200) throw new Error(`poll failed: ${describeFailure(result)}`);
      body = result.json;
    }
    if (body?.status !== 'completed') throw new Error(`the job ended ${String(body?.status)}: ${JSON.stringify(body).slice(0, 300)}`);
    const completedAt = performance.now();
    const download = await downloadCounting(String(body.audio_url), 120_000);
    const finished = performance.now();
    window.endUs = monotonicUs();
    if (download.status !== 200 || !looksLikeMp3(download.head) || (download.contentLength !== undefined && download.contentLength !== download.bytes)) {
      throw new Error(`download failed: HTTP ${download.status}, ${download.bytes} bytes, head ${download.head.toString('hex')}`);
    }

    const serverCpuS = (procCpuSeconds(server.pid) ?? Number.NaN) - cpuServer0;
    const serverHwm = server.process.peakRssBytes();
    sampled = sampler.stop();
    const clientHwm = procStatusBytes('self', 'VmHWM');
    const audioSeconds = Number((body.audio as { duration_seconds?: number }).duration_seconds);
    const jobLog = (await server.logRecords('job completed')).find((r) => r.job_id === jobId);
    const wallS = (finished - started) / 1000;
    const figures = {
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
      loadavg_1m: [round(load0, 2), round(loadavg()[0]!, 2)],
      baseline,
      mp3_bytes: download.bytes,
      server_peak_rss_mb: serverHwm === undefined ? undefined : round(serverHwm / MB, 1),
      server_sampled_peak_rss_mb: round(sampled.server!.peak_rss_bytes / MB, 1),
      client_sampled_peak_rss_mb: round(sampled.client!.peak_rss_bytes / MB, 1),
      client_lifetime_peak_rss_mb: clientHwm === undefined ? undefined : round(clientHwm / MB, 1),
      rss_samples: sampled.server!.samples,
    };
    ctx.log(
      `  ${figures.wall_s} s wall, ${figures.audio_seconds_per_s} audio s/s (direct ${baseline.audio_seconds_per_s}), server peak ${figures.server_peak_rss_mb} MB, ${figures.server_cores_used} cores used`,
    );

    let profiles: { main?: Awaited<ReturnType<typeof readProfile>>; workers?: Awaited<ReturnType<typeof readProfile>> } | undefined;
    if (profileDir) {
      await server.stop();
      profiles = { main: await readProfile(profileDir, window, 'main'), workers: await readProfile(profileDir, window, 'workers') };
    }
    const full = params.chars === FULL_CHARS;
    const serverPeak = figures.server_peak_rss_mb ?? figures.server_sampled_peak_rss_mb;
    const clientPeak = figures.client_sampled_peak_rss_mb;
    const targets: TargetResult[] = [
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
    const md = [
      `${params.chars.toLocaleString('en')} characters of prose, default voice and speed, through the API of a fresh embedded server (SYNTH_THREADS=${ctx.synthThreads}, JOB_CONCURRENCY=${jobConcurrency}, INLINE_WAIT_MS=${params.inline_wait_ms}, ` +
        `rate limits raised so the client can poll every ${params.poll_interval_ms} ms and warm the server up like the baseline): POST → ${posted.status} after ${figures.post_ms} ms → ${polls} polls → download of the audio_url. ` +
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
    return {
      name: 'long',
      title: `Long job: ${params.chars.toLocaleString('en')} characters end to end`,
      data: { params, ...figures, profiles },
      markdown: md.join('\n'),
      targets,
    };
  } finally {
    if (!sampled) sampler.stop();
    await server.stop();
  }
}
