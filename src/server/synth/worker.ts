/**
 * Piscina worker: each thread keeps one warm eSpeak NG and one LAME encoder. Tasks are the named exports.
 * Sample and MP3 buffers move back to the main thread without copying.
 */
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina';
import { FEMALE_VARIANTS, MALE_VARIANTS, type EspeakVoiceSettings } from './espeak-voices.js';
import { espeakSynthesize } from './espeak-wasm.js';
import { encodeChunk as encode, type EncodeTask, type EncodedChunk } from './mp3-encode.js';
import type { PcmAudio } from './pcm.js';

export interface WorkerData {
  /** Load and warm up eSpeak (and the encoder) when the thread starts rather than on its first chunk. */
  warmEspeak: boolean;
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

if ((workerData as WorkerData | undefined)?.warmEspeak) {
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
  const result = await espeakSynthesize(task.text, task.settings, { wordEvents: task.wordEvents });
  return transferring(result, [result.samples.buffer]);
}

/** @public The pool runs this by name in the worker thread (pool.ts: piscina.run(task, { name: 'encodeChunk' })). */
export async function encodeChunk(task: EncodeTask): Promise<EncodedChunk> {
  const chunk = await encode(task);
  return transferring(chunk, [chunk.mp3.buffer]);
}
