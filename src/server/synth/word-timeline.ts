import { type TextWord, textWords, toMillis } from '@agent-tts/contract/captions.js';
import type { WordTimingBody } from '@agent-tts/contract/timing-schemas.js';
import type { TextChunk } from './chunker.js';
import type { ChunkWords, PlacedWords } from './word-placement.js';

/**
 * The word timings of one job. The words are those of the whole text (`textWords`, computed once); each
 * belongs to the chunk its start falls in. As chunks are written, in order, their placed words become
 * times in the file: the chunk's samples in the stream plus the samples of the chunks before it. Starts
 * strictly increase (a start that would not is moved 1 ms after the previous one), every word ends after
 * its start and at or before the next start, all in milliseconds. Holds one small object per word, no
 * audio.
 */
export class WordTimeline {
  /** Words not yet timed, then (up to `timed`) timed: one array, so the job holds one object per word. */
  private readonly words: (TextWord | WordTimingBody)[];
  /** Index of the first word of each chunk; one more entry, the number of words. */
  private readonly firstWord: Int32Array;
  private timed = 0;
  private previous: WordTimingBody | undefined;

  constructor(
    text: string,
    language: string,
    chunks: readonly TextChunk[],
    private readonly sampleRate: number,
  ) {
    this.words = textWords(text, language);
    this.firstWord = new Int32Array(chunks.length + 1);
    let w = 0;
    for (let c = 1; c < chunks.length; c++) {
      while (w < this.words.length && this.words[w]!.utf16_start < chunks[c]!.start) w++;
      this.firstWord[c] = w;
    }
    this.firstWord[chunks.length] = this.words.length;
  }

  /** The words of a chunk, in offsets of its text, for the encoder to place. */
  wordsOf(chunk: TextChunk): Omit<ChunkWords, 'marks'> {
    const starts: number[] = [];
    const ends: number[] = [];
    for (let i = this.firstWord[chunk.index]!; i < this.firstWord[chunk.index + 1]!; i++) {
      starts.push(this.words[i]!.utf16_start - chunk.start);
      ends.push(this.words[i]!.utf16_end - chunk.start);
    }
    return { starts, ends, textLength: chunk.text.length };
  }

  /** Times of a chunk's words; chunks come in order, `offsetSamples` being the file's samples before it. */
  place(chunk: TextChunk, placed: PlacedWords | undefined, offsetSamples: number): void {
    const first = this.firstWord[chunk.index]!;
    const count = this.firstWord[chunk.index + 1]! - first;
    if (first !== this.timed) throw new Error(`word timings: chunk ${chunk.index} placed out of order`);
    if (count > 0 && (!placed || placed.starts.length !== count)) {
      throw new Error(`word timings: chunk ${chunk.index} has ${count} words, the encoder placed ${placed?.starts.length ?? 0}`);
    }
    for (let k = 0; k < count; k++) {
      const word = this.words[first + k] as TextWord;
      let start = toMillis((offsetSamples + placed!.starts[k]!) / this.sampleRate);
      const previous = this.previous;
      if (previous && start <= previous.start) start = toMillis(previous.start + 0.001);
      if (previous) previous.end = previous.end > start || previous.end <= previous.start ? start : previous.end;
      const timing: WordTimingBody = {
        word: word.word,
        start,
        end: toMillis((offsetSamples + placed!.ends[k]!) / this.sampleRate),
        text_start: word.text_start,
        text_end: word.text_end,
        utf16_start: word.utf16_start,
        utf16_end: word.utf16_end,
      };
      this.words[first + k] = timing;
      this.previous = timing;
    }
    this.timed += count;
  }

  /** Every word, timed; the last ends at or before the end of the audio. */
  finish(durationSeconds: number): WordTimingBody[] {
    if (this.timed !== this.words.length) throw new Error(`word timings: ${this.words.length - this.timed} words were never placed`);
    const last = this.previous;
    if (last) {
      const audioEnd = Math.floor(durationSeconds * 1000) / 1000;
      if (last.end > audioEnd) last.end = audioEnd;
      if (last.end <= last.start) last.end = Math.min(audioEnd, toMillis(last.start + 0.001));
    }
    return this.words as WordTimingBody[];
  }
}
