import { type TextWord, eachTextWord, toMillis } from '@agent-tts/contract/captions.js';
import type { WordTimingBody } from '@agent-tts/contract/timing-schemas.js';
import type { TextChunk } from './chunker.js';
import type { ChunkWords, PlacedWords } from './word-placement.js';

/**
 * The word timings of one job. The words are those of the whole text (`textWords`, one segmentation of
 * it, read as the chunks start: segmenting half a million characters at once would block the event loop
 * for 0.4 s and leave 10 MB of garbage); each belongs to the chunk its start falls in. As chunks are
 * written, in order, their placed words become times in the file: the chunk's samples in the stream
 * plus the samples of the chunks before it. Starts strictly increase (a start that would not is moved
 * 1 ms after the previous one), every word ends after its start and at or before the next start, all
 * in milliseconds. While the job runs a word is six numbers (no object for the garbage collector to
 * carry); the word objects of the result are made at the end. No audio is kept.
 */
export class WordTimeline {
  private readonly words: Iterator<TextWord>;
  /** A word read ahead: it starts in a later chunk. */
  private ahead: TextWord | undefined;
  private readonly utf16Start: number[] = [];
  private readonly utf16End: number[] = [];
  private readonly textStart: number[] = [];
  private readonly textEnd: number[] = [];
  /** Seconds, millisecond precision; filled chunk by chunk. */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** Index of the first word of each chunk read so far, and of the next. */
  private readonly firstWord: number[] = [0];

  constructor(
    private readonly text: string,
    language: string,
    private readonly chunks: readonly TextChunk[],
    private readonly sampleRate: number,
  ) {
    this.words = eachTextWord(text, language);
  }

  /** Reads the words that start before `end` (UTF-16 offset); returns how many words are read in all. */
  private readUntil(end: number): number {
    for (;;) {
      const word = this.ahead ?? this.words.next().value;
      this.ahead = undefined;
      if (!word) break;
      if (word.utf16_start >= end) {
        this.ahead = word;
        break;
      }
      this.utf16Start.push(word.utf16_start);
      this.utf16End.push(word.utf16_end);
      this.textStart.push(word.text_start);
      this.textEnd.push(word.text_end);
    }
    return this.utf16Start.length;
  }

  /** The words of a chunk, in offsets of its text, for the encoder to place; chunks are asked in order. */
  wordsOf(chunk: TextChunk): Omit<ChunkWords, 'marks'> {
    if (chunk.index !== this.firstWord.length - 1) throw new Error(`word timings: chunk ${chunk.index} read out of order`);
    const from = this.firstWord[chunk.index]!;
    const to = this.readUntil(this.chunks[chunk.index + 1]?.start ?? Number.POSITIVE_INFINITY);
    this.firstWord.push(to);
    return {
      starts: this.utf16Start.slice(from, to).map((offset) => offset - chunk.start),
      ends: this.utf16End.slice(from, to).map((offset) => offset - chunk.start),
      textLength: chunk.text.length,
    };
  }

  /** Times of a chunk's words; chunks come in order, `offsetSamples` being the file's samples before it. */
  place(chunk: TextChunk, placed: PlacedWords | undefined, offsetSamples: number): void {
    const first = this.firstWord[chunk.index];
    const count = (this.firstWord[chunk.index + 1] ?? Number.NaN) - first!;
    if (first !== this.starts.length || !(count >= 0)) throw new Error(`word timings: chunk ${chunk.index} placed out of order`);
    if (count > 0 && placed?.starts.length !== count) {
      throw new Error(`word timings: chunk ${chunk.index} has ${count} words, the encoder placed ${placed?.starts.length ?? 0}`);
    }
    const { starts, ends } = this;
    for (let k = 0; k < count; k++) {
      const i = first + k;
      let start = toMillis((offsetSamples + placed!.starts[k]!) / this.sampleRate);
      if (i > 0) {
        if (start <= starts[i - 1]!) start = toMillis(starts[i - 1]! + 0.001);
        // The previous word ends at this start at the latest, and after its own start.
        if (ends[i - 1]! > start || ends[i - 1]! <= starts[i - 1]!) ends[i - 1] = start;
      }
      starts.push(start);
      ends.push(toMillis((offsetSamples + placed!.ends[k]!) / this.sampleRate));
    }
  }

  /** Every word, timed; the last ends at or before the end of the audio. */
  finish(durationSeconds: number): WordTimingBody[] {
    const n = this.starts.length;
    const all = this.readUntil(Number.POSITIVE_INFINITY);
    if (all !== n) throw new Error(`word timings: ${all - n} of ${all} words were never placed`);
    if (n > 0) {
      const audioEnd = Math.floor(durationSeconds * 1000) / 1000;
      const last = n - 1;
      if (this.ends[last]! > audioEnd) this.ends[last] = audioEnd;
      if (this.ends[last]! <= this.starts[last]!) this.ends[last] = Math.min(audioEnd, toMillis(this.starts[last]! + 0.001));
    }
    return Array.from({ length: n }, (_, i) => ({
      word: this.text.slice(this.utf16Start[i], this.utf16End[i]),
      start: this.starts[i]!,
      end: this.ends[i]!,
      text_start: this.textStart[i]!,
      text_end: this.textEnd[i]!,
      utf16_start: this.utf16Start[i]!,
      utf16_end: this.utf16End[i]!,
    }));
  }
}
