import { LIMITS } from '@agent-tts/contract/limits.js';
import { unknownVoiceMessage, type VoiceCatalogRef } from '@agent-tts/contract/messages.js';
import type { TtsRequestBody } from '@agent-tts/contract/schemas.js';
import { DEFAULT_VOICE, parseVoice, resolveLanguage, type VoiceFamily } from '@agent-tts/contract/voices.js';
import { invalidRequest } from './errors.js';

/** A submission with every default applied: what a job records and synthesis speaks. */
export interface SpeechRequest {
  text: string;
  voice: string;
  language: string;
  speed: number;
  /** `word` when the submission asked for word timings and captions; absent for `none` and for no field at all, which are the same request. */
  timestamps?: 'word';
}

/**
 * Applies the request defaults (voice af_heart, speed 1.2, language en for st_* voices; a Kokoro voice
 * speaks the language of its id; no word timings) and refuses, as INVALID_REQUEST, a voice this deployment does not
 * offer: one of a family it has no engine for, or one its voice catalog does not list
 * (docs/api-rules.md#voices-and-languages). Both are refused before anything is created or charged,
 * and the message names the closest voices of the catalog and its address.
 */
export class SpeechRequests {
  private readonly listed: ReadonlySet<string>;

  /**
   * `families`: the voice families an engine is configured for. `catalog`: the voices the deployment
   * lists (its public voice catalog) and the catalog's address.
   */
  constructor(
    private readonly families: ReadonlySet<VoiceFamily>,
    readonly catalog: VoiceCatalogRef,
  ) {
    this.listed = new Set(catalog.ids);
  }

  resolve(body: TtsRequestBody): SpeechRequest {
    // The body was validated against the contract: the id matches one of the voice patterns.
    const voice = parseVoice(body.voice ?? DEFAULT_VOICE)!;
    if (!this.families.has(voice.family)) {
      throw invalidRequest(unknownVoiceMessage(voice.id, { kind: 'family', family: voice.family }, this.catalog));
    }
    if (!this.listed.has(voice.id)) throw invalidRequest(unknownVoiceMessage(voice.id, { kind: 'unlisted' }, this.catalog));
    return {
      text: body.text,
      voice: voice.id,
      language: resolveLanguage(voice, body.language),
      speed: body.speed ?? LIMITS.speedDefault,
      ...(body.timestamps === 'word' ? { timestamps: 'word' as const } : {}),
    };
  }
}
