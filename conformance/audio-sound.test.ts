import { describe, expect, it } from 'vitest';
import { FRAME_SECONDS, type SoundLevels, soundOfMp3, timingsAgainstSound } from './audio-sound.js';

/** Levels of 10 ms frames: speech (0.1) where `spans` say, near silence (0.0005) elsewhere. */
function levels(durationSeconds: number, spans: [number, number][]): SoundLevels {
  const out = new Float64Array(Math.round(durationSeconds / FRAME_SECONDS));
  for (let f = 0; f < out.length; f++) {
    const t = (f + 0.5) * FRAME_SECONDS;
    out[f] = spans.some(([a, b]) => t >= a && t < b) ? 0.1 : 0.0005;
  }
  return { levels: out, durationSeconds, errors: 0 };
}

// Two sentences: "One two three." then a pause, "Four five."
const SOUND = levels(3, [
  [0.05, 1.2],
  [1.6, 2.7],
]);
const WORDS = [
  { word: 'One', start: 0.05, end: 0.4 },
  { word: 'two', start: 0.4, end: 0.8 },
  { word: 'three', start: 0.8, end: 1.2 },
  { word: 'Four', start: 1.6, end: 2.1 },
  { word: 'five', start: 2.1, end: 2.7 },
];
const shifted = (by: number, scale = 1) => WORDS.map((w) => ({ ...w, start: Math.max(0, w.start * scale + by), end: w.end * scale + by }));

describe('word times against the sound', () => {
  it('passes times that match the sound, within the tolerance', () => {
    expect(timingsAgainstSound(WORDS, 3, SOUND)).toEqual({ silent: false, problems: [], firstSound: 0.05, soundEnd: 2.7 });
    expect(timingsAgainstSound(shifted(0.06), 3, SOUND)).toMatchObject({ problems: [] });
  });

  it('finds times that are early, late or for another speed, words in silence, sound outside the words and a duration that is not the audio’s', () => {
    const early = timingsAgainstSound(shifted(-0.25), 3, SOUND);
    expect(early.silent ? [] : early.problems.join('\n')).toMatch(/last word \("five"\) ends at 2.45 s, the sound at 2.7 s/);
    const late = timingsAgainstSound(shifted(0.3), 3, SOUND);
    expect(late.silent ? [] : late.problems.join('\n')).toMatch(/first word \("One"\) starts at 0.35 s[\s\S]*sound outside every word/);
    const fast = timingsAgainstSound(shifted(0, 0.8), 3, SOUND);
    expect(fast.silent ? [] : fast.problems.join('\n')).toMatch(/sound outside every word \(by more than 0.1 s\) at 1.06 s–1.19 s, 2.26 s–2.7 s/);
    const moved = WORDS.map((w) => (w.word === 'three' ? { ...w, start: 1.25, end: 1.55 } : w));
    const mute = timingsAgainstSound(moved, 3, SOUND);
    expect(mute.silent ? [] : mute.problems.join('\n')).toMatch(/words where the audio is silent: "three" \(1.25 s–1.55 s\)/);
    const long = timingsAgainstSound(WORDS, 3.5, SOUND);
    expect(long.silent ? [] : long.problems).toEqual(['the MP3 decodes to 3 s, the timings say duration_seconds 3.5']);
  });

  it('leaves silent audio (a test deployment’s) uncompared', () => {
    expect(timingsAgainstSound(WORDS, 3, levels(3, []))).toEqual({ silent: true });
  });

  it('decodes an MP3 into the level of every 10 ms', async () => {
    // 40 frames of MPEG-1 Layer III, 128 kbit/s at 44.1 kHz, whose side information is all zero: silence.
    const frame = Buffer.alloc(417);
    frame.writeUInt32BE(0xfffb9064, 0);
    const sound = await soundOfMp3(new Uint8Array(Buffer.concat(Array.from({ length: 40 }, () => frame))));
    expect(sound.errors).toBe(0);
    expect(sound.durationSeconds).toBeCloseTo((40 * 1152) / 44_100, 3);
    expect(sound.levels.length).toBe(Math.ceil(sound.durationSeconds / FRAME_SECONDS));
    expect(Math.max(...sound.levels)).toBe(0);
    expect(timingsAgainstSound(WORDS, sound.durationSeconds, sound)).toEqual({ silent: true });
  });
});
