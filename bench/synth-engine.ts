/**
 * eSpeak NG throughput: the WebAssembly build this project runs, against Debian's native espeak-ng on
 * the same text and voice settings, and the worker pool as a whole (synthesis only, no MP3).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkText } from '../src/synth/chunker.js';
import { espeakSettings } from '../src/synth/espeak-voices.js';
import { espeakSynthesize } from '../src/synth/espeak-wasm.js';
import { SynthesisPool } from '../src/synth/pool.js';
import { cpuSeconds, englishProse, load, printHeader, round, writeResults } from './synth-common.js';

const CHARS = Number(process.env.SYNTH_BENCH_CHARS ?? 30_000);
const VOICE = 'af_heart';
const settings = espeakSettings(VOICE, 'en-US', 1);
const text = englishProse(CHARS);
const chunks = chunkText(text, { locale: 'en-US' });

printHeader('eSpeak NG throughput: WebAssembly vs native');
const loadBefore = load();

/** Synthesizes every chunk on this thread; returns audio seconds, wall and CPU seconds. */
async function wasmRun() {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let samples = 0;
  let rate = 22050;
  for (const chunk of chunks) {
    const out = await espeakSynthesize(chunk.text, settings);
    samples += out.samples.length;
    rate = out.sampleRate;
  }
  return { audio: samples / rate, wall: (performance.now() - started) / 1000, cpu: cpuSeconds(cpu) };
}

const cold = await wasmRun();
await wasmRun();
const warm = await wasmRun();
console.log(`wasm (one thread): cold ${round(cold.audio / cold.wall, 1)}x, warm ${round(warm.audio / warm.wall, 1)}x real time`);

// The worker pool, every thread synthesizing: what a deployment gets from eSpeak alone.
const pool = new SynthesisPool({ warmEspeak: true });
await Promise.all(chunks.map((c) => pool.synthesize({ text: c.text, settings }))); // warm every thread
const poolStarted = performance.now();
const poolCpu = process.cpuUsage();
const pcms = await Promise.all(chunks.map((c) => pool.synthesize({ text: c.text, settings })));
const poolWall = (performance.now() - poolStarted) / 1000;
const poolCpuSeconds = cpuSeconds(poolCpu);
const poolAudio = pcms.reduce((s, p) => s + p.samples.length / p.sampleRate, 0);
await pool.destroy();
console.log(`wasm pool (${pool.threads} threads): ${round(poolAudio / poolWall, 1)}x real time`);

// Native eSpeak NG, same text, voice variant, rate, pitch and range, writing a WAV file.
const native = await (async () => {
  const which = spawnSync('sh', ['-c', 'command -v espeak-ng'], { encoding: 'utf8' });
  if (which.status !== 0) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'synth-engine-'));
  try {
    const input = join(dir, 'in.txt');
    const wav = join(dir, 'out.wav');
    await writeFile(input, chunks.map((c) => c.text).join('\n'));
    const args = ['-v', settings.name, '-s', String(settings.rate), '-p', String(settings.pitch), '-w', wav, '-f', input];
    // bash's `time` reports the child's user and system CPU as well as wall time.
    const run = spawnSync('bash', ['-c', `TIMEFORMAT='%R %U %S'; time espeak-ng ${args.map((a) => `'${a}'`).join(' ')}`], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`espeak-ng failed: ${run.stderr}`);
    const [wall, user, sys] = run.stderr.trim().split(/\s+/).slice(-3).map(Number) as [number, number, number];
    const bytes = await readFile(wav);
    const dataBytes = bytes.length - 44;
    const audio = dataBytes / 2 / bytes.readUInt32LE(24);
    const version = spawnSync('espeak-ng', ['--version'], { encoding: 'utf8' }).stdout.trim();
    return { audio, wall, cpu: user + sys, version, command: `espeak-ng ${args.join(' ')}` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
})();
if (native) console.log(`native (${native.version}): ${round(native.audio / native.wall, 1)}x real time`);
else console.log('native espeak-ng is not installed (apt-get install -y espeak-ng): no comparison');

const figures: Record<string, unknown> = {
  characters: text.length,
  chunks: chunks.length,
  voice: `${VOICE} (${settings.name}, rate ${settings.rate} wpm, pitch ${settings.pitch})`,
  wasm_audio_seconds: round(warm.audio, 1),
  wasm_one_thread_cold_x_realtime: round(cold.audio / cold.wall, 1),
  wasm_one_thread_warm_x_realtime: round(warm.audio / warm.wall, 1),
  wasm_one_thread_warm_audio_seconds_per_cpu_second: round(warm.audio / warm.cpu, 1),
  wasm_pool_threads: pool.threads,
  wasm_pool_x_realtime: round(poolAudio / poolWall, 1),
  wasm_pool_audio_seconds_per_cpu_second: round(poolAudio / poolCpuSeconds, 1),
  native: native ? native.version : 'not installed',
};
if (native) {
  Object.assign(figures, {
    native_audio_seconds: round(native.audio, 1),
    native_x_realtime: round(native.audio / native.wall, 1),
    native_audio_seconds_per_cpu_second: round(native.audio / native.cpu, 1),
    wasm_warm_vs_native_wall_ratio: round(warm.audio / warm.wall / (native.audio / native.wall), 2),
    wasm_warm_vs_native_cpu_ratio: round(warm.audio / warm.cpu / (native.audio / native.cpu), 2),
    native_command: native.command,
  });
}
figures.load_average_before_after = `${loadBefore} / ${load()}`;
console.table(figures);
await writeResults('engine', 'eSpeak NG throughput: WebAssembly vs native', figures, [
  '"x_realtime" is audio seconds per wall second; "per_cpu_second" divides by CPU time instead, which a busy machine disturbs less.',
  'The WebAssembly runs synthesize chunk by chunk as the pipeline does (chunks of about 450 characters); native espeak-ng reads the same chunks as one file.',
  'Cold: the first pass over the text in a fresh thread; warm: the third pass (eSpeak in WebAssembly gets faster over its first thousand or so seconds of speech in a thread). The pool figures are of a second pass, after one to warm every thread.',
  'The load average is of the whole machine, shared with other work while the figures were taken.',
]);
