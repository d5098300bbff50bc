import { readFile } from 'node:fs/promises';
import { MPEGDecoder } from 'mpg123-decoder';

/**
 * The MP3 as a player hears it (decoded by mpg123, an independent decoder) and where its sound starts
 * and stops: the same definitions as the accuracy test's (test/helpers/audio.ts,
 * src/server/synth/word-timings.test.ts).
 */
export interface Decoded {
  samples: Float32Array;
  sampleRate: number;
}

export async function decodeMp3(path: string): Promise<Decoded> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const decoded = decoder.decode(new Uint8Array(await readFile(path)));
    if (decoded.errors.length) throw new Error(`${path}: ${decoded.errors.length} MP3 decoding errors`);
    return { samples: decoded.channelData[0] ?? new Float32Array(0), sampleRate: decoded.sampleRate };
  } finally {
    decoder.free();
  }
}

const FRAME_SECONDS = 0.005;
/** −40 dBFS: above the decaying tails that fill short pauses at speed 1.5. */
const ONSET_RMS = 0.01;
const MIN_QUIET_SECONDS = 0.03;
/** −60 dBFS: the final pause decodes to silence far below; a last "z" fades between −40 and −48 dBFS. */
const END_RMS = 0.001;

function frameRms(audio: Decoded): Float64Array {
  const frame = Math.round(audio.sampleRate * FRAME_SECONDS);
  const out = new Float64Array(Math.floor(audio.samples.length / frame));
  for (let f = 0; f < out.length; f++) {
    let sum = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) sum += audio.samples[i]! ** 2;
    out[f] = Math.sqrt(sum / frame);
  }
  return out;
}

/** Seconds where sound (5 ms RMS ≥ −40 dBFS) begins after at least 30 ms below it; in order. */
export function energyOnsets(audio: Decoded): number[] {
  const rms = frameRms(audio);
  const seconds = Math.round(audio.sampleRate * FRAME_SECONDS) / audio.sampleRate;
  const minQuiet = Math.round(MIN_QUIET_SECONDS / seconds);
  const onsets: number[] = [];
  let quiet = minQuiet;
  for (let f = 0; f < rms.length; f++) {
    if (rms[f]! >= ONSET_RMS) {
      if (quiet >= minQuiet) onsets.push(f * seconds);
      quiet = 0;
    } else quiet++;
  }
  return onsets;
}

/** Seconds where the last 5 ms at or above −60 dBFS ends. */
export function soundEnd(audio: Decoded): number {
  const rms = frameRms(audio);
  let last = rms.length - 1;
  while (last >= 0 && rms[last]! < END_RMS) last--;
  return ((last + 1) * Math.round(audio.sampleRate * FRAME_SECONDS)) / audio.sampleRate;
}

/** The first onset at or after `t` (binary search); undefined past the last. */
export function onsetAtOrAfter(onsets: readonly number[], t: number): number | undefined {
  let low = 0;
  let high = onsets.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (onsets[mid]! < t) low = mid + 1;
    else high = mid;
  }
  return onsets[low];
}
