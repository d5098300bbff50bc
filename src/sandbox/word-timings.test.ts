import { MPEGDecoder } from 'mpg123-decoder';
import { describe, expect, it } from 'vitest';
import { textWords, timingsProblems } from '../contract/captions.js';
import { InstantSynthesizer } from './synthesizer.js';

const synth = new InstantSynthesizer(10, 4);

const synthesize = (text: string, language: string, speed: number, timestamps: 'word' | undefined, write: (b: Uint8Array) => void) =>
  synth.synthesize({ text, voice: 'af_heart', language, speed, timestamps }, { write: async (b) => write(b) });

/** A job's synthesis, and its MP3 decoded. */
async function run(text: string, language: string, speed = 1, timestamps?: 'word') {
  const parts: Uint8Array[] = [];
  const result = await synthesize(text, language, speed, timestamps, (b) => parts.push(b));
  const decoder = new MPEGDecoder();
  await decoder.ready;
  const decoded = decoder.decode(Buffer.concat(parts));
  decoder.free();
  return { result, decodedSeconds: decoded.samplesDecoded / decoded.sampleRate, errors: decoded.errors };
}

const TEXTS: [string, string, string][] = [
  ['en', 'English with sentences and a marker', 'Hello from agent-tts. It was a bright cold day in April; the clocks struck thirteen! sandbox:inline'],
  ['fr', 'French with elisions', "L'été dernier, nous sommes allés à Paris. C'était magnifique !"],
  ['ru', 'Russian', 'Привет, мир. Как дела сегодня?'],
  ['ja', 'Japanese without spaces', '今日はいい天気ですね。明日も晴れるでしょう。'],
  ['en', 'emoji and text outside the BMP', 'Rocket 🚀 launch 𝒜𝒷𝒸 at 10:30, 3.14 times… ok 👍🏽 done.'],
];

describe('sandbox synthesizer: word timings consistent with its audio', () => {
  for (const [language, name, text] of TEXTS) {
    it(`${name}: every word of textWords once, within the MP3's duration, with no problem timingsProblems finds`, async () => {
      for (const speed of [0.5, 1, 1.5]) {
        const { result, decodedSeconds, errors } = await run(text, language, speed, 'word');
        expect(errors).toEqual([]);
        expect(Math.abs(decodedSeconds - result.durationSeconds)).toBeLessThan(0.001);
        const words = result.words!;
        expect(words.map(({ word, text_start, text_end, utf16_start, utf16_end }) => ({ word, text_start, text_end, utf16_start, utf16_end }))).toEqual(
          textWords(text, language),
        );
        expect(timingsProblems(text, { words, duration_seconds: result.durationSeconds }, language, 0)).toEqual([]);
        expect(words.at(-1)!.end).toBeLessThanOrEqual(result.durationSeconds);
        expect(words[0]!.start).toBe(0);
      }
    });
  }

  it('places words as the audio was made: each lasts as long as its characters, and a sentence end adds its pause', async () => {
    const text = 'Aaaa bbbbbbbb. Cc dddd.';
    const { result } = await run(text, 'en', 1, 'word');
    const [a, b, c, d] = result.words!;
    const perChar = (a!.end - a!.start) / 4;
    expect(perChar).toBeGreaterThan(0.02);
    expect(b!.end - b!.start).toBeCloseTo(8 * perChar, 2);
    expect(d!.end - d!.start).toBeCloseTo(4 * perChar, 2);
    // One character of space between words of a sentence; the full stop, the space and a pause across its end.
    expect(b!.start - a!.end).toBeCloseTo(perChar, 2);
    expect(c!.start - b!.end).toBeGreaterThan(2 * perChar + 0.3);
    // After the last word: its full stop and the pause of its sentence's end.
    expect(result.durationSeconds - d!.end).toBeCloseTo(c!.start - b!.end - perChar, 2);
    // Without a sentence end, the estimate's one pause follows the last word all the same.
    const { result: open } = await run('Aaaa bbbb', 'en', 1, 'word');
    expect(open.durationSeconds - open.words![1]!.end).toBeGreaterThan(0.3);
  });

  it('returns no words unless asked', async () => {
    const { result } = await run('Hello there. sandbox:inline', 'en');
    expect(result.words).toBeUndefined();
  });

  it('a long text (200,000 characters, almost three hours of audio) in a few seconds, still consistent', async () => {
    const text = 'The quick brown fox jumps over the lazy dog, again and again. '.repeat(3300);
    const started = performance.now();
    const result = await synthesize(text, 'en', 1, 'word', () => {});
    expect(performance.now() - started).toBeLessThan(5000);
    expect(result.words!.length).toBe(3300 * 12);
    expect(timingsProblems(text, { words: result.words!, duration_seconds: result.durationSeconds }, 'en', 0)).toEqual([]);
  });
});
