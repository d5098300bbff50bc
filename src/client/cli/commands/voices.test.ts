import { describe, expect, it } from 'vitest';
import type { CatalogVoice } from '../../types.js';
import { filterVoices, speaksLanguage } from './voices.js';

const voice = (id: string, languages: string[], gender: 'female' | 'male', family: 'kokoro' | 'supertonic', curated = true): CatalogVoice => ({
  id,
  name: id,
  gender,
  languages,
  family,
  curated,
});

const VOICES = [
  voice('st_f1', ['en', 'fr', 'de'], 'female', 'supertonic'),
  voice('af_heart', ['en-US'], 'female', 'kokoro'),
  voice('bm_george', ['en-GB'], 'male', 'kokoro'),
  voice('ff_claire', ['fr'], 'female', 'kokoro'),
  voice('am_extra', ['en-US'], 'male', 'kokoro', false),
];

describe('voice filters', () => {
  it('matches a language and its regional variants', () => {
    expect(speaksLanguage(VOICES[1]!, 'en')).toBe(true);
    expect(speaksLanguage(VOICES[1]!, 'EN-us')).toBe(true);
    expect(speaksLanguage(VOICES[2]!, 'en-US')).toBe(false);
    expect(speaksLanguage(VOICES[1]!, 'e')).toBe(false);
  });
  it('combines language, gender, family and curated', () => {
    const ids = (f: Parameters<typeof filterVoices>[1]) => filterVoices(VOICES, f).map((v) => v.id);
    expect(ids({ language: 'en' })).toEqual(['st_f1', 'af_heart', 'bm_george', 'am_extra']);
    expect(ids({ language: 'fr', family: 'kokoro' })).toEqual(['ff_claire']);
    expect(ids({ gender: 'male', curated: true })).toEqual(['bm_george']);
  });
});
