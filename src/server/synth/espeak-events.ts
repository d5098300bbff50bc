import type { EspeakEvent } from '@echogarden/espeak-ng-emscripten';
import type { WordMark } from './pcm.js';

/** What escapeForSsml writes for a code point, by its length in the escaped text. */
function escapedLength(char: string): number {
  return char === '&' ? 5 : char === '<' || char === '>' ? 4 : 1;
}

/**
 * For each code point of the escaped text (0-based), the UTF-16 offset in the original text of the
 * character it came from (an entity's five or four code points all map to its one character).
 */
function originalOffsets(text: string): Int32Array {
  let length = 0;
  for (const char of text) length += escapedLength(char);
  const offsets = new Int32Array(length + 1);
  let escaped = 0;
  let utf16 = 0;
  for (const char of text) {
    for (let k = escapedLength(char); k > 0; k--) offsets[escaped++] = utf16;
    utf16 += char.length;
  }
  offsets[escaped] = utf16;
  return offsets;
}

/**
 * eSpeak's word events as marks in the original (unescaped) text: UTF-16 offset and milliseconds.
 * Several events in a row at the same position (Japanese kanji read one by one, each its own word of
 * eSpeak's) are spread in order over the `word_length` code points they cover, so that the words the
 * text's own segmentation finds there each get one.
 */
export function wordMarks(events: readonly Pick<EspeakEvent, 'text_position' | 'word_length' | 'audio_position'>[], text: string): WordMark[] {
  const offsets = originalOffsets(text);
  const last = offsets.length - 1;
  const marks: WordMark[] = [];
  for (let i = 0; i < events.length; ) {
    const first = events[i]!;
    let run = 1;
    while (i + run < events.length && events[i + run]!.text_position === first.text_position) run++;
    const span = Math.max(1, first.word_length);
    for (let k = 0; k < run; k++) {
      const position = first.text_position - 1 + Math.floor((k * span) / run);
      marks.push({ offset: offsets[Math.min(last, Math.max(0, position))]!, ms: events[i + k]!.audio_position });
    }
    i += run;
  }
  return marks;
}
