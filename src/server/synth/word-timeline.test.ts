import { describe, expect, it } from 'vitest';
import { timingsProblems } from '../../contract/captions.js';
import { chunkText } from './chunker.js';
import { WordTimeline } from './word-timeline.js';

const RATE = 1000;

describe('WordTimeline', () => {
  const text = '  First chunk here.\n\nSecond one, 😀 𝒳. ';
  const chunks = chunkText(text, { targetChars: 10, maxChars: 20 });

  it('gives each chunk the words that start in it, in offsets of the chunk’s text', () => {
    const timeline = new WordTimeline(text, 'en', chunks, RATE);
    expect(chunks).toHaveLength(2);
    const first = timeline.wordsOf(chunks[0]!);
    const second = timeline.wordsOf(chunks[1]!);
    expect(first.starts.map((s, i) => chunks[0]!.text.slice(s, first.ends[i]))).toEqual(['First', 'chunk', 'here']);
    expect(second.starts.map((s, i) => chunks[1]!.text.slice(s, second.ends[i]))).toEqual(['Second', 'one', '😀', '𝒳']);
    expect(second.textLength).toBe(chunks[1]!.text.length);
  });

  it('adds the samples of the chunks before, keeps starts strictly increasing and ends in order', () => {
    const timeline = new WordTimeline(text, 'en', chunks, RATE);
    timeline.place(chunks[0]!, { starts: [100, 500, 500], ends: [400, 500, 900] }, 0);
    // The second chunk's stream follows 1000 samples of the first.
    timeline.place(chunks[1]!, { starts: [50, 300, 600, 600], ends: [250, 700, 600, 5000] }, 1000);
    const words = timeline.finish(2.5);
    expect(words.map((w) => [w.word, w.start, w.end])).toEqual([
      ['First', 0.1, 0.4],
      ['chunk', 0.5, 0.501],
      ['here', 0.501, 0.9],
      ['Second', 1.05, 1.25],
      ['one', 1.3, 1.6],
      ['😀', 1.6, 1.601],
      ['𝒳', 1.601, 2.5],
    ]);
    expect(timingsProblems(text, { words, duration_seconds: 2.5 }, 'en')).toEqual([]);
    expect(words[6]).toMatchObject({ text_start: 35, text_end: 36, utf16_start: 36, utf16_end: 38 });
    expect(text.indexOf('𝒳')).toBe(36);
  });

  it('times exactly the words of textWords on a long text, whatever the chunks', () => {
    const sentence = 'Salt & pepper, 😀 then 𝒳 again; 日本語です。Привет, мир! ';
    const long = sentence.repeat(600); // 30,000 characters: several chunks and segmentation windows
    const longChunks = chunkText(long, { locale: 'en' });
    const timeline = new WordTimeline(long, 'en', longChunks, RATE);
    let offset = 0;
    for (const chunk of longChunks) {
      const { starts } = timeline.wordsOf(chunk);
      timeline.place(chunk, { starts: starts.map((s) => s * 2), ends: starts.map((s) => s * 2 + 1) }, offset);
      offset += chunk.text.length * 2 + 100;
    }
    const words = timeline.finish(offset / RATE);
    expect(longChunks.length).toBeGreaterThan(50);
    expect(timingsProblems(long, { words, duration_seconds: offset / RATE }, 'en')).toEqual([]);
  });

  it('refuses chunks out of order or with the wrong number of words', () => {
    const timeline = new WordTimeline(text, 'en', chunks, RATE);
    expect(() => timeline.place(chunks[1]!, { starts: [1, 2, 3, 4], ends: [1, 2, 3, 4] }, 0)).toThrow(/placed out of order/);
    expect(() => timeline.place(chunks[0]!, { starts: [1], ends: [2] }, 0)).toThrow(/3 words, the encoder placed 1/);
    expect(() => timeline.finish(1)).toThrow(/7 of 7 words were never placed/);
  });
});
