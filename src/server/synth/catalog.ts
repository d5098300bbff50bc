import { LANGUAGE_CODES } from '@agent-tts/contract/languages.js';
import { CURATED_VOICES, KOKORO_LANGUAGE_BY_LETTER, type Gender, type VoiceFamily } from '@agent-tts/contract/voices.js';
import type { EngineKind } from './types.js';
import { KOKORO_LETTERS, VOICE_NAMES } from './voice-names.js';

export interface CatalogVoice {
  id: string;
  /** Display name. */
  name: string;
  gender: Gender;
  /** BCP 47 tags: one for a Kokoro-style voice, every §4.5 code for a Supertonic voice (the default first). */
  languages: string[];
  family: VoiceFamily;
  curated: boolean;
  accent?: string;
  description?: string;
}

/** Generated voices per language letter and gender: with the curated ones, over 300 voices in all. */
const GENERATED_PER_GROUP = 18;

function curatedEntries(): CatalogVoice[] {
  return CURATED_VOICES.map((v) => ({
    id: v.id,
    name: v.name,
    gender: v.gender,
    languages: v.family === 'supertonic' ? [...LANGUAGE_CODES] : [v.language],
    family: v.family,
    curated: true,
    ...(v.accent ? { accent: v.accent } : {}),
    ...(v.note ? { description: v.note } : {}),
  }));
}

function generatedEntries(taken: ReadonlySet<string>): CatalogVoice[] {
  const voices: CatalogVoice[] = [];
  for (const letter of KOKORO_LETTERS) {
    for (const gender of ['female', 'male'] as const) {
      const ids = VOICE_NAMES[letter][gender]
        .map((name) => ({ name, id: `${letter}${gender[0]}_${name}` }))
        .filter(({ id }) => !taken.has(id))
        .slice(0, GENERATED_PER_GROUP);
      for (const { name, id } of ids) {
        voices.push({
          id,
          name: name.charAt(0).toUpperCase() + name.slice(1),
          gender,
          languages: [KOKORO_LANGUAGE_BY_LETTER[letter]],
          family: 'kokoro',
          curated: false,
        });
      }
    }
  }
  return voices;
}

const cache = new Map<string, readonly CatalogVoice[]>();

/**
 * Every voice this deployment can speak. eSpeak speaks any id of either pattern, so its catalog is the
 * curated voices plus generated Kokoro-style voices for every language letter and gender. An upstream
 * server's full list is unknown here: its catalog is the curated voices of the families it is configured
 * for. Curated voices come first, in the order of docs/api-rules.md#curated-voices.
 */
export function voiceCatalog(engine: EngineKind = 'espeak', upstream?: { baseUrls: { kokoro?: string; supertonic?: string } }): readonly CatalogVoice[] {
  const families: VoiceFamily[] =
    engine === 'espeak' || !upstream ? ['kokoro', 'supertonic'] : (['kokoro', 'supertonic'] as const).filter((family) => Boolean(upstream.baseUrls[family]));
  const key = `${engine}:${families.join(',')}`;
  let voices = cache.get(key);
  if (!voices) {
    const curated = curatedEntries().filter((v) => families.includes(v.family));
    const generated = engine === 'espeak' ? generatedEntries(new Set(curated.map((v) => v.id))) : [];
    voices = Object.freeze([...curated, ...generated].map((v) => Object.freeze(v)));
    cache.set(key, voices);
  }
  return voices;
}
