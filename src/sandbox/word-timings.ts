import { textWords, toMillis } from '@agent-tts/contract/captions.js';
import type { WordTimingBody } from '@agent-tts/contract/timing-schemas.js';
import { speechShares } from '@agent-tts/server';

/**
 * The word timings of a sandbox job, consistent with its audio. The audio is silence as long as the
 * reference's estimate of the text's speech (the characters at the language's rate, a pause after each
 * sentence), so each word is placed where that estimate puts it: the characters and pauses before it,
 * as a share of the whole, times the MP3's duration. Every word of `textWords(text, language)` once, in
 * order; a word lasts as long as its characters, and the last ends within the audio.
 */
export function instantWordTimings(text: string, language: string, durationSeconds: number): WordTimingBody[] {
  const words = textWords(text, language);
  const shares = speechShares(
    text,
    words.flatMap((w) => [w.utf16_start, w.utf16_end]),
    language,
  );
  // Milliseconds, as the files carry them, never past the end of the audio.
  const last = Math.floor(durationSeconds * 1000) / 1000;
  const at = (share: number) => Math.min(last, toMillis(share * durationSeconds));
  return words.map((w, i) => ({ ...w, start: at(shares[2 * i]!), end: at(shares[2 * i + 1]!) }));
}
