import { LIMITS } from '@agent-tts/contract/limits.js';
import { closestVoiceIds, unknownVoiceMessage, type VoiceCatalogRef } from '@agent-tts/contract/messages.js';
import type { TtsRequestBody } from '@agent-tts/contract/request-schemas.js';
import { DEFAULT_VOICE, type ParsedVoice, parseVoice, resolveLanguage, type VoiceFamily } from '@agent-tts/contract/voices.js';
import { RequestRefusedError } from './errors.js';

/** A submission with every default applied: what a job records and synthesis speaks. */
export interface SpeechRequest {
  text: string;
  /** The voice that speaks the job, which `audio.voice` reports: the requested one, or the listed voice standing in for an unlisted id. */
  voice: string;
  language: string;
  speed: number;
  /** `word` when the submission asked for word timings and captions; absent for `none` and for no field at all, which are the same request. */
  timestamps?: 'word';
}

/**
 * What the deployment does with a voice id of the pattern that its catalog does not list:
 * `substitute` (default, the API's §2.3: any id of the pattern is accepted) speaks it in the closest
 * listed voice of the same family, gender and language and reports that voice in `audio.voice`;
 * `refuse` answers 400 INVALID_REQUEST, a departure from §2.3 (VOICES_UNLISTED, docs/api-rules.md#voices-and-languages).
 */
export type UnlistedVoices = 'substitute' | 'refuse';

/**
 * Applies the request defaults (voice af_heart, speed 1.2, language en for st_* voices; a Kokoro voice
 * speaks the language of its id; no word timings) and decides which voice speaks: a listed voice
 * speaks itself; an unlisted id of the pattern is spoken by the closest listed voice of the same
 * family, gender and language (or refused, when the operator set VOICES_UNLISTED=refuse); a voice of
 * a family the deployment has no engine for is refused as INVALID_REQUEST
 * (docs/api-rules.md#voices-and-languages). A refusal comes before anything is created or charged,
 * and its message names the closest voices of the catalog and its address.
 */
export class SpeechRequests {
  private readonly listed: ReadonlySet<string>;
  private readonly parsed: readonly ParsedVoice[];

  /**
   * `families`: the voice families an engine is configured for. `catalog`: the voices the deployment
   * lists (its public voice catalog) and the catalog's address.
   */
  constructor(
    private readonly families: ReadonlySet<VoiceFamily>,
    readonly catalog: VoiceCatalogRef,
    private readonly unlisted: UnlistedVoices = 'substitute',
  ) {
    this.listed = new Set(catalog.ids);
    this.parsed = catalog.ids.map(parseVoice).filter((v): v is ParsedVoice => v !== undefined);
  }

  resolve(body: TtsRequestBody): SpeechRequest {
    // The body was validated against the contract: the id matches one of the voice patterns.
    const id = body.voice ?? DEFAULT_VOICE;
    const voice = parseVoice(id);
    if (!voice) throw new RequestRefusedError('INVALID_REQUEST', unknownVoiceMessage(id, { kind: 'unlisted' }, this.catalog));
    if (!this.families.has(voice.family)) {
      throw new RequestRefusedError('INVALID_REQUEST', unknownVoiceMessage(voice.id, { kind: 'family', family: voice.family }, this.catalog));
    }
    let spoken = voice.id;
    if (!this.listed.has(voice.id)) {
      const standIn = this.unlisted === 'substitute' ? this.standIn(voice) : undefined;
      if (!standIn) throw new RequestRefusedError('INVALID_REQUEST', unknownVoiceMessage(voice.id, { kind: 'unlisted' }, this.catalog));
      spoken = standIn;
    }
    return {
      text: body.text,
      voice: spoken,
      language: resolveLanguage(voice, body.language),
      speed: body.speed ?? LIMITS.speedDefault,
      ...(body.timestamps === 'word' ? { timestamps: 'word' as const } : {}),
    };
  }

  /**
   * The listed voice that speaks an unlisted id: of the same family and gender and, for a Kokoro id,
   * the same language letter; the closest of those by edit distance, ties in catalog order. None when
   * the catalog lists no such voice.
   */
  private standIn(voice: ParsedVoice): string | undefined {
    const alike = this.parsed.filter((v) => v.family === voice.family && v.gender === voice.gender && v.language === voice.language).map((v) => v.id);
    return closestVoiceIds(voice.id, alike, 1)[0];
  }
}
