/**
 * Helpers for the synthesis tests: decode MP3 files with an independent decoder (mpg123) and measure
 * what a listener would notice (level, pitch, timbre, loudness over time).
 */
import { readFile } from 'node:fs/promises';
import { MPEGDecoder } from 'mpg123-decoder';

export interface DecodedAudio {
  samples: Float32Array;
  sampleRate: number;
  durationSeconds: number;
  errors: number;
}

export async function decodeMp3File(path: string): Promise<DecodedAudio> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const decoded = decoder.decode(new Uint8Array(await readFile(path)));
    const samples = decoded.channelData[0] ?? new Float32Array(0);
    return { samples, sampleRate: decoded.sampleRate, durationSeconds: decoded.samplesDecoded / decoded.sampleRate, errors: decoded.errors.length };
  } finally {
    decoder.free();
  }
}

export function rms(samples: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! ** 2;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/** Loudness every `frameSeconds`: the shape of the speech over time. */
export function envelope(samples: Float32Array, sampleRate: number, frameSeconds = 0.01): Float64Array {
  const frame = Math.round(sampleRate * frameSeconds);
  const out = new Float64Array(Math.floor(samples.length / frame));
  for (let f = 0; f < out.length; f++) {
    let sum = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) sum += samples[i]! ** 2;
    out[f] = Math.sqrt(sum / frame);
  }
  return out;
}

/** Pearson correlation of two series over their common length. */
export function correlation(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    ab += (a[i]! - ma) * (b[i]! - mb);
    aa += (a[i]! - ma) ** 2;
    bb += (b[i]! - mb) ** 2;
  }
  return ab / Math.sqrt(aa * bb);
}

export interface VoiceFeatures {
  /** Median fundamental frequency of voiced frames, Hz. */
  pitchHz: number;
  /** Long-term average spectrum in log-spaced bands (dB, mean removed): the timbre. */
  spectrum: number[];
}

/** In-place radix-2 FFT; `re.length` must be a power of two. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const step = (-2 * Math.PI) / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < size / 2; k++) {
        const wr = Math.cos(step * k);
        const wi = Math.sin(step * k);
        const a = start + k;
        const b = a + size / 2;
        const tr = re[b]! * wr - im[b]! * wi;
        const ti = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a]! += tr;
        im[a]! += ti;
      }
    }
  }
}

const FRAME = 512;
const BANDS = 24;

export function voiceFeatures(samples: Float32Array, sampleRate: number): VoiceFeatures {
  const edges = Array.from({ length: BANDS + 1 }, (_, i) => 80 * (8000 / 80) ** (i / BANDS));
  const window = Float64Array.from({ length: FRAME }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / FRAME));
  const power = new Float64Array(BANDS);
  const pitches: number[] = [];
  const re = new Float64Array(2 * FRAME);
  const im = new Float64Array(2 * FRAME);
  let frames = 0;
  for (let start = 0; start + FRAME <= samples.length; start += FRAME) {
    const x = samples.subarray(start, start + FRAME);
    let energy = 0;
    for (let i = 0; i < FRAME; i++) energy += x[i]! ** 2;
    if (energy / FRAME < 1e-4) continue; // pauses say nothing about the voice
    frames++;

    // Timbre: windowed power spectrum, averaged per band.
    re.fill(0);
    im.fill(0);
    for (let i = 0; i < FRAME; i++) re[i] = x[i]! * window[i]!;
    fft(re, im);
    for (let b = 0; b < BANDS; b++) {
      const k0 = Math.ceil((edges[b]! * 2 * FRAME) / sampleRate);
      const k1 = Math.max(k0, Math.floor((edges[b + 1]! * 2 * FRAME) / sampleRate));
      let p = 0;
      for (let k = k0; k <= k1; k++) p += re[k]! ** 2 + im[k]! ** 2;
      power[b]! += p / (k1 - k0 + 1);
    }

    // Pitch: the strongest autocorrelation lag between 60 and 400 Hz (autocorrelation = IFFT of power).
    re.fill(0);
    im.fill(0);
    for (let i = 0; i < FRAME; i++) re[i] = x[i]!;
    fft(re, im);
    for (let k = 0; k < 2 * FRAME; k++) {
      re[k] = re[k]! ** 2 + im[k]! ** 2;
      im[k] = 0;
    }
    fft(re, im); // the power spectrum is real and even: a forward transform is the inverse up to scale
    const zeroLag = re[0]!;
    let best = 0;
    let bestLag = 0;
    for (let lag = Math.floor(sampleRate / 400); lag <= Math.floor(sampleRate / 60); lag++) {
      if (re[lag]! > best) {
        best = re[lag]!;
        bestLag = lag;
      }
    }
    if (best > 0.3 * zeroLag) pitches.push(sampleRate / bestLag);
  }
  const db = Array.from(power, (p) => 10 * Math.log10(p / Math.max(1, frames) + 1e-12));
  const mean = db.reduce((s, v) => s + v, 0) / BANDS;
  pitches.sort((a, b) => a - b);
  return { pitchHz: pitches[Math.floor(pitches.length / 2)] ?? 0, spectrum: db.map((v) => v - mean) };
}

/** Root-mean-square difference of two timbres, in dB. */
export function spectralDistance(a: VoiceFeatures, b: VoiceFeatures): number {
  return Math.sqrt(a.spectrum.reduce((s, v, i) => s + (v - b.spectrum[i]!) ** 2, 0) / a.spectrum.length);
}

/** Loudness (RMS) every 5 ms by default, in a form the onset analysis below reads. */
function frames(samples: Float32Array, sampleRate: number, frameSeconds: number): { rms: Float64Array; seconds: number } {
  return { rms: envelope(samples, sampleRate, frameSeconds), seconds: Math.round(sampleRate * frameSeconds) / sampleRate };
}

export interface OnsetOptions {
  /** Frame RMS at or above which there is sound; default 0.01 (−40 dBFS). */
  threshold?: number;
  /** Quiet needed before a frame counts as an onset; default 0.03 s. */
  minQuietSeconds?: number;
  frameSeconds?: number;
}

/**
 * Times (seconds) where sound begins after quiet: frames whose RMS reaches the threshold after at least
 * `minQuietSeconds` of frames below it (the file's first sound counts).
 */
export function energyOnsets(samples: Float32Array, sampleRate: number, options: OnsetOptions = {}): number[] {
  const { threshold = 0.01, minQuietSeconds = 0.03, frameSeconds = 0.005 } = options;
  const { rms, seconds } = frames(samples, sampleRate, frameSeconds);
  const minQuiet = Math.round(minQuietSeconds / seconds);
  const onsets: number[] = [];
  let quiet = minQuiet;
  for (let f = 0; f < rms.length; f++) {
    if (rms[f]! >= threshold) {
      if (quiet >= minQuiet) onsets.push(f * seconds);
      quiet = 0;
    } else quiet++;
  }
  return onsets;
}

/**
 * Time (seconds) where the last frame at or above the threshold (default 0.001, −60 dBFS: silence
 * decodes far below it) ends: where the sound stops.
 */
export function soundEnd(samples: Float32Array, sampleRate: number, options: Pick<OnsetOptions, 'threshold' | 'frameSeconds'> = {}): number {
  const { threshold = 0.001, frameSeconds = 0.005 } = options;
  const { rms, seconds } = frames(samples, sampleRate, frameSeconds);
  let last = rms.length - 1;
  while (last >= 0 && rms[last]! < threshold) last--;
  return (last + 1) * seconds;
}
