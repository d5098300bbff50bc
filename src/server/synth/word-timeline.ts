import { eachTextWord, toMillis } from '@agent-tts/contract/captions.js';
import type { WordTimingBody } from '@agent-tts/contract/timing-schemas.js';
import type { TextChunk } from './chunker.js';
import type { ChunkWords, PlacedWords } from './word-placement.js';

/** A growing list of numbers in a typed array: off the JavaScript heap, nothing for the collector to copy. */
class Numbers {
  private data = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  get(i: number): number {
    return this.data[i]!;
  }

  slice(from: number, to: number): Float64Array {
    return this.data.subarray(from, to);
  }
}

/**
 * The word timings of one job. The words are those of the whole text (`textWords`, one segmentation of
 * it at the start), kept as numbers rather than objects; each belongs to the chunk its start falls in.
 * As chunks are written, in order, their placed words become times in the file: the chunk's samples in
 * the stream plus the samples of the chunks before it. Starts strictly increase (a start that would not
 * is moved 1 ms after the previous one), every word ends after its start and at or before the next
 * start, all in milliseconds. A word is four numbers in typed arrays until its chunk is written, then
 * the object of the result: objects are made a chunk's worth at a time (made all at once at the end,
 * 90,000 of them for half a million characters, they would grow V8's young generation). No audio is kept.
 */
export class WordTimeline {
  private readonly utf16Start = new Numbers();
  private readonly utf16End = new Numbers();
  private readonly textStart = new Numbers();
  private readonly textEnd = new Numbers();
  /** The words timed so far: made chunk by chunk as chunks are written, a few at a time. */
  private readonly timed: WordTimingBody[] = [];
  /** Index of the first word of each chunk; one more entry, the number of words. */
  private readonly firstWord: Int32Array;

  constructor(
    private readonly text: string,
    language: string,
    chunks: readonly TextChunk[],
    private readonly sampleRate: number,
  ) {
    // One word object at a time: the list of objects that textWords returns would hold 30 MB of heap
    // for half a million characters.
    for (const word of eachTextWord(text, language)) {
      this.utf16Start.push(word.utf16_start);
      this.utf16End.push(word.utf16_end);
      this.textStart.push(word.text_start);
      this.textEnd.push(word.text_end);
    }
    const n = this.utf16Start.length;
    this.firstWord = new Int32Array(chunks.length + 1);
    let w = 0;
    for (let c = 1; c < chunks.length; c++) {
      while (w < n && this.utf16Start.get(w) < chunks[c]!.start) w++;
      this.firstWord[c] = w;
    }
    this.firstWord[chunks.length] = n;
  }

  /** The words of a chunk, in offsets of its text, for the encoder to place. */
  wordsOf(chunk: TextChunk): Omit<ChunkWords, 'marks'> {
    const [from, to] = [this.firstWord[chunk.index]!, this.firstWord[chunk.index + 1]!];
    return {
      starts: Array.from(this.utf16Start.slice(from, to), (offset) => offset - chunk.start),
      ends: Array.from(this.utf16End.slice(from, to), (offset) => offset - chunk.start),
      textLength: chunk.text.length,
    };
  }

  /** Times of a chunk's words; chunks come in order, `offsetSamples` being the file's samples before it. */
  place(chunk: TextChunk, placed: PlacedWords | undefined, offsetSamples: number): void {
    const first = this.firstWord[chunk.index]!;
    const count = this.firstWord[chunk.index + 1]! - first;
    if (first !== this.timed.length) throw new Error(`word timings: chunk ${chunk.index} placed out of order`);
    if (count > 0 && placed?.starts.length !== count) {
      throw new Error(`word timings: chunk ${chunk.index} has ${count} words, the encoder placed ${placed?.starts.length ?? 0}`);
    }
    for (let k = 0; k < count; k++) {
      const i = first + k;
      let start = toMillis((offsetSamples + placed!.starts[k]!) / this.sampleRate);
      const previous = this.timed.at(-1);
      if (previous) {
        if (start <= previous.start) start = toMillis(previous.start + 0.001);
        // The previous word ends at this start at the latest, and after its own start.
        if (previous.end > start || previous.end <= previous.start) previous.end = start;
      }
      this.timed.push({
        word: this.text.slice(this.utf16Start.get(i), this.utf16End.get(i)),
        start,
        end: toMillis((offsetSamples + placed!.ends[k]!) / this.sampleRate),
        text_start: this.textStart.get(i),
        text_end: this.textEnd.get(i),
        utf16_start: this.utf16Start.get(i),
        utf16_end: this.utf16End.get(i),
      });
    }
  }

  /** Every word, timed; the last ends at or before the end of the audio. */
  finish(durationSeconds: number): WordTimingBody[] {
    const [n, all] = [this.timed.length, this.utf16Start.length];
    if (all !== n) throw new Error(`word timings: ${all - n} of ${all} words were never placed`);
    const last = this.timed.at(-1);
    if (last) {
      const audioEnd = Math.floor(durationSeconds * 1000) / 1000;
      if (last.end > audioEnd) last.end = audioEnd;
      if (last.end <= last.start) last.end = Math.min(audioEnd, toMillis(last.start + 0.001));
    }
    return this.timed;
  }
}
