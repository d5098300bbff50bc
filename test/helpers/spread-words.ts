import { textWords, toMillis } from '../../src/contract/captions.js';
import type { Synthesizer } from '../../src/server/ports/index.js';

/**
 * Until the eSpeak synthesizer returns its words (SynthesisResult.words): the real synthesis, with the
 * words of the text spread over the real duration when it was asked for them and returned none. To be
 * removed once it returns them.
 */
export function withSpreadWords(real: Synthesizer): Synthesizer {
  return {
    ...real,
    synthesize: async (req, sink, opts) => {
      const result = await real.synthesize(req, sink, opts);
      if (req.timestamps !== 'word' || result.words) return result;
      const words = textWords(req.text, req.language);
      const step = result.durationSeconds / Math.max(1, words.length);
      return { ...result, words: words.map((w, i) => ({ ...w, start: toMillis(i * step), end: toMillis((i + 0.9) * step) })) };
    },
  };
}
