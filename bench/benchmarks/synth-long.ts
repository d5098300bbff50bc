import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSynthesizer, synthesizeToFile } from '@agent-tts/server/synth';
import { MB, RssSampler, cpuSecondsSince, procStatusBytes, resetPeakRss } from '../harness/proc.js';
import type { SynthesisRequest, Synthesizer } from '@agent-tts/server';
import { figuresTable, type BenchContext, type BenchmarkOutput } from '../harness/report-types.js';
import { round } from '../harness/stats.js';
import { proseOfLength } from '../harness/texts.js';
import { benchEspeakBuild, defaultSynthesisRequest } from '../harness/direct-pipeline.js';

/**
 * A long job through the synthesis pipeline alone, in this process, without HTTP: chunking, eSpeak NG on
 * the worker pool, MP3, file. Wall time, audio seconds per second, CPU, peak memory of the process (its
 * synthesis threads included), and how the synthesizer's estimates compared.
 *
 * Its phases: the pool warmed (start-up measured apart), the long job, the report.
 */

/** The memory budget of a 500,000-character job (the long job's target, here for the pipeline alone). */
const BUDGET_MB = 400;

/**
 * A deployment's pool is warm when jobs arrive: start-up (threads, eSpeak data, WebAssembly warm-up)
 * is measured apart, with a one-sentence job, and the long job runs on the warm pool. Returns its seconds.
 */
async function warmPool(synth: Synthesizer, dir: string): Promise<number> {
  const warmStarted = performance.now();
  await synthesizeToFile(synth, defaultSynthesisRequest('The pool is ready.'), join(dir, 'warm.mp3'));
  return (performance.now() - warmStarted) / 1000;
}

/** The long job, timed, its progress logged every 15 s; wall and CPU seconds of the whole process. */
async function synthesizeLong(ctx: BenchContext, synth: Synthesizer, request: SynthesisRequest, out: string) {
  let lastLogged = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await synthesizeToFile(synth, request, out, {
    onProgress: (p) => {
      if (p.elapsedMs - lastLogged < 15_000) return;
      lastLogged = p.elapsedMs;
      ctx.log(`  ${p.completedChunks}/${p.totalChunks} chunks, ${Math.round(p.audioSeconds)} s of audio, ${round(p.elapsedMs / 1000, 0)} s`);
    },
  });
  const wallS = (performance.now() - started) / 1000;
  const cpuS = cpuSecondsSince(cpu);
  return { result, wallS, cpuS };
}

/** What the run measured, as its report reads it. */
interface SynthLongRun {
  chars: number;
  text: string;
  request: SynthesisRequest;
  synth: Synthesizer;
  out: string;
  startupS: number;
  estimatedAudioS: number;
  estimatedWallBeforeS: number;
  job: Awaited<ReturnType<typeof synthesizeLong>>;
  rssBeforeMb: number;
  hwmReset: boolean;
  hwm: number | undefined;
  sampled: ReturnType<RssSampler<'self'>['stop']>;
}

/** The figures table and the results file's data; the synthesizer's estimate after the job is read here. */
async function synthLongReport(ctx: BenchContext, run: SynthLongRun): Promise<BenchmarkOutput> {
  const { chars, text, request, synth, out, startupS, estimatedAudioS, estimatedWallBeforeS, rssBeforeMb, hwmReset, hwm, sampled } = run;
  const { result, wallS, cpuS } = run.job;
  const peakMb = round(Math.max(sampled.self.peak_rss_bytes, hwm ?? 0) / MB, 1);
  const figures = {
    characters: chars,
    engine: `${synth.engine?.name} (${synth.engine?.detail})`,
    chunks: result.chunks,
    threads: ctx.synthThreads,
    'pool start-up and a one-sentence job (s)': round(startupS, 1),
    'audio produced (s)': `${round(result.durationSeconds, 1)} (${round(result.durationSeconds / 3600, 2)} h)`,
    'wall time (s)': round(wallS, 1),
    'audio s per wall s': round(result.durationSeconds / wallS, 1),
    'characters per s': Math.round(chars / wallS),
    'CPU time (s), every thread': round(cpuS, 1),
    'cores used on average': round(cpuS / wallS, 2),
    'audio s per CPU s': round(result.durationSeconds / cpuS, 1),
    'MP3 (bytes)': `${(await stat(out)).size} at ${result.bitrateKbps} kbit/s`,
    'RSS of the benchmark process before (MB)': rssBeforeMb,
    'peak RSS during the job (MB)': peakMb,
    // What the pipeline itself added: comparable with the budget whatever ran in this process before.
    [`growth over the RSS before (MB), against the ${BUDGET_MB} MB budget`]: `${round(peakMb - rssBeforeMb, 1)} (${peakMb - rssBeforeMb <= BUDGET_MB ? 'within' : 'over'})`,
    'estimated audio (s), error': `${round(estimatedAudioS, 1)}, ${round(((estimatedAudioS - result.durationSeconds) / result.durationSeconds) * 100, 1)}%`,
    'estimated wall time (s) before / after this job': `${round(estimatedWallBeforeS, 1)} / ${round(synth.estimateWallSeconds(text, request.speed, request.language), 1)}`,
  };
  ctx.log(`  ${figures['wall time (s)']} s wall, ${figures['audio s per wall s']} audio s/s, peak ${peakMb} MB`);
  const md = [
    `${chars.toLocaleString('en')} characters of prose, voice ${request.voice} (${request.language}), speed ${request.speed}, through \`createSynthesizer({ threads: ${ctx.synthThreads} })\` + \`synthesizeToFile\` in the benchmark process, without HTTP ` +
      '(the `long` benchmark measures the same through the API). Timing starts on a warm pool. ' +
      `Peak RSS: of the whole process (main thread and synthesis threads), the larger of VmHWM ${hwmReset ? 'reset just before the job' : '(could not be reset: the sampled figure only)'} and VmRSS sampled every 200 ms; ` +
      'the process holds what earlier benchmarks of the run left (the RSS before), so the growth over it is what the job itself took.',
    '',
    figuresTable(figures),
  ];
  return {
    name: 'synth-long',
    title: `Synthesis pipeline alone: ${chars.toLocaleString('en')} characters`,
    data: {
      chars,
      engine: synth.engine?.name,
      chunks: result.chunks,
      threads: ctx.synthThreads,
      request: { ...request, text: undefined },
      startup_s: round(startupS, 1),
      audio_s: round(result.durationSeconds, 1),
      wall_s: round(wallS, 1),
      audio_s_per_s: round(result.durationSeconds / wallS, 1),
      cpu_s: round(cpuS, 1),
      mp3_bytes: result.bytes,
      mp3_kbps: result.bitrateKbps,
      rss_before_mb: rssBeforeMb,
      peak_rss_mb: peakMb,
      rss_growth_mb: round(peakMb - rssBeforeMb, 1),
      peak_rss_vmhwm_mb: hwm === undefined ? undefined : round(hwm / MB, 1),
      peak_rss_sampled_mb: round(sampled.self.peak_rss_bytes / MB, 1),
      estimated_audio_s: round(estimatedAudioS, 1),
      estimated_wall_s_before: round(estimatedWallBeforeS, 1),
    },
    markdown: md.join('\n'),
    targets: [],
  };
}

export async function runSynthLong(ctx: BenchContext): Promise<BenchmarkOutput> {
  const chars = ctx.quick ? 20_000 : 500_000;
  const text = proseOfLength(chars);
  const request = defaultSynthesisRequest(text);
  ctx.log(`synth-long: ${chars.toLocaleString('en')} characters through the pipeline alone, ${ctx.synthThreads} threads`);
  const dir = await mkdtemp(join(tmpdir(), 'agent-tts-bench-synth-long-'));
  // The benchmark process may have run others before: its peak is counted from here.
  const rssBeforeMb = round((procStatusBytes('self', 'VmRSS') ?? Number.NaN) / MB, 1);
  const hwmReset = resetPeakRss();
  const sampler = new RssSampler({ self: 'self' }, 200);
  let sampled: ReturnType<RssSampler['stop']> | undefined;
  const synth = createSynthesizer({ threads: ctx.synthThreads, espeakBuild: benchEspeakBuild() });
  try {
    const startupS = await warmPool(synth, dir);
    const estimatedAudioS = synth.estimateAudioSeconds(text, request.speed, request.language);
    const estimatedWallBeforeS = synth.estimateWallSeconds(text, request.speed, request.language);
    const out = join(dir, 'long.mp3');
    const job = await synthesizeLong(ctx, synth, request, out);
    sampled = sampler.stop();
    const hwm = hwmReset ? procStatusBytes('self', 'VmHWM') : undefined;
    const run = { chars, text, request, synth, out, startupS, estimatedAudioS, estimatedWallBeforeS, job, rssBeforeMb, hwmReset, hwm, sampled };
    return await synthLongReport(ctx, run);
  } finally {
    if (!sampled) sampler.stop();
    await synth.close();
    await rm(dir, { recursive: true, force: true });
  }
}
