import { codePointLength } from '../../src/contract/limits.js';

/** The inline benchmark's text: one everyday sentence of exactly 100 characters. */
export const INLINE_TEXT = 'The weather was mild this morning, so we walked to the market and bought fresh bread and red apples.';

/** Prose of ordinary sentence lengths, numbers and punctuation included, so the chunker sees real text. */
const SENTENCES = [
  'The weather was mild this morning, so we walked to the market and bought fresh bread, apples and a little cheese.',
  'On the way back we stopped at the library, where the new catalogue lists more than 4,000 titles.',
  'Maria asked whether the train to the coast still leaves at 7:45, or whether the timetable changed in March.',
  'Nobody answered at first; then the conductor said that the earlier service had been cancelled for repairs.',
  'We decided to take the bus instead, which was slower but cheaper, and it stopped in every village along the river.',
  'By noon the sun was high, the fields were bright yellow, and the children counted twenty-three windmills!',
  'Is there anything better than a long lunch in the shade of an old oak tree?',
  'After lunch, the guide explained how the bridge was built in 1887, and why it was painted green every ten years.',
  'The museum closes at five o\'clock, so we hurried through the rooms of maps, clocks and ship models.',
  'In the evening it rained briefly, and the streets smelled of wet stone and bread from the bakery on the corner.',
];

/**
 * A text of exactly `length` characters (code points) built from the sentences above, in paragraphs, ending
 * at a sentence's end where the length allows. Deterministic, so every run synthesizes the same text.
 */
export function proseOfLength(length: number): string {
  const parts: string[] = [];
  let total = 0;
  for (let i = 0; total < length; i++) {
    const sentence = SENTENCES[i % SENTENCES.length]!;
    const separator = i === 0 ? '' : i % 5 === 0 ? '\n\n' : ' ';
    parts.push(separator + sentence);
    total += separator.length + sentence.length;
  }
  let text = parts.join('').slice(0, length);
  // Cut mid-sentence: end the last word with a full stop so the text still reads as prose.
  if (!/[.!?]$/.test(text)) text = text.slice(0, -1).replace(/\s$/, 'a') + '.';
  if (codePointLength(text) !== length) throw new Error(`prose of ${length} characters came out at ${codePointLength(text)}`);
  return text;
}
