/**
 * Piscina worker: each thread keeps one warm eSpeak NG and one LAME encoder. Tasks are the named exports.
 * Sample and MP3 buffers move back to the main thread without copying.
 */
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina';
import { FEMALE_VARIANTS, MALE_VARIANTS, type EspeakVoiceSettings } from './espeak-voices.js';
import { espeakSynthesize } from './espeak-wasm.js';
import { encodeChunk as encode, type EncodeTask, type EncodedChunk, useEncoder } from './mp3-encode.js';
import { type NativeLibraries, nativeEspeak, nativeLame } from './native.js';
import { PoolClosingError, insideNative, threadLoaded } from './native-guard.js';
import type { PcmAudio } from './pcm.js';

export interface WorkerData {
  /** Load and warm up eSpeak (and the encoder) when the thread starts rather than on its first chunk. */
  warmEspeak: boolean;
  /** Run the system's eSpeak NG and LAME (native.ts) rather than their WebAssembly builds. */
  native?: NativeLibraries;
  /** Shared with the pool so that it never terminates this thread inside native code (native-guard.ts). */
  guard?: SharedArrayBuffer;
}

/**
 * eSpeak in WebAssembly is slow in a fresh thread, and slow again in each voice variant it has not yet
 * spoken (measured: 20–40× real time on the first sentences, 300–700× once warm; breathy variants
 * are the slowest to warm). Speaking a sentence in every variant, and encoding it, at start-up moves the
 * worst of that out of the first jobs, which may be waited on inline.
 */
async function warmUp(): Promise<void> {
  const text = 'Warming up the speech engine: a few ordinary words, a number like 42, and a question?';
  for (const variant of [...FEMALE_VARIANTS, ...MALE_VARIANTS]) {
    const { samples, sampleRate } = await espeakSynthesize(text, { name: `en-us+${variant}`, pitch: 50, range: 50, rate: 175 });
    await encode({ samples, sampleRate, outputRate: 22050, pauseSamples: 0, bitrateKbps: 48 });
  }
}

const data = workerData as WorkerData | undefined;

/** The native engine of this thread, loaded at its start (no warm-up: native code runs at full speed at once). */
const guard = data?.guard;
const native = loadNative(data?.native);

function loadNative(libraries: NativeLibraries | undefined) {
  if (!libraries) return undefined;
  try {
    return insideNative(guard, () => {
      const espeak = nativeEspeak(libraries.espeak, guard);
      useEncoder(nativeLame(libraries.lame));
      return { espeak };
    });
  } catch (error) {
    // The pool closed before this thread started: it will run no task.
    if (error instanceof PoolClosingError) return undefined;
    threadLoaded(guard);
    throw error;
  }
}

if (data?.warmEspeak && !native) {
  // A failure here resurfaces, with its message, on the thread's first synthesis task.
  warmUp().catch(() => undefined);
}

/** Piscina transfers only a top-level movable: wrap the result so that its buffers are transferred. */
function transferring<T>(value: T, buffers: ArrayBufferLike[]): T {
  return move({ [transferableSymbol]: buffers, [valueSymbol]: value } as never) as T;
}

export interface SynthesizeTask {
  text: string;
  settings: EspeakVoiceSettings;
  /** Return eSpeak's word events with the samples (for word timings). */
  wordEvents?: boolean;
}

export type SynthesizeResult = PcmAudio & { samples: Int16Array };

/** @public The pool runs this by name in the worker thread (pool.ts: piscina.run(task, { name: 'synthesize' })). */
export async function synthesize(task: SynthesizeTask): Promise<SynthesizeResult> {
  const options = { wordEvents: task.wordEvents };
  const result = native
    ? insideNative(guard, () => native.espeak(task.text, task.settings, options))
    : await espeakSynthesize(task.text, task.settings, options);
  return transferring(result, [result.samples.buffer]);
}

/** @public The pool runs this by name in the worker thread (pool.ts: piscina.run(task, { name: 'encodeChunk' })). */
export async function encodeChunk(task: EncodeTask): Promise<EncodedChunk> {
  // The native encoder runs synchronously inside encode: counted as native work.
  const chunk = await (native ? insideNative(guard, () => encode(task)) : encode(task));
  return transferring(chunk, [chunk.mp3.buffer]);
}

// Last: the pool terminates this thread only once it has loaded (native-guard.ts).
threadLoaded(guard);
