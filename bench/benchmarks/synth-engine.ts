import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkText, espeakSettings, espeakSynthesize, SynthesisPool } from '@agent-tts/server/synth';
import { cpuSecondsSince } from '../harness/proc.js';
import { figuresTable, type BenchContext, type BenchmarkOutput } from '../harness/report-types.js';
import { round } from '../harness/stats.js';
import { proseOfLength } from '../harness/texts.js';

const VOICE = 'af_heart';

interface Pass {
  audio_s: number;
  wall_s: number;
  cpu_s: number;
}

/** Native eSpeak NG (Debian's espeak-ng) on the same chunks, voice, rate and pitch, writing a WAV file. */
async function nativeRun(texts: string[], settings: ReturnType<typeof espeakSettings>): Promise<(Pass & { version: string; command: string }) | undefined> {
  if (spawnSync('sh', ['-c', 'command -v espeak-ng']).status !== 0) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'agent-tts-bench-espeak-'));
  try {
    const input = join(dir, 'in.txt');
    const wav = join(dir, 'out.wav');
    await writeFile(input, texts.join('\n'));
    const args = ['-v', settings.name, '-s', String(settings.rate), '-p', String(settings.pitch), '-w', wav, '-f', input];
    // bash's `time` reports the child's user and system CPU as well as wall time.
    const run = spawnSync('bash', ['-c', `TIMEFORMAT='%R %U %S'; time espeak-ng ${args.map((a) => `'${a}'`).join(' ')}`], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`espeak-ng failed: ${run.stderr}`);
    const [wall, user, sys] = run.stderr.trim().split(/\s+/).slice(-3).map(Number) as [number, number, number];
    const bytes = await readFile(wav);
    const audio = (bytes.length - 44) / 2 / bytes.readUInt32LE(24);
    const version = spawnSync('espeak-ng', ['--version'], { encoding: 'utf8' }).stdout.trim();
    return { audio_s: audio, wall_s: wall, cpu_s: user + sys, version, command: `espeak-ng ${args.slice(0, 6).join(' ')} -w out.wav -f in.txt` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every chunk on this thread, one after the other, as a synthesis thread does. */
async function wasmPass(chunks: string[], settings: ReturnType<typeof espeakSettings>): Promise<Pass> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  let audio = 0;
  for (const text of chunks) {
    const out = await espeakSynthesize(text, settings);
    audio += out.samples.length / out.sampleRate;
  }
  return { audio_s: audio, wall_s: (performance.now() - started) / 1000, cpu_s: cpuSecondsSince(cpu) };
}

/** The worker pool, every thread synthesizing: what a deployment gets from eSpeak alone (a second pass, after one that warms every thread). */
async function poolRun(ctx: BenchContext, chunks: string[], settings: ReturnType<typeof espeakSettings>): Promise<Pass> {
  const pool = new SynthesisPool({ threads: ctx.synthThreads, warmEspeak: true });
  try {
    await Promise.all(chunks.map((text) => pool.synthesize({ text, settings }))); // warms every thread
    const cpu = process.cpuUsage();
    const started = performance.now();
    const pcms = await Promise.all(chunks.map((text) => pool.synthesize({ text, settings })));
    return {
      audio_s: pcms.reduce((s, p) => s + p.samples.length / p.sampleRate, 0),
      wall_s: (performance.now() - started) / 1000,
      cpu_s: cpuSecondsSince(cpu),
    };
  } finally {
    await pool.destroy();
  }
}

/**
 * eSpeak NG throughput (synthesis only, no MP3): the WebAssembly build this project runs, on one thread
 * cold and warm and on the worker pool, against Debian's native espeak-ng on the same text when installed.
 */
export async function runSynthEngine(ctx: BenchContext): Promise<BenchmarkOutput> {
  const chars = ctx.quick ? 3_000 : 30_000;
  const settings = espeakSettings(VOICE, 'en-US', 1);
  const chunks = chunkText(proseOfLength(chars), { locale: 'en-US' }).map((c) => c.text);
  ctx.log(`synth-engine: ${chars.toLocaleString('en')} characters in ${chunks.length} chunks, voice ${VOICE}`);

  const cold = await wasmPass(chunks, settings);
  await wasmPass(chunks, settings);
  const warm = await wasmPass(chunks, settings);
  const poolPass = await poolRun(ctx, chunks, settings);
  const native = await nativeRun(chunks, settings);

  const x = (p: Pass) => round(p.audio_s / p.wall_s, 1);
  const perCpu = (p: Pass) => round(p.audio_s / p.cpu_s, 1);
  const figures: Record<string, string | number> = {
    characters: chars,
    chunks: chunks.length,
    voice: `${VOICE} (eSpeak ${settings.name}, ${settings.rate} wpm, pitch ${settings.pitch})`,
    'audio seconds (one pass)': round(warm.audio_s, 1),
    'WebAssembly, one thread, cold: audio s per wall s': x(cold),
    'WebAssembly, one thread, warm: audio s per wall s': x(warm),
    'WebAssembly, one thread, warm: audio s per CPU s': perCpu(warm),
    [`WebAssembly, pool of ${ctx.synthThreads} threads: audio s per wall s`]: x(poolPass),
    [`WebAssembly, pool of ${ctx.synthThreads} threads: audio s per CPU s`]: perCpu(poolPass),
    'native espeak-ng': native ? native.version : 'not installed (apt-get install -y espeak-ng): no comparison',
  };
  if (native) {
    Object.assign(figures, {
      'native, one process: audio s per wall s': x(native),
      'native, one process: audio s per CPU s': perCpu(native),
      'WebAssembly warm / native, per wall s': round(x(warm) / x(native), 2),
      'WebAssembly warm / native, per CPU s': round(perCpu(warm) / perCpu(native), 2),
      'native command': native.command,
    });
  }
  ctx.log(`  WebAssembly warm ${x(warm)}x real time, pool ${x(poolPass)}x${native ? `, native ${x(native)}x` : ''}`);
  const md = [
    `${chars.toLocaleString('en')} characters of prose, chunked as the pipeline does (${chunks.length} chunks), synthesized to PCM without MP3. ` +
      'Cold: the first pass in this process; warm: the third (eSpeak in WebAssembly gets faster over its first thousand or so seconds of speech in a thread). ' +
      `The pool figures are of a second pass over the text on ${ctx.synthThreads} worker threads, after one that warms every thread. ` +
      'Native espeak-ng reads the same chunks as one file. "Per CPU s" divides by CPU time instead of wall time, which a busy machine disturbs less.',
    '',
    figuresTable(figures),
  ];
  const data = {
    chars,
    chunks: chunks.length,
    voice: VOICE,
    espeak: settings,
    wasm_cold: cold,
    wasm_warm: warm,
    wasm_pool: { threads: ctx.synthThreads, ...poolPass },
    native: native ?? 'not installed',
  };
  return { name: 'synth-engine', title: 'Synthesis engine: eSpeak NG in WebAssembly against native', data, markdown: md.join('\n'), targets: [] };
}
