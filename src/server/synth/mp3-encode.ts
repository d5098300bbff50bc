import { createMp3Encoder } from 'wasm-media-encoders';
import { countFrames } from './mp3-frames.js';
import { resampleLinear, speechRange } from './pcm.js';
import { type ChunkWords, type PlacedWords, placeWords } from './word-placement.js';

export type Mp3Bitrate = 32 | 40 | 48 | 64;

export interface EncodeTask {
  samples: Int16Array | Float32Array;
  sampleRate: number;
  /** Rate of the MP3 (an MPEG-2 rate for speech: 22 050 or 24 000). */
  outputRate: 22050 | 24000;
  /** Silence appended after the speech, in samples at `outputRate`. */
  pauseSamples: number;
  bitrateKbps: Mp3Bitrate;
  /** The chunk's words, when word timings are asked for: placed in the stream (EncodedChunk.words). */
  words?: ChunkWords;
}

export interface EncodedChunk {
  /** A complete MP3 stream of its own: streams concatenate into one valid file. */
  mp3: Uint8Array;
  /** Samples a decoder outputs for `mp3` (frames × 576): the chunk's exact share of the file's duration. */
  decodedSamples: number;
  /** Samples of speech after trimming (before the pause). */
  speechSamples: number;
  /** The task's words, in samples of this stream (its encoder delay included). */
  words?: PlacedWords;
}

/** The part of an MP3 encoder's interface used here (wasm-media-encoders' LAME, or the system's: native.ts). */
export interface Mp3Encoder {
  configure(options: { sampleRate: number; outputSampleRate: 22050 | 24000; channels: 1; bitrate: Mp3Bitrate }): void;
  /** The bytes are the encoder's until its next call. */
  encode(channels: Float32Array[]): Uint8Array;
  finalize(): Uint8Array;
}

let encoder: Promise<Mp3Encoder> | undefined;

/**
 * Encodes this thread's chunks with `lame` rather than LAME in WebAssembly (the system's LAME with the
 * same settings gives the same bytes). Called once, at the thread's start.
 */
export function useEncoder(lame: Mp3Encoder): void {
  encoder = Promise.resolve(lame);
}

/**
 * Float samples of the chunk being encoded, reused from chunk to chunk: a fresh array per chunk is
 * garbage that V8 frees only after tens of megabytes have piled up in each thread.
 */
let scratch = new Float32Array(0);

function floatSamples(samples: Int16Array | Float32Array): Float32Array {
  if (samples instanceof Float32Array) return samples;
  if (scratch.length < samples.length) scratch = new Float32Array(Math.ceil(samples.length * 1.25));
  const out = scratch.subarray(0, samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = samples[i]! / 32768;
  return out;
}

/** PCM is handed to LAME in blocks so that its input buffer in WASM memory stays small. */
const BLOCK = 16384;

/**
 * Trims the chunk's silence, resamples it, appends the pause and encodes it as an MP3 stream of its own.
 * Each chunk is a fresh LAME stream so that chunks encode in parallel on the pool: a stream starts with
 * LAME's 1105-sample delay and ends padded to a whole frame, both silent, so at chunk joins they are just
 * part of the pause (which the caller shortens by ENCODER_JOIN_SAMPLES).
 */
export async function encodeChunk(task: EncodeTask): Promise<EncodedChunk> {
  encoder ??= createMp3Encoder();
  const lame = await encoder;
  const samples = floatSamples(task.samples);
  const range = speechRange(samples, task.sampleRate);
  const speech = resampleLinear(samples.subarray(range.start, range.end), task.sampleRate, task.outputRate);
  const words =
    task.words && placeWords(samples, task.words, { sampleRate: task.sampleRate, outputRate: task.outputRate, range, delay: ENCODER_DELAY_SAMPLES });
  const pauseSamples = Math.max(0, Math.round(task.pauseSamples));
  lame.configure({ sampleRate: task.outputRate, outputSampleRate: task.outputRate, channels: 1, bitrate: task.bitrateKbps });
  const parts: Uint8Array[] = [];
  // The encoder owns the returned bytes until its next call: copy each before continuing.
  for (let i = 0; i < speech.length; i += BLOCK) parts.push(lame.encode([speech.subarray(i, i + BLOCK)]).slice());
  const silence = new Float32Array(Math.min(BLOCK, pauseSamples));
  for (let left = pauseSamples; left > 0; left -= BLOCK) parts.push(lame.encode([silence.subarray(0, Math.min(BLOCK, left))]).slice());
  parts.push(lame.finalize().slice());
  const mp3 = concatBytes(parts);
  return { mp3, decodedSamples: countFrames(mp3).samples, speechSamples: speech.length, ...(words && { words }) };
}

/**
 * Samples of silence before the first sample given to LAME, in what a decoder outputs for the stream:
 * LAME's encoder delay (576) plus the decoder's filter-bank delay (529). Measured with mpg123 (the
 * decoder of the tests, test/helpers/audio.ts) on tone bursts at several places in a stream, and in a
 * stream following another: exactly 1105 each time. LAME writes no gapless tag here (no Xing/LAME
 * frame), so decoders play the delay rather than skip it, and word times include it.
 */
export const ENCODER_DELAY_SAMPLES = 1105;

/** LAME's start delay plus the mean end padding: silence a chunk join adds on its own. */
export const ENCODER_JOIN_SAMPLES = ENCODER_DELAY_SAMPLES + 288;

function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
