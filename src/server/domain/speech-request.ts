import { LIMITS, VOICES_PATH } from '../../contract/limits.js';
import type { TtsRequestBody } from '../../contract/schemas.js';
import { DEFAULT_VOICE, parseVoice, resolveLanguage, type VoiceFamily } from '../../contract/voices.js';
import { invalidRequest } from './errors.js';

/** A submission with every default applied: what a job records and synthesis speaks. */
export interface SpeechRequest {
  text: string;
  voice: string;
  language: string;
  speed: number;
}

/**
 * Applies the request defaults (voice af_heart, speed 1.2, language en for st_* voices; a Kokoro voice
 * speaks the language of its id) and refuses, as INVALID_REQUEST, a voice of a family this deployment
 * has no engine for: every voice the API accepts must be able to speak (docs/api-rules.md#voices-and-languages).
 */
export class SpeechRequests {
  constructor(private readonly families: ReadonlySet<VoiceFamily>) {}

  resolve(body: TtsRequestBody): SpeechRequest {
    // The body was validated against the contract: the id matches one of the voice patterns.
    const voice = parseVoice(body.voice ?? DEFAULT_VOICE)!;
    if (!this.families.has(voice.family)) {
      throw invalidRequest(
        `Voice "${voice.id}" is not available on this deployment: no speech server is configured for its ${voice.family} voices. GET ${VOICES_PATH} lists the voices it offers.`,
      );
    }
    return {
      text: body.text,
      voice: voice.id,
      language: resolveLanguage(voice, body.language),
      speed: body.speed ?? LIMITS.speedDefault,
    };
  }
}
