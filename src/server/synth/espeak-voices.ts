import { parseVoice, type Gender } from '@agent-tts/contract/voices.js';
import { SynthesisError } from '../ports/index.js';

/** What the eSpeak NG worker needs to speak one chunk in a voice. */
export interface EspeakVoiceSettings {
  /** eSpeak voice name with variant, e.g. `en-us+f3`. */
  name: string;
  /** eSpeak base pitch 0–100 (50 = the variant's own). */
  pitch: number;
  /** eSpeak pitch range 0–100 (50 = the variant's own). */
  range: number;
  /** Words per minute. */
  rate: number;
}

/** eSpeak's default speaking rate (words per minute) at speed 1.0. */
export const ESPEAK_BASE_RATE = 175;
const MIN_RATE = 80;
const MAX_RATE = 450;

/**
 * eSpeak voice for every language a request can carry: the §4.5 codes (st_* voices) and the BCP 47 tags
 * of the Kokoro letters. `fr` and `en-gb-x-rp` are the names eSpeak accepts (`fr-fr`, `en-gb` are not).
 */
const ESPEAK_LANGUAGE: Readonly<Record<string, string>> = {
  en: 'en-us',
  'en-us': 'en-us',
  'en-gb': 'en-gb-x-rp',
  ar: 'ar',
  bg: 'bg',
  hr: 'hr',
  cs: 'cs',
  da: 'da',
  nl: 'nl',
  et: 'et',
  fi: 'fi',
  fr: 'fr',
  de: 'de',
  el: 'el',
  hi: 'hi',
  hu: 'hu',
  id: 'id',
  it: 'it',
  ja: 'ja',
  ko: 'ko',
  lv: 'lv',
  lt: 'lt',
  pl: 'pl',
  pt: 'pt',
  'pt-br': 'pt-br',
  ro: 'ro',
  ru: 'ru',
  sk: 'sk',
  sl: 'sl',
  es: 'es',
  sv: 'sv',
  tr: 'tr',
  uk: 'uk',
  vi: 'vi',
  zh: 'cmn',
};

export function espeakLanguage(language: string): string {
  const tag = language.toLowerCase();
  const found = ESPEAK_LANGUAGE[tag] ?? ESPEAK_LANGUAGE[tag.replace(/-.*$/s, '')];
  if (!found) throw new SynthesisError('INTERNAL_ERROR', `No eSpeak voice for language "${language}"`, { retryable: false });
  return found;
}

/**
 * eSpeak variants that keep the voice's gender. m5 (monotone intonation) and m8 (formant tones) are left
 * out: they sound like effects rather than speakers.
 */
export const FEMALE_VARIANTS = ['f1', 'f2', 'f3', 'f4', 'f5'] as const;
export const MALE_VARIANTS = ['m1', 'm2', 'm3', 'm4', 'm6', 'm7'] as const;

interface Timbre {
  variant: string;
  pitch: number;
  range: number;
  /** Multiplies the rate: speakers differ a little in tempo. */
  tempo: number;
}

/**
 * Fixed timbres for the curated voices of §4.4, so that voices of one language and gender never collide
 * (a hash could). Supertonic voices take variant n of their gender, spread in pitch.
 */
const CURATED_TIMBRES: Readonly<Record<string, Timbre>> = {
  st_f1: { variant: 'f1', pitch: 50, range: 50, tempo: 1 },
  st_f2: { variant: 'f2', pitch: 58, range: 55, tempo: 1.02 },
  st_f3: { variant: 'f3', pitch: 44, range: 45, tempo: 0.98 },
  st_f4: { variant: 'f4', pitch: 62, range: 60, tempo: 1.03 },
  st_f5: { variant: 'f5', pitch: 38, range: 40, tempo: 0.97 },
  st_m1: { variant: 'm1', pitch: 50, range: 50, tempo: 1 },
  st_m2: { variant: 'm2', pitch: 58, range: 55, tempo: 1.02 },
  st_m3: { variant: 'm3', pitch: 34, range: 42, tempo: 0.96 },
  st_m4: { variant: 'm4', pitch: 62, range: 60, tempo: 1.03 },
  st_m5: { variant: 'm6', pitch: 44, range: 38, tempo: 0.98 },
  // The default voice takes a variant without eSpeak's breath noise, which costs twice the CPU.
  af_heart: { variant: 'f4', pitch: 52, range: 55, tempo: 1 },
  af_bella: { variant: 'f2', pitch: 60, range: 62, tempo: 1.02 },
  af_nicole: { variant: 'f3', pitch: 44, range: 40, tempo: 0.96 },
  af_sarah: { variant: 'f1', pitch: 56, range: 50, tempo: 1.01 },
  af_alloy: { variant: 'f5', pitch: 40, range: 45, tempo: 0.99 },
  am_michael: { variant: 'm1', pitch: 48, range: 50, tempo: 1 },
  am_adam: { variant: 'm3', pitch: 30, range: 40, tempo: 0.95 },
  am_echo: { variant: 'm7', pitch: 56, range: 55, tempo: 1.03 },
  bf_emma: { variant: 'f3', pitch: 54, range: 50, tempo: 1 },
  bm_george: { variant: 'm2', pitch: 44, range: 45, tempo: 0.98 },
  ef_sofia: { variant: 'f2', pitch: 54, range: 55, tempo: 1 },
  em_diego: { variant: 'm3', pitch: 46, range: 50, tempo: 1 },
  ff_claire: { variant: 'f4', pitch: 52, range: 55, tempo: 1 },
  fm_antoine: { variant: 'm1', pitch: 46, range: 50, tempo: 1 },
  hf_priya: { variant: 'f1', pitch: 54, range: 55, tempo: 1 },
  hm_raj: { variant: 'm6', pitch: 48, range: 50, tempo: 1 },
  if_lucia: { variant: 'f3', pitch: 52, range: 55, tempo: 1 },
  im_marco: { variant: 'm2', pitch: 46, range: 50, tempo: 1 },
  jf_yuki: { variant: 'f5', pitch: 56, range: 50, tempo: 1 },
  jm_takeshi: { variant: 'm4', pitch: 46, range: 50, tempo: 1 },
  pf_ana: { variant: 'f2', pitch: 50, range: 50, tempo: 1 },
  pm_carlos: { variant: 'm7', pitch: 46, range: 50, tempo: 1 },
  zf_mei: { variant: 'f1', pitch: 54, range: 50, tempo: 1 },
  zm_chen: { variant: 'm3', pitch: 46, range: 50, tempo: 1 },
};

/** FNV-1a, 32 bits: stable across processes and versions, unlike anything seeded. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Any other Kokoro-style id gets a timbre from a hash of the id: the same id always sounds the same. */
function hashedTimbre(id: string, gender: Gender): Timbre {
  const h = fnv1a(id);
  const variants = gender === 'female' ? FEMALE_VARIANTS : MALE_VARIANTS;
  return {
    variant: variants[h % variants.length]!,
    pitch: 34 + ((h >>> 8) % 33),
    range: 35 + ((h >>> 16) % 31),
    tempo: 0.95 + ((h >>> 24) % 11) / 100,
  };
}

export function timbreOf(voiceId: string): Timbre {
  const curated = CURATED_TIMBRES[voiceId];
  if (curated) return curated;
  const parsed = parseVoice(voiceId);
  if (!parsed) throw new SynthesisError('INTERNAL_ERROR', `Unknown voice id "${voiceId}"`, { retryable: false });
  return hashedTimbre(voiceId, parsed.gender);
}

function espeakRate(speed: number, tempo = 1): number {
  return Math.min(MAX_RATE, Math.max(MIN_RATE, Math.round(ESPEAK_BASE_RATE * speed * tempo)));
}

export function espeakSettings(voiceId: string, language: string, speed: number): EspeakVoiceSettings {
  const timbre = timbreOf(voiceId);
  return {
    name: `${espeakLanguage(language)}+${timbre.variant}`,
    pitch: timbre.pitch,
    range: timbre.range,
    rate: espeakRate(speed, timbre.tempo),
  };
}
