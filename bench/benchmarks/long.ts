import { defined } from '../harness/defined.js';
import { mkdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentServer } from '../harness/agent-server.js';
import { describeFailure, getJob, pollUntilDone, postTts } from '../harness/api.js';
import { DirectPipeline, defaultSynthesisRequest } from '../harness/direct-pipeline.js';
import { downloadCounting } from '../harness/http-client.js';
import { RssSampler, procCpuSeconds, procStatusBytes } from '../harness/proc.js';
import { monotonicUs, readProfile } from '../harness/profile.js';
import type { BenchContext, BenchmarkOutput } from '../harness/report-types.js';
import { round } from '../harness/stats.js';
import { proseOfLength } from '../harness/texts.js';
import { type Baseline, FULL_CHARS, type JobRun, type LongParams, longFigures, longMarkdown, longTargets } from './long-report.js';

/**
 * The long-job benchmark: a text of half a million characters through the API end to end (POST → 202
 * → poll → download) against the pipeline called directly on a tenth of it. Its phases: the baseline,
 * the server and its warm-up, the job, the report (long-report.ts).
 */

/** MP3 files start with an ID3 tag or a frame sync (11 set bits). */
export function looksLikeMp3(head: Buffer): boolean {
  return head.subarray(0, 3).toString('latin1') === 'ID3' || (head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0);
}

/** Baseline: the pipeline called directly in this process on the first tenth of the same text. */
async function measureBaseline(ctx: BenchContext, params: LongParams, text: string): Promise<Baseline> {
  ctx.log(`long: baseline, ${params.baseline_chars.toLocaleString('en')} characters through the pipeline called directly`);
  const direct = await DirectPipeline.create(ctx.synthThreads);
  try {
    // Every thread of the pool compiles its engine before the measured call.
    await Promise.all(Array.from({ length: ctx.synthThreads * 2 }, () => direct.once(defaultSynthesisRequest(text.slice(0, 200)))));
    const cpu0 = process.cpuUsage();
    const run = await direct.run(defaultSynthesisRequest(proseOfLength(params.baseline_chars)));
    const cpu = process.cpuUsage(cpu0);
    const cpuS = (cpu.user + cpu.system) / 1e6;
    return {
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
}

/** A fresh embedded server, under --cpu-prof for --profile. */
async function startServer(ctx: BenchContext, params: LongParams): Promise<{ server: AgentServer; profileDir?: string }> {
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
  return { server, profileDir };
}

/** The same warm-up as the baseline's: every synthesis thread has compiled and run the engine. */
async function warmUp(ctx: BenchContext, server: AgentServer, key: string, text: string): Promise<void> {
  await Promise.all(
    Array.from({ length: ctx.synthThreads * 2 }, async () => {
      const warm = await postTts(server.baseUrl, key, text.slice(0, 200), 60_000);
      const end = warm.status === 202 ? await pollUntilDone(server.baseUrl, key, String(warm.json?.job_id), 60_000) : warm.json;
      if (end?.status !== 'completed') throw new Error(`warm-up failed: ${describeFailure(warm)}`);
    }),
  );
}

/** POST → 202 → poll until completed → download of the audio_url, which must be the whole MP3. */
async function runJob(server: AgentServer, key: string, text: string, params: LongParams): Promise<JobRun> {
  const started = performance.now();
  const window = { startUs: monotonicUs(), endUs: 0 };
  const posted = await postTts(server.baseUrl, key, text, 60_000);
  if (posted.status !== 202 && posted.status !== 200) throw new Error(`POST failed: ${describeFailure(posted)}`);
  const jobId = String(posted.json?.job_id);

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
  return { posted, jobId, polls, body, download, started, completedAt, finished, window };
}

export async function runLong(ctx: BenchContext): Promise<BenchmarkOutput> {
  const params: LongParams = ctx.quick
    ? { chars: 5_000, baseline_chars: 1_000, inline_wait_ms: 1_000, poll_interval_ms: 250, limit_s: 60 }
    : { chars: FULL_CHARS, baseline_chars: 50_000, inline_wait_ms: 10_000, poll_interval_ms: 1000, limit_s: 1800 };
  const text = proseOfLength(params.chars);
  const baseline = await measureBaseline(ctx, params, text);
  ctx.log(`  direct: ${baseline.audio_seconds_per_s} audio s/s`);

  ctx.log(`long: ${params.chars.toLocaleString('en')} characters end to end (POST → 202 → poll → download)`);
  const { server, profileDir } = await startServer(ctx, params);
  const sampler = new RssSampler({ server: server.pid, client: 'self' }, 200);
  let sampled: ReturnType<RssSampler['stop']> | undefined;
  try {
    const key = defined((await server.seed(1)).keys.active[0], 'the first active key of the seeded fixtures');
    const jobConcurrency = server.config().jobConcurrency;
    await warmUp(ctx, server, key, text);
    const load0 = loadavg()[0] ?? Number.NaN;
    const cpuServer0 = procCpuSeconds(server.pid) ?? Number.NaN;
    const job = await runJob(server, key, text, params);

    const serverCpuS = (procCpuSeconds(server.pid) ?? Number.NaN) - cpuServer0;
    const serverHwm = server.process.peakRssBytes();
    sampled = sampler.stop();
    const clientHwm = procStatusBytes('self', 'VmHWM');
    const jobLog = (await server.logRecords('job completed')).find((r) => r.job_id === job.jobId);
    const figures = longFigures({ ctx, params, jobConcurrency, job, jobLog, serverCpuS, load0, baseline, serverHwm, sampled, clientHwm });
    ctx.log(
      `  ${figures.wall_s} s wall, ${figures.audio_seconds_per_s} audio s/s (direct ${baseline.audio_seconds_per_s}), server peak ${figures.server_peak_rss_mb} MB, ${figures.server_cores_used} cores used`,
    );

    let profiles: { main?: Awaited<ReturnType<typeof readProfile>>; workers?: Awaited<ReturnType<typeof readProfile>> } | undefined;
    if (profileDir) {
      await server.stop();
      profiles = { main: await readProfile(profileDir, job.window, 'main'), workers: await readProfile(profileDir, job.window, 'workers') };
    }
    return {
      name: 'long',
      title: `Long job: ${params.chars.toLocaleString('en')} characters end to end`,
      data: { params, ...figures, profiles },
      markdown: longMarkdown(ctx, params, figures, job.posted.status, profiles),
      targets: longTargets(ctx, params, figures),
    };
  } finally {
    if (!sampled) sampler.stop();
    await server.stop();
  }
}
