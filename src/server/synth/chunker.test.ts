import { describe, expect, it } from 'vitest';
import { chunkText, sentences } from './chunker.js';

const texts = (text: string, locale?: string) => [...sentences(text, locale)].map((s) => s.text);

describe('sentences', () => {
  it('splits at sentence ends and line breaks, keeping every character', () => {
    const text = 'Hello Dr. Smith. How are you?\nFine, thanks\n\nNext paragraph!';
    const parts = texts(text, 'en');
    expect(parts.join('')).toBe(text);
    expect(parts.map((p) => p.trim())).toContain('How are you?');
    expect(parts.map((p) => p.trim())).toContain('Fine, thanks');
  });

  it('segments long texts in windows without losing or reordering text', () => {
    const text = Array.from({ length: 6000 }, (_, i) => `Sentence ${i} is here.`).join(' ');
    const parts = texts(text, 'en');
    expect(parts.join('')).toBe(text);
    expect(parts.length).toBe(6000);
    expect(parts[4321]!.trim()).toBe('Sentence 4321 is here.');
  });

  it('uses the rules of the language (Japanese full stops)', () => {
    expect(texts('こんにちは。元気ですか？はい、元気です', 'ja')).toEqual(['こんにちは。', '元気ですか？', 'はい、元気です']);
  });

  it('falls back to the default rules for a tag it cannot use', () => {
    expect(texts('One. Two.', 'not a tag')).toEqual(['One. ', 'Two.']);
  });
});

describe('chunkText', () => {
  it('merges short sentences up to the target size', () => {
    const text = Array.from({ length: 100 }, (_, i) => `This is sentence number ${i}.`).join(' ');
    const chunks = chunkText(text, { targetChars: 200, maxChars: 300 });
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(200);
      expect(chunk.endsSentence).toBe(true);
    }
    expect(chunks.map((c) => c.text).join(' ')).toBe(text);
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
  });

  it('accounts for every character of the text exactly once', () => {
    const text = `   Leading space. ${'Word '.repeat(500)}\n\n  trailing  `;
    const chunks = chunkText(text);
    expect(chunks.reduce((sum, c) => sum + c.length, 0)).toBe(text.length);
  });

  it('cuts an unpunctuated run at spaces, within the hard cap', () => {
    const words = Array.from({ length: 2000 }, (_, i) => `w${i}`);
    const chunks = chunkText(words.join(' '), { targetChars: 400, maxChars: 600 });
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(600);
    expect(chunks.slice(0, -1).every((c) => !c.endsSentence)).toBe(true);
    // Cut at spaces: no word is split, none lost, order kept.
    expect(chunks.flatMap((c) => c.text.split(/\s+/))).toEqual(words);
  });

  it('prefers a clause mark to a space when cutting', () => {
    const clause = 'alpha beta gamma delta epsilon zeta eta theta, ';
    const chunks = chunkText(clause.repeat(40), { targetChars: 300, maxChars: 400 });
    for (const chunk of chunks.slice(0, -1)) expect(chunk.text.endsWith(',')).toBe(true);
  });

  it('hard-cuts text without any break, never inside a surrogate pair', () => {
    const text = `x${'😀'.repeat(1000)}`;
    const chunks = chunkText(text, { targetChars: 100, maxChars: 150 });
    expect(chunks.map((c) => c.text).join('')).toBe(text);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(150);
      expect(chunk.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });

  it('gives each chunk its offset in the original text, whitespace trimmed', () => {
    const texts = [
      `   Leading space. ${'Word '.repeat(500)}\n\n  trailing  `,
      `x${'😀'.repeat(1000)}`,
      `  ${'Short one. '.repeat(200)}`,
      'alpha beta gamma delta epsilon zeta eta theta, '.repeat(200),
      `${'long'.repeat(3000)} tail.`,
    ];
    for (const text of texts) {
      const chunks = chunkText(text, { targetChars: 300, maxChars: 400 });
      let previousEnd = 0;
      for (const chunk of chunks) {
        expect(text.slice(chunk.start, chunk.start + chunk.text.length)).toBe(chunk.text);
        expect(text.slice(previousEnd, chunk.start).trim()).toBe('');
        previousEnd = chunk.start + chunk.text.length;
      }
      expect(text.slice(previousEnd).trim()).toBe('');
    }
  });

  it('gives no chunks for blank text', () => {
    expect(chunkText(' \n\t ')).toEqual([]);
  });

  it('chunks half a million characters quickly enough to be linear', () => {
    const text = 'A fairly ordinary sentence of prose, with a comma. '.repeat(10_000);
    const chunks = chunkText(text, { locale: 'en-US' });
    expect(chunks.reduce((sum, c) => sum + c.length, 0)).toBe(text.length);
    expect(chunks.length).toBeGreaterThan(1000);
  });
});
