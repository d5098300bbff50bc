import { describe, expect, it } from 'vitest';
import { buildCues, renderSrt, renderWebVtt, textWords, timingsProblems } from './captions.js';
import { TIMINGS_EXAMPLE_TEXT, wordTimingsFileExample } from './examples.js';
import { WordTimingsFile } from './timing-schemas.js';

describe('textWords', () => {
  it('finds the words of a text, with offsets in UTF-16 units and code points that cut the text back into them', () => {
    const text = 'I 😀 like 𝒳-rays, naïve café — 42 times! 今日は良い天気です。';
    const words = textWords(text, 'en');
    expect(words.map((w) => w.word)).toEqual(['I', '😀', 'like', '𝒳', 'rays', 'naïve', 'café', '42', 'times', '今日', 'は', '良い', '天気', 'です']);
    const codePoints = Array.from(text);
    for (const w of words) {
      expect(text.slice(w.utf16_start, w.utf16_end)).toBe(w.word);
      expect(codePoints.slice(w.text_start, w.text_end).join('')).toBe(w.word);
    }
    // After the emoji (two UTF-16 units, one code point) the two offsets part.
    expect(words[2]).toMatchObject({ utf16_start: 5, text_start: 4 });
  });

  it('segments a long text in windows without splitting or losing a word', () => {
    const sentence = 'The quick brown fox jumps over the lazy dog near 😀 the riverbank. ';
    const text = sentence.repeat(400);
    const words = textWords(text);
    expect(words).toHaveLength(13 * 400);
    for (const w of words) expect(text.slice(w.utf16_start, w.utf16_end)).toBe(w.word);
    const japanese = '今日は良い天気です。'.repeat(1200);
    const jw = textWords(japanese, 'ja');
    expect(jw.map((w) => w.word).slice(0, 5)).toEqual(['今日', 'は', '良い', '天気', 'です']);
    expect(jw).toHaveLength(5 * 1200);
  });
});

describe('captions', () => {
  it('the document example is consistent and valid', () => {
    expect(timingsProblems(TIMINGS_EXAMPLE_TEXT, wordTimingsFileExample)).toEqual([]);
    expect(WordTimingsFile.safeParse(wordTimingsFileExample).success).toBe(true);
    expect(wordTimingsFileExample.cues).toEqual([{ start: 0.05, end: 2.093, text: 'Hello from agent-tts.' }]);
  });

  it('groups words into cues at sentence ends and pauses, keeping punctuation', () => {
    const text = 'One two. Three,  four five!';
    const timed = textWords(text).map((w, i) => ({ ...w, start: i, end: i + (i === 3 ? 0.2 : 0.9) }));
    expect(buildCues(text, timed)).toEqual([
      { start: 0, end: 1.9, text: 'One two.' },
      { start: 2, end: 3.2, text: 'Three, four' },
      { start: 4, end: 4.9, text: 'five!' },
    ]);
  });

  it('writes WebVTT with escaped text and SRT with comma milliseconds', () => {
    const cues = [
      { start: 0.05, end: 1.5, text: 'a < b & c' },
      { start: 3661.2345, end: 3662, text: 'late' },
    ];
    expect(renderWebVtt({ cues })).toBe('WEBVTT\n\n1\n00:00:00.050 --> 00:00:01.500\na &lt; b &amp; c\n\n2\n01:01:01.235 --> 01:01:02.000\nlate\n');
    expect(renderSrt({ cues })).toBe('1\n00:00:00,050 --> 00:00:01,500\na < b & c\n\n2\n01:01:01,235 --> 01:01:02,000\nlate\n');
  });

  it('names what is wrong with a timings file', () => {
    const text = 'Hello brave world';
    const words = textWords(text).map((w, i) => ({ ...w, start: i, end: i + 0.5 }));
    expect(timingsProblems(text, { words, duration_seconds: 3 })).toEqual([]);
    expect(timingsProblems(text, { words: words.slice(0, 2), duration_seconds: 3 })).toContain('the text has 3 words; the timings have 2');
    const swapped = [words[0]!, { ...words[1]!, start: 0 }, words[2]!];
    expect(timingsProblems(text, { words: swapped, duration_seconds: 3 }).join('\n')).toMatch(/not before the next word/);
    expect(timingsProblems(text, { words: [words[0]!, { ...words[1]!, utf16_start: 7 }, words[2]!], duration_seconds: 3 }).join('\n')).toMatch(
      /utf16_start\/utf16_end cut "rave"/,
    );
    expect(timingsProblems(text, { words, duration_seconds: 2 }).join('\n')).toMatch(/after the audio's end/);
  });
});
