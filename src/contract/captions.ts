/**
 * Word timings as every tool of the package handles them: what counts as a word of a text, how words are
 * grouped into caption cues, how cues are written as WebVTT and SRT, and the checks a timings file must
 * pass (the conformance suite runs them against any deployment). Pure functions, no I/O.
 */
// Plain types, not the zod schemas' (timing-schemas.ts describes the same shapes): this file depends on
// nothing, so the packages that compile in the contract's vocabulary (client, conformance) can use it.

/** A word of the text with its time in the MP3 (seconds), as in the `words` of a timings file. */
export interface TimedWord extends TextWord {
  start: number;
  end: number;
}

/** One caption: as in the `cues` of a timings file. */
export interface Cue {
  start: number;
  end: number;
  text: string;
}

/** A word of a text: its place in UTF-16 code units and in code points. */
export interface TextWord {
  word: string;
  utf16_start: number;
  utf16_end: number;
  text_start: number;
  text_end: number;
}

const SPOKEN = /[\p{L}\p{N}\p{Extended_Pictographic}]/u;

function segmenter(language: string | undefined): Intl.Segmenter {
  try {
    return new Intl.Segmenter(language, { granularity: 'word' });
  } catch {
    return new Intl.Segmenter(undefined, { granularity: 'word' });
  }
}

/**
 * The words of a text, in order: the segments Unicode's word rules (UAX #29, with ICU's dictionaries for
 * Chinese, Japanese and Thai) find that hold a letter, a digit or an emoji. Punctuation and spaces are
 * not words. Long texts are segmented in windows cut at whitespace, which word rules never join across.
 */
export function textWords(text: string, language?: string): TextWord[] {
  return Array.from(eachTextWord(text, language));
}

/**
 * The words of `textWords`, one at a time: for a long text, what holds a word at a time rather than all
 * of them (half a million characters are 90,000 words, 30 MB of objects at once).
 */
export function* eachTextWord(text: string, language?: string): Generator<TextWord> {
  const seg = segmenter(language);
  let codePoints = 0;
  let counted = 0;
  const toCodePoints = (utf16: number) => {
    for (; counted < utf16; counted++) {
      const code = text.charCodeAt(counted);
      if (!(code >= 0xdc00 && code <= 0xdfff && counted > 0 && isHigh(text.charCodeAt(counted - 1)))) codePoints++;
    }
    return codePoints;
  };
  const WINDOW = 8192;
  for (let from = 0; from < text.length; ) {
    let to = Math.min(text.length, from + WINDOW);
    if (to < text.length) {
      const space = text.slice(from, to).search(/[\s\u3002\uff01\uff1f][^\s\u3002\uff01\uff1f]*$/u);
      if (space > 0) to = from + space + 1;
    }
    for (const s of seg.segment(text.slice(from, to))) {
      if (!SPOKEN.test(s.segment)) continue;
      const utf16Start = from + s.index;
      const utf16End = utf16Start + s.segment.length;
      const textStart = toCodePoints(utf16Start);
      const textEnd = toCodePoints(utf16End);
      yield { word: s.segment, utf16_start: utf16Start, utf16_end: utf16End, text_start: textStart, text_end: textEnd };
    }
    from = to;
  }
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

const SENTENCE_END = /[.!?\u2026\u3002\uff01\uff1f\u061f\u0964]/u;
const MAX_CUE_CHARS = 42;
const MAX_CUE_WORDS = 8;
const MAX_CUE_SECONDS = 6;
/** A silence this long between two words starts a new cue. */
const CUE_GAP_SECONDS = 0.6;

/**
 * Groups timed words into caption cues of at most about two short lines: a cue ends at a sentence's
 * end, at a pause, or when it would grow past 42 characters, 8 words or 6 seconds. A cue's text is cut
 * from the original text, from its first word to its last, with the punctuation that follows the last.
 */
export function buildCues(text: string, words: readonly TimedWord[]): Cue[] {
  const cues: Cue[] = [];
  let first = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    const head = words[first];
    // i < words.length and first <= i: both are words of the list.
    if (word === undefined || head === undefined) throw new Error(`buildCues: word ${first} or ${i} outside ${words.length} words`);
    const next = words[i + 1];
    const tailEnd = next ? next.utf16_start : text.length;
    const tail = text.slice(word.utf16_end, tailEnd);
    const punctuation = /^[^\s]*/u.exec(tail)?.[0] ?? '';
    const sentenceEnds = SENTENCE_END.test(tail);
    const cueText = text.slice(head.utf16_start, word.utf16_end + punctuation.length);
    const grown = next
      ? text.slice(head.utf16_start, next.utf16_end).length > MAX_CUE_CHARS ||
        i + 1 - first >= MAX_CUE_WORDS ||
        next.end - head.start > MAX_CUE_SECONDS ||
        next.start - word.end > CUE_GAP_SECONDS
      : true;
    if (sentenceEnds || grown) {
      cues.push({ start: head.start, end: word.end, text: cueText.replace(/\s+/gu, ' ').trim() });
      first = i + 1;
    }
  }
  return cues;
}

function clock(seconds: number, separator: '.' | ','): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
}

/** WebVTT (W3C): cue text escaped (`&`, `<`, `>`), so that no text of the job reads as markup. */
export function renderWebVtt(file: { cues: readonly Cue[] }): string {
  const escapeCue = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const blocks = file.cues.map((cue, i) => `${i + 1}\n${clock(cue.start, '.')} --> ${clock(cue.end, '.')}\n${escapeCue(cue.text)}\n`);
  return ['WEBVTT\n', ...blocks].join('\n');
}

/** SubRip: numbered cues, comma before the milliseconds. */
export function renderSrt(file: { cues: readonly Cue[] }): string {
  return file.cues.map((cue, i) => `${i + 1}\n${clock(cue.start, ',')} --> ${clock(cue.end, ',')}\n${cue.text}\n`).join('\n');
}

/** Rounds to the millisecond, the precision the files carry. */
export const toMillis = (seconds: number) => Math.round(seconds * 1000) / 1000;

/**
 * What is wrong with a timings file for a text, in words a person can act on; empty when nothing is.
 * The rules: every word of `textWords(text)` once and in order, offsets that cut the text back into the
 * words, starts strictly increasing, each end after its start and at or before the next start, and the
 * last end within the audio (`toleranceSeconds` allows for rounding).
 */
export function timingsProblems(
  text: string,
  file: { words: readonly TimedWord[]; duration_seconds: number },
  language?: string,
  toleranceSeconds = 0.002,
): string[] {
  const problems: string[] = [];
  const expected = textWords(text, language);
  if (file.words.length !== expected.length) problems.push(`the text has ${expected.length} words; the timings have ${file.words.length}`);
  const codePoints = Array.from(text);
  file.words.forEach((w, i) => {
    if (problems.length >= 10) return;
    const at = `word ${i + 1} ("${w.word}")`;
    const want = expected[i];
    if (want && (want.utf16_start !== w.utf16_start || want.utf16_end !== w.utf16_end))
      problems.push(`${at} is at ${w.utf16_start}–${w.utf16_end}; the text has "${want.word}" at ${want.utf16_start}–${want.utf16_end}`);
    if (text.slice(w.utf16_start, w.utf16_end) !== w.word)
      problems.push(`${at}: utf16_start/utf16_end cut "${text.slice(w.utf16_start, w.utf16_end)}" from the text`);
    if (codePoints.slice(w.text_start, w.text_end).join('') !== w.word)
      problems.push(`${at}: text_start/text_end cut "${codePoints.slice(w.text_start, w.text_end).join('')}" from the text`);
    if (!(w.end > w.start)) problems.push(`${at} ends at ${w.end} s, not after its start at ${w.start} s`);
    const next = file.words[i + 1];
    if (next && !(next.start > w.start)) problems.push(`${at} starts at ${w.start} s, not before the next word at ${next.start} s`);
    if (next && w.end > next.start + toleranceSeconds) problems.push(`${at} ends at ${w.end} s, after the next word starts at ${next.start} s`);
  });
  const last = file.words.at(-1);
  if (last && last.end > file.duration_seconds + toleranceSeconds)
    problems.push(`the last word ends at ${last.end} s, after the audio's end at ${file.duration_seconds} s`);
  return problems;
}
