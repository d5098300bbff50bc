import { SILENCE_THRESHOLD, type SpeechRange, type WordMark } from './pcm.js';

/** The words of one chunk, as the encoder needs them to place them in the chunk's audio. */
export interface ChunkWords {
  /** UTF-16 offsets of each word's start in the chunk's text, in order. */
  starts: number[];
  /** UTF-16 offsets of each word's end (exclusive). */
  ends: number[];
  /** Length of the chunk's text: where the end of its speech stands in the text. */
  textLength: number;
  /** The engine's word events; absent (an engine without them), words are spread by character count. */
  marks?: WordMark[];
}

/** Each word's start and end, in samples of the chunk's MP3 stream (its encoder delay included). */
export interface PlacedWords {
  starts: number[];
  ends: number[];
}

/** How a sample of the engine's PCM maps to a sample of the chunk's MP3 stream. */
export interface StreamMapping {
  sampleRate: number;
  outputRate: number;
  /** What was kept of the PCM (trimSilence). */
  range: SpeechRange;
  /** Samples of silence the encoder and decoder put before the first sample given to the encoder. */
  delay: number;
}

const loud = (samples: Float32Array, i: number) => Math.abs(samples[i]!) >= SILENCE_THRESHOLD;

function wordAt(starts: readonly number[], ends: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (starts[mid]! <= offset) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found >= 0 && offset < ends[found]! ? found : -1;
}

/**
 * Start of every word in PCM samples: the earliest engine event inside the word; words without one are
 * interpolated by character offset between their neighbours (the start of the sound standing at the
 * text's start, the end of the sound at its end: with no events at all, the speech is spread over the
 * words by character count). Never decreasing.
 */
function eventStarts(words: ChunkWords, sampleRate: number, range: SpeechRange): Float64Array {
  const n = words.starts.length;
  const times = new Float64Array(n).fill(Number.NaN);
  for (const mark of words.marks ?? []) {
    const j = wordAt(words.starts, words.ends, mark.offset);
    const at = (mark.ms * sampleRate) / 1000;
    if (j >= 0 && !(times[j]! <= at)) times[j] = at;
  }
  let anchorOffset = 0;
  let anchorTime = range.loudStart;
  for (let i = 0; i < n; ) {
    if (!Number.isNaN(times[i]!)) {
      anchorOffset = words.starts[i]!;
      anchorTime = times[i]!;
      i++;
      continue;
    }
    let next = i;
    while (next < n && Number.isNaN(times[next]!)) next++;
    const nextOffset = next < n ? words.starts[next]! : words.textLength;
    const nextTime = next < n ? times[next]! : Math.max(anchorTime, range.loudEnd);
    const span = nextOffset - anchorOffset;
    for (; i < next; i++) times[i] = span > 0 ? anchorTime + ((words.starts[i]! - anchorOffset) / span) * (nextTime - anchorTime) : anchorTime;
  }
  for (let i = 1; i < n; i++) if (times[i]! < times[i - 1]!) times[i] = times[i - 1]!;
  return times;
}

/**
 * Places a chunk's words in its audio. A word starts where the engine says, moved forward to its first
 * audible sample when silence follows that point (eSpeak puts a word's event before the closure of a
 * stop consonant, up to 50 ms of silence at 175 words a minute, 85 ms at half speed), though never as
 * far as the next word. It ends at its last audible sample before the next word's start (so a pause
 * after a word is not part of it); the last word, at the end of the chunk's sound.
 */
export function placeWords(samples: Float32Array, words: ChunkWords, mapping: StreamMapping): PlacedWords {
  const { range } = mapping;
  const n = words.starts.length;
  const times = eventStarts(words, mapping.sampleRate, range);
  const bound = (t: number) => Math.min(samples.length, Math.max(0, Math.round(t)));
  const starts = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const from = bound(times[i]!);
    const limit = i + 1 < n ? bound(times[i + 1]!) : range.loudEnd;
    let s = from;
    while (s < limit && !loud(samples, s)) s++;
    starts[i] = s < limit ? s : from;
  }
  const ends = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (i + 1 === n) {
      ends[i] = Math.max(starts[i]!, range.loudEnd);
      continue;
    }
    let e = starts[i + 1]!;
    while (e > starts[i]! && !loud(samples, e - 1)) e--;
    ends[i] = e > starts[i]! ? e : starts[i + 1]!;
  }
  const scale = mapping.outputRate / mapping.sampleRate;
  const toStream = (t: number) => Math.round((Math.min(range.end, Math.max(range.start, t)) - range.start) * scale) + mapping.delay;
  return { starts: Array.from(starts, toStream), ends: Array.from(ends, toStream) };
}
