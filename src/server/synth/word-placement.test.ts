import { describe, expect, it } from 'vitest';
import { speechRange } from './pcm.js';
import { type ChunkWords, placeWords } from './word-placement.js';

const RATE = 1000; // one sample per millisecond keeps the arithmetic readable

/** Silence with tone bursts at [start, end) sample ranges. */
function bursts(length: number, ranges: [number, number][]): Float32Array {
  const x = new Float32Array(length);
  for (const [from, to] of ranges) for (let i = from; i < to; i++) x[i] = 0.3 * (i % 2 ? 1 : -1);
  return x;
}

function place(samples: Float32Array, words: ChunkWords, outputRate = RATE, delay = 0) {
  const range = speechRange(samples, RATE);
  return { range, ...placeWords(samples, words, { sampleRate: RATE, outputRate, range, delay }) };
}

// "aa, bb, cc": three words, each spoken as a burst after a pause.
const words = { starts: [0, 4, 8], ends: [2, 6, 10], textLength: 10 };

describe('placeWords', () => {
  it('starts each word at its first sound after the engine’s event and ends it before the pause', () => {
    // Bursts 100–300, 500–700, 900–1000; eSpeak-like events at the start of the silence before each word.
    const samples = bursts(1200, [
      [100, 300],
      [500, 700],
      [900, 1000],
    ]);
    const marks = [
      { offset: 0, ms: 0 },
      { offset: 4, ms: 450 },
      { offset: 8, ms: 850 },
    ];
    const { range, starts, ends } = place(samples, { ...words, marks });
    expect(range).toEqual({ start: 80, end: 1020, loudStart: 100, loudEnd: 1000 });
    // In the stream: relative to what was kept (from sample 80).
    expect(starts).toEqual([20, 420, 820]);
    expect(ends).toEqual([220, 620, 920]);
  });

  it('adds the encoder delay and scales to the output rate', () => {
    const samples = bursts(1200, [
      [100, 300],
      [500, 700],
    ]);
    const marks = [
      { offset: 0, ms: 0 },
      { offset: 4, ms: 500 },
    ];
    const { starts, ends } = place(samples, { starts: [0, 4], ends: [2, 6], textLength: 6, marks }, 2 * RATE, 1105);
    expect(starts).toEqual([1105 + 40, 1105 + 840]);
    expect(ends).toEqual([1105 + 440, 1105 + 1240]);
  });

  it('never moves a start as far as the next word’s event, nor past the end of the sound', () => {
    // The second word's event falls in silence that lasts until after the third word's event.
    const samples = bursts(1000, [
      [0, 200],
      [600, 800],
    ]);
    const marks = [
      { offset: 0, ms: 0 },
      { offset: 4, ms: 300 },
      { offset: 8, ms: 400 },
    ];
    const { starts, ends } = place(samples, { ...words, marks });
    expect(starts).toEqual([0, 300, 600]);
    // The second word has no sound of its own before the third: it lasts until the third starts.
    expect(ends).toEqual([200, 600, 800]);
  });

  it('uses the earliest event inside a word and interpolates words without one by character offset', () => {
    const samples = bursts(1000, [[0, 1000]]);
    const marks = [
      { offset: 1, ms: 100 }, // inside word 0, later than the next one
      { offset: 0, ms: 0 },
      { offset: 9, ms: 800 },
      { offset: 3, ms: 500 }, // between words: belongs to none
    ];
    const { starts } = place(samples, { ...words, marks });
    expect(starts).toEqual([0, 400, 800]);
  });

  it('spreads the sound over the words by character count when the engine has no events', () => {
    const samples = bursts(1300, [[100, 1100]]);
    const { starts, ends } = place(samples, words);
    // Speech from 100 to 1100 over 10 characters: 100 samples a character, from the kept start (80).
    expect(starts).toEqual([20, 420, 820]);
    expect(ends).toEqual([420, 820, 1020]);
  });

  it('keeps starts in order when events are not', () => {
    const samples = bursts(1000, [[0, 1000]]);
    const marks = [
      { offset: 0, ms: 0 },
      { offset: 4, ms: 600 },
      { offset: 8, ms: 300 },
    ];
    const { starts, ends } = place(samples, { ...words, marks });
    expect(starts).toEqual([0, 600, 600]);
    expect(ends[1]).toBe(600);
  });

  it('copes with a chunk that is silent throughout', () => {
    const { starts, ends } = place(new Float32Array(500), { ...words, marks: [{ offset: 0, ms: 0 }] }, RATE, 1105);
    expect(starts).toEqual([1105, 1105, 1105]);
    expect(ends).toEqual([1105, 1105, 1105]);
  });
});
