/**
 * One long job in a process of its own, for benchmarks that compare the peak memory of variants of a job
 * (benchmarks/timings-long.ts): a fresh process starts every variant from the same memory, where jobs run
 * one after another in one process each inherit what the last left. Warms the pool, runs the job, and
 * prints one JSON line of figures.
 *
 *   node bench/dist/harness/long-job.js <characters> <none|word> <threads>
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSynthesizer, synthesizeToFile } from '@agent-tts/server/synth';
import { defaultSynthesisRequest, benchEspeakBuild } from './direct-pipeline.js';
import { MB, RssSampler, cpuSecondsSince, procStatusBytes, resetPeakRss } from './proc.js';
import { round } from './stats.js';
import { proseOfLength } from './texts.js';

/** What one job measured, as printed. */
export interface LongJobFigures {
  mode: 'none' | 'word';
  wall_s: number;
  cpu_s: number;
  audio_s: number;
  rss_before_mb: number;
  peak_rss_mb: number;
  words?: number;
  words_json_bytes?: number;
}

async function main(): Promise<void> {
  const [chars, mode, threads] = [Number(process.argv[2]), process.argv[3], Number(process.argv[4])];
  if (!(chars > 0) || (mode !== 'none' && mode !== 'word') || !(threads >= 1)) throw new Error('usage: long-job.js <characters> <none|word> <threads>');
  const request = defaultSynthesisRequest(proseOfLength(chars));
  const dir = await mkdtemp(join(tmpdir(), 'agent-tts-bench-long-job-'));
  const synth = createSynthesizer({ threads, espeakBuild: benchEspeakBuild() });
  try {
    await synthesizeToFile(synth, defaultSynthesisRequest('The pool is ready.'), join(dir, 'warm.mp3'));
    const rssBefore = procStatusBytes('self', 'VmRSS') ?? Number.NaN;
    const hwmReset = resetPeakRss();
    const sampler = new RssSampler({ self: 'self' }, 200);
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await synthesizeToFile(synth, mode === 'word' ? { ...request, timestamps: 'word' } : request, join(dir, 'long.mp3'));
    const wallS = (performance.now() - started) / 1000;
    const cpuS = cpuSecondsSince(cpu);
    const sampled = sampler.stop();
    const hwm = hwmReset ? (procStatusBytes('self', 'VmHWM') ?? 0) : 0;
    const figures: LongJobFigures = {
      mode,
      wall_s: round(wallS, 1),
      cpu_s: round(cpuS, 1),
      audio_s: round(result.durationSeconds, 1),
      rss_before_mb: round(rssBefore / MB, 1),
      peak_rss_mb: round(Math.max(hwm, sampled.self.peak_rss_bytes) / MB, 1),
      ...(result.words && { words: result.words.length, words_json_bytes: Buffer.byteLength(JSON.stringify(result.words)) }),
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    await synth.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`long-job: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
