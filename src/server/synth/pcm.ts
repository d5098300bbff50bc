/** Where the engine says a word starts: an offset into the chunk's text and a time in its PCM. */
export interface WordMark {
  /** UTF-16 offset into the text the engine was given. */
  offset: number;
  /** Milliseconds from the start of the PCM. */
  ms: number;
}

/** Mono PCM as engines return it: 16-bit integers (eSpeak, `pcm` from servers) or floats in −1..1. */
export interface PcmAudio {
  samples: Int16Array | Float32Array;
  sampleRate: number;
  /** The engine's word events, when they were asked for and it has them (eSpeak does). */
  marks?: WordMark[];
}

/** Linear interpolation: enough for speech moving between 24 and 22.05 kHz, where aliasing is inaudible. */
export function resampleLinear(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  if (fromRate === toRate || input.length === 0) return input;
  const outLength = Math.max(1, Math.round((input.length * toRate) / fromRate));
  const out = new Float32Array(outLength);
  const step = fromRate / toRate;
  const last = input.length - 1;
  for (let i = 0; i < outLength; i++) {
    const position = i * step;
    const left = Math.min(last, Math.floor(position));
    const right = Math.min(last, left + 1);
    const weight = position - left;
    out[i] = input[left]! * (1 - weight) + input[right]! * weight;
  }
  return out;
}

/** About −48 dBFS: below what a listener hears as speech, above eSpeak's and codecs' noise floor. */
export const SILENCE_THRESHOLD = 0.004;
/** Kept around the first and last loud sample so that soft onsets and releases are not clipped. */
const EDGE_MARGIN_SECONDS = 0.02;

/** The part of a chunk's PCM that is kept, in its samples; all four equal when it is silent throughout. */
export interface SpeechRange {
  /** First sample kept (the first loud one, less a margin). */
  start: number;
  /** One past the last sample kept. */
  end: number;
  /** First sample at or above the silence threshold. */
  loudStart: number;
  /** One past the last sample at or above it. */
  loudEnd: number;
}

/**
 * Where the speech of a chunk is: leading and trailing silence are cut so that the pipeline alone decides
 * the pauses between chunks (engines end chunks with pauses of their own, of varying length).
 */
export function speechRange(samples: Float32Array, sampleRate: number): SpeechRange {
  let first = 0;
  while (first < samples.length && Math.abs(samples[first]!) < SILENCE_THRESHOLD) first++;
  if (first === samples.length) return { start: 0, end: 0, loudStart: 0, loudEnd: 0 };
  let last = samples.length - 1;
  while (last > first && Math.abs(samples[last]!) < SILENCE_THRESHOLD) last--;
  const margin = Math.round(EDGE_MARGIN_SECONDS * sampleRate);
  return { start: Math.max(0, first - margin), end: Math.min(samples.length, last + 1 + margin), loudStart: first, loudEnd: last + 1 };
}

/** The samples of speechRange: the chunk without its leading and trailing silence. */
export function trimSilence(samples: Float32Array, sampleRate: number): Float32Array {
  const range = speechRange(samples, sampleRate);
  return samples.subarray(range.start, range.end);
}
