/** A piece of the text synthesized as one unit; pieces are spoken in `index` order. */
export interface TextChunk {
  index: number;
  /** The chunk's text, without the whitespace around it. */
  text: string;
  /** UTF-16 offset of `text` in the original text: `original.slice(start, start + text.length) === text`. */
  start: number;
  /** Code units of the original text this chunk covers (for progress by share of text). */
  length: number;
  /** False when a sentence longer than the hard cap was cut: the pause after it is a short one. */
  endsSentence: boolean;
}

export interface ChunkOptions {
  /** BCP 47 tag for sentence rules; an invalid one falls back to the default locale. */
  locale?: string;
  /** Sentences are merged while a chunk stays within this many characters. */
  targetChars?: number;
  /** A single sentence longer than this is cut, at a clause mark or space when there is one. */
  maxChars?: number;
}

const DEFAULT_TARGET_CHARS = 450;
const DEFAULT_MAX_CHARS = 600;

/**
 * V8's sentence segmenter slows down quadratically on long strings (a 400 kB text takes seconds), so the
 * text is segmented in windows; the last sentence of a window may be incomplete and is carried over.
 */
const SEGMENT_WINDOW = 8192;

const CLAUSE_BREAK = /[,;:\u2013\u2014\u3001\uff0c\uff1b\uff1a\u060c]/u;
const SPACE = /\s/u;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function sentenceSegmenter(locale: string | undefined): Intl.Segmenter {
  try {
    return new Intl.Segmenter(locale, { granularity: 'sentence' });
  } catch {
    return new Intl.Segmenter(undefined, { granularity: 'sentence' });
  }
}

export interface Sentence {
  text: string;
  /** False for the part of an overlong sentence that ended only because a window did. */
  ends: boolean;
}

/** Yields the sentences of the text in order, each with its trailing whitespace. */
export function* sentences(text: string, locale?: string): Generator<Sentence> {
  const segmenter = sentenceSegmenter(locale);
  let start = 0;
  while (start < text.length) {
    const end = Math.min(text.length, start + SEGMENT_WINDOW);
    const segments = Array.from(segmenter.segment(text.slice(start, end)), (s) => s.segment);
    if (end === text.length) {
      for (const segment of segments) yield { text: segment, ends: true };
      return;
    }
    if (segments.length > 1) {
      // The window's last sentence may continue past it: it is segmented again with the next window.
      const complete = segments.slice(0, -1);
      for (const segment of complete) yield { text: segment, ends: true };
      start += complete.reduce((sum, s) => sum + s.length, 0);
    } else {
      // One sentence longer than the window: hand over what fits, ending at a space if there is one.
      const cut = windowCut(text, start, end);
      yield { text: text.slice(start, cut), ends: false };
      start = cut;
    }
  }
}

function windowCut(text: string, start: number, end: number): number {
  for (let i = end; i > start + SEGMENT_WINDOW / 2; i--) if (SPACE.test(text[i - 1]!)) return i;
  return isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end;
}

/** Where to cut a too-long sentence: after the last clause mark, else at the last space, else at the cap. */
function cutPoint(text: string, maxChars: number): number {
  const window = text.slice(0, maxChars + 1);
  const minimum = Math.floor(maxChars / 3);
  for (let i = Math.min(window.length, maxChars) - 1; i >= minimum; i--) {
    if (CLAUSE_BREAK.test(window[i]!)) return i + 1;
  }
  for (let i = Math.min(window.length - 1, maxChars); i >= minimum; i--) {
    if (SPACE.test(window[i]!)) return i + 1;
  }
  // No break at all (a URL, or a script written without spaces): cut, but never inside a surrogate pair.
  return isHighSurrogate(text.charCodeAt(maxChars - 1)) ? maxChars - 1 : maxChars;
}

interface Piece {
  text: string;
  length: number;
  endsSentence: boolean;
}

function* pieces(sentence: Sentence, maxChars: number): Generator<Piece> {
  let rest = sentence.text;
  while (rest.trim().length > maxChars) {
    const cut = cutPoint(rest, maxChars);
    yield { text: rest.slice(0, cut), length: cut, endsSentence: false };
    rest = rest.slice(cut);
  }
  yield { text: rest, length: rest.length, endsSentence: sentence.ends };
}

/**
 * Splits text into chunks at sentence boundaries, merging short sentences up to `targetChars` and cutting
 * sentences longer than `maxChars`. Blank text gives no chunks; every character of the text is counted in
 * exactly one chunk's `length`.
 */
export function chunkText(text: string, options: ChunkOptions = {}): TextChunk[] {
  const targetChars = options.targetChars ?? DEFAULT_TARGET_CHARS;
  const maxChars = Math.max(options.maxChars ?? DEFAULT_MAX_CHARS, targetChars);
  const chunks: TextChunk[] = [];
  let current = '';
  let currentLength = 0;
  let currentStart = 0; // offset of `current` in the text
  let currentEndsSentence = true;
  let pendingLength = 0; // whitespace-only text before the first chunk, counted into it

  const flush = () => {
    const trimmed = current.trim();
    if (trimmed) {
      const start = currentStart + current.length - current.trimStart().length;
      chunks.push({ index: chunks.length, text: trimmed, start, length: currentLength + pendingLength, endsSentence: currentEndsSentence });
      pendingLength = 0;
    } else {
      pendingLength += currentLength;
    }
    currentStart += current.length;
    current = '';
    currentLength = 0;
  };

  for (const sentence of sentences(text, options.locale)) {
    for (const piece of pieces(sentence, maxChars)) {
      if (current.trim() && current.trim().length + piece.text.trim().length + 1 > targetChars) flush();
      current += piece.text;
      currentLength += piece.length;
      currentEndsSentence = piece.endsSentence;
      // A piece cut from an overlong sentence is a chunk of its own; the rest of a sentence cut only by a
      // window continues in the next piece, so it stays open.
      if (!piece.endsSentence && current.trim().length >= targetChars) flush();
    }
  }
  flush();
  const last = chunks.at(-1);
  if (pendingLength > 0 && last) last.length += pendingLength;
  return chunks;
}
