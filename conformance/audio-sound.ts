/**
 * The sound of a delivered MP3, for holding word timings to it (rule timings.match-audio): the file is
 * decoded with mpg123 compiled to WebAssembly (the `mpg123-decoder` package, pure JavaScript with its
 * WebAssembly inlined: no native build, a few hundred kilobytes), the decoder the reference's own
 * accuracy test uses, independent of any encoder. Only its level over time is kept: the RMS of every
 * 10 ms frame. The judgement (`timingsAgainstSound`) is a pure function of those levels and the words.
 */

/** The level of the audio every `FRAME_SECONDS`, and what decoding it said. */
export interface SoundLevels {
  /** RMS of each frame, full scale 1. */
  levels: Float64Array;
  /** Duration of the decoded samples, in seconds. */
  durationSeconds: number;
  /** Frames the decoder could not read. */
  errors: number;
}

export const FRAME_SECONDS = 0.01;

/**
 * What docs/api-rules.md#word-timings-and-captions promises of times against the sound, in seconds: the
 * first word starts, and the last word ends, within this of the sound; no sound lies further than this
 * outside every word; the decoded duration is `duration_seconds` within this.
 */
export const SOUND_TOLERANCE_SECONDS = 0.1;
/** Sound is a frame at or above −40 dBFS; the sound's end is the last frame at or above −60 dBFS (a word's last sound fades). */
const SOUND_LEVEL = 0.01;
const TAIL_LEVEL = 0.001;

/** Decodes an MP3 (the first channel) into levels. The decoder is loaded on first use, by the rule that needs it. */
export async function soundOfMp3(bytes: Uint8Array): Promise<SoundLevels> {
  const { MPEGDecoder } = await import('mpg123-decoder');
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const decoded = decoder.decode(bytes);
    const samples = decoded.channelData[0] ?? new Float32Array(0);
    const rate = decoded.sampleRate || 1;
    return { levels: levelsOf(samples, rate), durationSeconds: decoded.samplesDecoded / rate, errors: decoded.errors.length };
  } finally {
    decoder.free();
  }
}

function levelsOf(samples: Float32Array, sampleRate: number): Float64Array {
  const frame = Math.max(1, Math.round(sampleRate * FRAME_SECONDS));
  const out = new Float64Array(Math.ceil(samples.length / frame));
  for (let f = 0; f < out.length; f++) {
    const end = Math.min(samples.length, (f + 1) * frame);
    let sum = 0;
    for (let i = f * frame; i < end; i++) sum += (samples[i] ?? 0) ** 2;
    out[f] = Math.sqrt(sum / (end - f * frame));
  }
  return out;
}

export interface TimedSpan {
  word: string;
  start: number;
  end: number;
}

export type SoundVerdict = { silent: true } | { silent: false; problems: string[]; firstSound: number; soundEnd: number };

const s3 = (t: number) => `${(Math.round(t * 1000) / 1000).toString()} s`;

/**
 * Where word times depart from the sound, within `SOUND_TOLERANCE_SECONDS`: the first word starts with
 * the first sound, the last ends with the sound's end, no stretch of sound lies outside every word, every
 * word holds some sound, and the decoded duration is the file's. `silent` when the audio holds no sound
 * at all (a test deployment's silence), which leaves nothing to compare with.
 */
export function timingsAgainstSound(words: readonly TimedSpan[], durationSeconds: number, sound: SoundLevels): SoundVerdict {
  const T = SOUND_TOLERANCE_SECONDS;
  const { levels } = sound;
  const loud = (f: number) => (levels[f] ?? 0) >= SOUND_LEVEL;
  const first = levels.findIndex((_, f) => loud(f));
  if (first < 0) return { silent: true };
  let last = levels.length - 1;
  while (last > 0 && (levels[last] ?? 0) < TAIL_LEVEL) last--;
  const firstSound = first * FRAME_SECONDS;
  const soundEnd = (last + 1) * FRAME_SECONDS;
  const problems: string[] = [];
  if (Math.abs(sound.durationSeconds - durationSeconds) > T)
    problems.push(`the MP3 decodes to ${s3(sound.durationSeconds)}, the timings say duration_seconds ${durationSeconds}`);
  const head = words[0];
  const tail = words.at(-1);
  if (!head || !tail) return { silent: false, problems: [...problems, 'the audio holds sound but the timings no word'], firstSound, soundEnd };
  if (Math.abs(head.start - firstSound) > T)
    problems.push(`the first word (${JSON.stringify(head.word)}) starts at ${s3(head.start)}, the sound at ${s3(firstSound)}`);
  if (Math.abs(tail.end - soundEnd) > T) problems.push(`the last word (${JSON.stringify(tail.word)}) ends at ${s3(tail.end)}, the sound at ${s3(soundEnd)}`);
  // Stretches of sound further than T from every word.
  const covered = (t0: number, t1: number) => words.some((w) => w.start - T <= t0 && t1 <= w.end + T);
  const outside: string[] = [];
  for (let f = 0; f < levels.length; f++) {
    if (!loud(f) || covered(f * FRAME_SECONDS, (f + 1) * FRAME_SECONDS)) continue;
    let g = f;
    while (g + 1 < levels.length && loud(g + 1) && !covered((g + 1) * FRAME_SECONDS, (g + 2) * FRAME_SECONDS)) g++;
    outside.push(`${s3(f * FRAME_SECONDS)}–${s3((g + 1) * FRAME_SECONDS)}`);
    f = g;
  }
  if (outside.length > 0)
    problems.push(`sound outside every word (by more than ${T} s) at ${outside.slice(0, 4).join(', ')}${outside.length > 4 ? ', …' : ''}`);
  // Words placed where there is no sound.
  const mute = words.filter((w) => {
    for (let f = Math.floor(w.start / FRAME_SECONDS); f < Math.ceil(w.end / FRAME_SECONDS); f++) if (loud(f)) return false;
    return true;
  });
  if (mute.length > 0)
    problems.push(
      `words where the audio is silent: ${mute
        .slice(0, 4)
        .map((w) => `${JSON.stringify(w.word)} (${s3(w.start)}–${s3(w.end)})`)
        .join(', ')}`,
    );
  if (sound.errors > 0) problems.push(`the decoder could not read ${sound.errors} frame(s) of the MP3`);
  return { silent: false, problems, firstSound, soundEnd };
}
