import type { LanguageCode } from './languages.js';

/**
 * Voice ids (docs/api-rules.md#voices-and-languages, §4.4). Two families are accepted:
 * - Kokoro-style `<language letter><gender letter>_<name>`, e.g. `af_heart`; the language comes from
 *   the first letter, the gender from the second;
 * - Supertonic `st_<gender><1-5>`, e.g. `st_m1`, which speak any language code of §4.5.
 */
export const KOKORO_VOICE_PATTERN = /^[abefhijpz][fm]_[a-z][a-z0-9]{0,31}$/;
export const SUPERTONIC_VOICE_PATTERN = /^st_[fm][1-5]$/;
/** Either family, as one pattern (used in the OpenAPI document). */
export const VOICE_PATTERN = /^(?:[abefhijpz][fm]_[a-z][a-z0-9]{0,31}|st_[fm][1-5])$/;

export const DEFAULT_VOICE = 'af_heart';
/** Default voice of the agent tool of docs/api-rules.md#agent-tool (the API's own default is af_heart). */
export const AGENT_TOOL_DEFAULT_VOICE = 'st_m1';
export const DEFAULT_SUPERTONIC_LANGUAGE: LanguageCode = 'en';

export type VoiceFamily = 'kokoro' | 'supertonic';
export type Gender = 'female' | 'male';

/** Language of a Kokoro-style voice, from the first letter of its id (BCP 47 tag). */
export const KOKORO_LANGUAGE_BY_LETTER = {
  a: 'en-US',
  b: 'en-GB',
  e: 'es',
  f: 'fr',
  h: 'hi',
  i: 'it',
  j: 'ja',
  p: 'pt-BR',
  z: 'zh',
} as const;
export type KokoroLanguage = (typeof KOKORO_LANGUAGE_BY_LETTER)[keyof typeof KOKORO_LANGUAGE_BY_LETTER];

export interface ParsedVoice {
  id: string;
  family: VoiceFamily;
  gender: Gender;
  /** Kokoro voices: the language of the id. Supertonic voices: undefined (the request chooses). */
  language?: KokoroLanguage;
  /** Supertonic voices: 1–5. */
  variant?: number;
}

/** Parses a voice id; returns undefined for an id that matches neither family. */
export function parseVoice(id: string): ParsedVoice | undefined {
  if (SUPERTONIC_VOICE_PATTERN.test(id)) {
    return { id, family: 'supertonic', gender: id[3] === 'f' ? 'female' : 'male', variant: Number(id[4]) };
  }
  if (KOKORO_VOICE_PATTERN.test(id)) {
    return {
      id,
      family: 'kokoro',
      gender: id[1] === 'f' ? 'female' : 'male',
      language: KOKORO_LANGUAGE_BY_LETTER[id[0] as keyof typeof KOKORO_LANGUAGE_BY_LETTER],
    };
  }
  return undefined;
}

/**
 * The language a request is spoken in: Supertonic voices use the request's `language` (default `en`);
 * Kokoro voices always use the language of their id and ignore `language`.
 */
export function resolveLanguage(voice: ParsedVoice, requested?: LanguageCode): string {
  if (voice.family === 'supertonic') return requested ?? DEFAULT_SUPERTONIC_LANGUAGE;
  return voice.language!;
}

export interface CuratedVoice {
  id: string;
  name: string;
  gender: Gender;
  family: VoiceFamily;
  /** BCP 47 tag; for Supertonic voices the default language (they speak every code of §4.5). */
  language: string;
  accent?: string;
  note?: string;
}

const supertonic = (gender: Gender, n: number): CuratedVoice => ({
  id: `st_${gender[0]}${n}`,
  name: `Supertonic ${gender === 'female' ? 'Female' : 'Male'} ${n}`,
  gender,
  family: 'supertonic',
  language: 'en',
  note: 'Supertonic Fast: recommended for API and CLI work; accepts a language code.',
});

/** Curated voices of docs/api-rules.md#curated-voices. */
export const CURATED_VOICES: readonly CuratedVoice[] = [
  ...[1, 2, 3, 4, 5].map((n) => supertonic('female', n)),
  ...[1, 2, 3, 4, 5].map((n) => supertonic('male', n)),
  { id: 'af_heart', name: 'Heart', gender: 'female', family: 'kokoro', language: 'en-US', accent: 'American', note: 'Default voice.' },
  { id: 'af_bella', name: 'Bella', gender: 'female', family: 'kokoro', language: 'en-US', accent: 'American' },
  { id: 'af_nicole', name: 'Nicole', gender: 'female', family: 'kokoro', language: 'en-US', accent: 'American' },
  { id: 'af_sarah', name: 'Sarah', gender: 'female', family: 'kokoro', language: 'en-US', accent: 'American' },
  { id: 'af_alloy', name: 'Alloy', gender: 'female', family: 'kokoro', language: 'en-US', accent: 'American' },
  { id: 'am_michael', name: 'Michael', gender: 'male', family: 'kokoro', language: 'en-US', accent: 'American' },
  { id: 'am_adam', name: 'Adam', gender: 'male', family: 'kokoro', language: 'en-US', accent: 'American' },
  { id: 'am_echo', name: 'Echo', gender: 'male', family: 'kokoro', language: 'en-US', accent: 'American' },
  { id: 'bf_emma', name: 'Emma', gender: 'female', family: 'kokoro', language: 'en-GB', accent: 'British' },
  { id: 'bm_george', name: 'George', gender: 'male', family: 'kokoro', language: 'en-GB', accent: 'British' },
  { id: 'ef_sofia', name: 'Sofia', gender: 'female', family: 'kokoro', language: 'es' },
  { id: 'em_diego', name: 'Diego', gender: 'male', family: 'kokoro', language: 'es' },
  { id: 'ff_claire', name: 'Claire', gender: 'female', family: 'kokoro', language: 'fr' },
  { id: 'fm_antoine', name: 'Antoine', gender: 'male', family: 'kokoro', language: 'fr' },
  { id: 'hf_priya', name: 'Priya', gender: 'female', family: 'kokoro', language: 'hi' },
  { id: 'hm_raj', name: 'Raj', gender: 'male', family: 'kokoro', language: 'hi' },
  { id: 'if_lucia', name: 'Lucia', gender: 'female', family: 'kokoro', language: 'it' },
  { id: 'im_marco', name: 'Marco', gender: 'male', family: 'kokoro', language: 'it' },
  { id: 'jf_yuki', name: 'Yuki', gender: 'female', family: 'kokoro', language: 'ja' },
  { id: 'jm_takeshi', name: 'Takeshi', gender: 'male', family: 'kokoro', language: 'ja' },
  { id: 'pf_ana', name: 'Ana', gender: 'female', family: 'kokoro', language: 'pt-BR' },
  { id: 'pm_carlos', name: 'Carlos', gender: 'male', family: 'kokoro', language: 'pt-BR' },
  { id: 'zf_mei', name: 'Mei', gender: 'female', family: 'kokoro', language: 'zh' },
  { id: 'zm_chen', name: 'Chen', gender: 'male', family: 'kokoro', language: 'zh' },
];
