import { codePointLength } from '@agent-tts/contract/limits.js';
// The load tool's prose: the benchmarks and load runs speak the same text.
import { PROSE_SENTENCES } from '@agent-tts/load/workload.js';

/** The inline benchmark's text: one everyday sentence of exactly 100 characters. */
export const INLINE_TEXT = 'The weather was mild this morning, so we walked to the market and bought fresh bread and red apples.';

/**
 * A text of exactly `length` characters (code points) built from the sentences above, in paragraphs, ending
 * at a sentence's end where the length allows. Deterministic, so every run synthesizes the same text.
 */
export function proseOfLength(length: number): string {
  const parts: string[] = [];
  let total = 0;
  for (let i = 0; total < length; i++) {
    const sentence = PROSE_SENTENCES[i % PROSE_SENTENCES.length]!;
    const separator = i === 0 ? '' : i % 5 === 0 ? '\n\n' : ' ';
    parts.push(separator + sentence);
    total += separator.length + sentence.length;
  }
  let text = parts.join('').slice(0, length);
  // Cut mid-sentence: end the last word with a full stop so the text still reads as prose.
  if (!/[.!?]$/.test(text)) text = `${text.slice(0, -1).replace(/\s$/, 'a')}.`;
  if (codePointLength(text) !== length) throw new Error(`prose of ${length} characters came out at ${codePointLength(text)}`);
  return text;
}
