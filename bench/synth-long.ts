/**
 * A 500,000-character job end to end (chunking, eSpeak NG on the worker pool, MP3, file): wall time,
 * audio seconds per wall second, and peak memory of the whole process.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { espeakSettings } from '../src/synth/espeak-voices.js';
import { createSynthesizer } from '../src/synth/index.js';
import { englishProse, load, mib, peakRssBytes, printHeader, round, writeResults } from './synth-common.js';

const CHARS = Number(process.env.SYNTH_BENCH_CHARS ?? 500_000);
const RSS_LIMIT_MIB = 400;

printHeader(`Synthesis of a ${CHARS.toLocaleString('en')}-character job`);
const loadBefore = load();
const text = englishProse(CHARS);
const dir = await mkdtemp(join(tmpdir(), 'synth-long-'));
const out = join(dir, 'long.mp3');

let sampledPeak = process.memoryUsage().rss;
const sampler = setInterval(() => {
  sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
}, 100);

const synth = createSynthesizer();
try {
  // A deployment's pool is warm when jobs arrive: start-up (threads, eSpeak data, WebAssembly warm-up)
  // is measured apart, with a short job, and the long job runs on the warm pool.
  const warmStarted = performance.now();
  await synth.synthesizeToFile({ text: 'The pool is ready.', voice: 'af_heart', language: 'en-US', speed: 1 }, join(dir, 'warm.mp3'));
  const startupSeconds = (performance.now() - warmStarted) / 1000;
  const request = { text, voice: 'af_heart', language: 'en-US', speed: 1 };
  const estimatedAudio = synth.estimateAudioSeconds(text, 1, 'en-US');
  const estimatedWallBefore = synth.estimateWallSeconds(text, 1, 'en-US');
  let lastLogged = 0;
  const started = performance.now();
  const result = await synth.synthesizeToFile(request, out, {
    onProgress: (p) => {
      if (p.elapsedMs - lastLogged >= 10_000 || p.completedChunks === p.totalChunks) {
        lastLogged = p.elapsedMs;
        console.log(`  ${p.completedChunks}/${p.totalChunks} chunks, ${Math.round(p.fraction * 100)}%, ${Math.round(p.audioSeconds)} s audio, ${round(p.elapsedMs / 1000, 1)} s`);
      }
    },
  });
  const wallSeconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
  const hwm = await peakRssBytes();
  const peak = Math.max(sampledPeak, hwm ?? 0);
  const figures = {
    pool_startup_and_first_short_job_seconds: round(startupSeconds, 1),
    characters: text.length,
    chunks: result.chunks,
    threads: (await import('node:os')).availableParallelism(),
    audio_seconds: round(result.durationSeconds, 1),
    audio_hours: round(result.durationSeconds / 3600, 2),
    wall_seconds: round(wallSeconds, 1),
    audio_seconds_per_wall_second: round(result.durationSeconds / wallSeconds, 1),
    mp3_bytes: result.bytes,
    mp3_file_bytes: (await stat(out)).size,
    mp3_kbps: result.bitrateKbps,
    peak_rss_mib_sampled: mib(sampledPeak),
    peak_rss_mib_vmhwm: hwm === undefined ? 'unavailable' : mib(hwm),
    rss_limit_mib: RSS_LIMIT_MIB,
    within_rss_limit: mib(peak) <= RSS_LIMIT_MIB,
    estimated_audio_seconds: round(estimatedAudio, 1),
    estimate_error_percent: round(((estimatedAudio - result.durationSeconds) / result.durationSeconds) * 100, 1),
    estimated_wall_seconds_before_any_job: round(estimatedWallBefore, 1),
    estimated_wall_seconds_after_this_job: round(synth.estimateWallSeconds(text, 1, 'en-US'), 1),
    load_average_before_after: `${loadBefore} / ${load()}`,
  };
  console.table(figures);
  await writeResults('long', `Synthesis of a ${CHARS.toLocaleString('en')}-character job`, figures, [
    `Voice af_heart (eSpeak NG ${espeakSettings('af_heart', 'en-US', 1).name}), speed 1.0, MP3 22,050 Hz mono CBR; pool threads = available cores.`,
    'Peak RSS is the whole process (main thread and worker threads): the larger of /proc/self/status VmHWM and rss sampled every 100 ms.',
    'Text: ordinary English prose (twelve sentences cycled with a running part number).',
    'Timing starts on a warm pool; pool start-up (threads, eSpeak data, warm-up) is the first figure, measured with a one-sentence job.',
    'The load average is of the whole machine, shared with other work while the figures were taken.',
  ]);
  if (mib(peak) > RSS_LIMIT_MIB) process.exitCode = 1;
} finally {
  clearInterval(sampler);
  await synth.close();
  await rm(dir, { recursive: true, force: true });
}
