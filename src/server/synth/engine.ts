import { espeakSettings } from './espeak-voices.js';
import { toSynthesisError } from './errors.js';
import type { PcmAudio } from './pcm.js';
import type { SynthesisPool } from './pool.js';

/** One piece of a request, as the pipeline hands it to an engine. */
export interface SpeechChunk {
  text: string;
  voice: string;
  /** Resolved language (see SynthesisRequest.language). */
  language: string;
  speed: number;
  /** Return the engine's word events with the PCM (PcmAudio.marks), when it has them. */
  wordEvents?: boolean;
}

/** The port every speech engine implements: a chunk of text in, mono PCM (and word events, if any) out. */
export interface SpeechEngine {
  readonly kind: 'espeak' | 'openai-compatible';
  synthesize(chunk: SpeechChunk, signal?: AbortSignal): Promise<PcmAudio>;
}

/** eSpeak NG (WASM) on the pool's worker threads, one warm instance per thread. */
export class EspeakEngine implements SpeechEngine {
  readonly kind = 'espeak';

  constructor(private readonly pool: SynthesisPool) {}

  async synthesize(chunk: SpeechChunk): Promise<PcmAudio> {
    // Settings are resolved here so that an unknown voice or language fails before reaching a thread.
    const settings = espeakSettings(chunk.voice, chunk.language, chunk.speed);
    try {
      return await this.pool.synthesize({ text: chunk.text, settings, ...(chunk.wordEvents && { wordEvents: true }) });
    } catch (error) {
      throw toSynthesisError(error, 'eSpeak NG synthesis failed');
    }
  }
}
