import type { EspeakEvent } from '@echogarden/espeak-ng-emscripten';
import { describe, expect, it } from 'vitest';
import { wordMarks } from './espeak-events.js';
import { espeakSynthesize } from './espeak-wasm.js';

const word = (text_position: number, word_length: number, audio_position: number): EspeakEvent => ({
  type: 'word',
  text_position,
  word_length,
  audio_position,
});

describe('wordMarks', () => {
  it('maps 1-based code-point positions of the escaped text to UTF-16 offsets of the original', () => {
    // Escaped for eSpeak: "Tom &amp; 𝒳 &lt;b&gt; ok": "&amp;" is 5 code points, 𝒳 one (two UTF-16 units).
    const text = 'Tom & 𝒳 <b> ok';
    const marks = wordMarks([word(1, 3, 0), word(9, 1, 300), word(11, 1, 500), word(17, 1, 900), word(23, 2, 1200)], text);
    expect(marks).toEqual([
      { offset: 0, ms: 0 },
      { offset: text.indexOf('&'), ms: 300 },
      { offset: text.indexOf('𝒳'), ms: 500 },
      { offset: text.indexOf('b'), ms: 900 },
      { offset: text.indexOf('ok'), ms: 1200 },
    ]);
  });

  it('spreads several events at one position over the characters they cover, in order', () => {
    // eSpeak reads 日本語 kanji by kanji: several word events, all at the position of the first.
    // (The events eSpeak sends for this text, as measured.)
    const times = [0, 809, 1621, 2423, 2650, 3466];
    const marks = wordMarks([...times.map((ms) => word(1, 5, ms)), word(7, 5, 4043)], '日本語です。こんにちは。');
    expect(marks.map((m) => m.offset)).toEqual([0, 0, 1, 2, 3, 4, 6]);
    expect(marks.map((m) => m.ms)).toEqual([...times, 4043]);
  });

  it('keeps positions past the end inside the text', () => {
    expect(wordMarks([word(40, 3, 10)], 'short')).toEqual([{ offset: 5, ms: 10 }]);
  });
});

describe('espeakSynthesize with word events', () => {
  it('reports a mark at each word of the original text, in time order, only when asked', async () => {
    const settings = { name: 'en-us', rate: 175, pitch: 50, range: 50 };
    const text = 'Salt & pepper, < 😀 > then 𝒳 again.';
    const withEvents = await espeakSynthesize(text, settings, { wordEvents: true });
    const offsets = withEvents.marks!.map((m) => m.offset);
    // eSpeak says "and" for & (at its offset) and nothing for < and >.
    for (const w of ['Salt', '&', 'pepper', '😀', 'then', '𝒳', 'again']) expect(offsets, w).toContain(text.indexOf(w));
    const times = withEvents.marks!.map((m) => m.ms);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.at(-1)! / 1000).toBeLessThan(withEvents.samples.length / withEvents.sampleRate);
    const plain = await espeakSynthesize(text, settings);
    expect(plain.marks).toBeUndefined();
    expect(plain.samples.length).toBeGreaterThan(withEvents.samples.length * 0.9);
  });
});
