import { describe, expect, it } from 'vitest';
import { LANGUAGE_CODES } from '../../contract/languages.js';
import { CURATED_VOICES, KOKORO_LANGUAGE_BY_LETTER } from '../../contract/voices.js';
import { ESPEAK_BASE_RATE, FEMALE_VARIANTS, MALE_VARIANTS, espeakLanguage, espeakSettings, timbreOf } from './espeak-voices.js';

describe('espeakLanguage', () => {
  it('maps every §4.5 code and every Kokoro language to an eSpeak voice', () => {
    for (const code of LANGUAGE_CODES) expect(espeakLanguage(code)).toMatch(/^[a-z]{2,3}(-[a-z0-9-]+)?$/);
    for (const tag of Object.values(KOKORO_LANGUAGE_BY_LETTER)) expect(espeakLanguage(tag)).toBeTruthy();
    expect(espeakLanguage('en-US')).toBe('en-us');
    expect(espeakLanguage('en-GB')).toBe('en-gb-x-rp');
    expect(espeakLanguage('pt-BR')).toBe('pt-br');
    expect(espeakLanguage('zh')).toBe('cmn');
  });

  it('falls back to the primary subtag and refuses what it cannot speak', () => {
    expect(espeakLanguage('de-AT')).toBe('de');
    expect(() => espeakLanguage('xx')).toThrow(/No eSpeak voice/);
  });
});

describe('timbres', () => {
  it('gives every curated voice a variant of its gender, distinct within language and gender', () => {
    const seen = new Map<string, string>();
    for (const voice of CURATED_VOICES) {
      const timbre = timbreOf(voice.id);
      const variants: readonly string[] = voice.gender === 'female' ? FEMALE_VARIANTS : MALE_VARIANTS;
      expect(variants).toContain(timbre.variant);
      const key = `${voice.family}/${voice.language}/${voice.gender}/${timbre.variant}/${timbre.pitch}`;
      expect(seen.get(key), `${voice.id} sounds like ${seen.get(key)}`).toBeUndefined();
      seen.set(key, voice.id);
    }
  });

  it('gives st_f1…st_f5 five different variants', () => {
    expect(new Set(['st_f1', 'st_f2', 'st_f3', 'st_f4', 'st_f5'].map((id) => timbreOf(id).variant)).size).toBe(5);
    expect(new Set(['st_m1', 'st_m2', 'st_m3', 'st_m4', 'st_m5'].map((id) => timbreOf(id).variant)).size).toBe(5);
  });

  it('derives other ids deterministically from a hash, keeping the gender', () => {
    expect(timbreOf('af_zelda')).toEqual(timbreOf('af_zelda'));
    const female = ['af_a', 'af_b', 'af_c', 'af_d', 'af_e', 'af_f', 'af_g', 'af_h'].map(timbreOf);
    for (const t of female) expect(FEMALE_VARIANTS).toContain(t.variant);
    for (const t of ['am_a', 'am_b', 'am_c', 'zm_x'].map(timbreOf)) expect(MALE_VARIANTS).toContain(t.variant);
    // Different names spread over variants and pitches rather than all sounding alike.
    expect(new Set(female.map((t) => `${t.variant}/${t.pitch}`)).size).toBeGreaterThan(4);
  });

  it('refuses an id of neither pattern', () => {
    expect(() => timbreOf('xx_voice')).toThrow(/Unknown voice/);
  });
});

describe('espeakSettings', () => {
  it('combines language and variant, and scales the rate with the speed', () => {
    const s = espeakSettings('bf_emma', 'en-GB', 1);
    expect(s.name).toBe('en-gb-x-rp+f3');
    expect(s.rate).toBe(ESPEAK_BASE_RATE);
    const slow = espeakSettings('st_m1', 'de', 0.5);
    const fast = espeakSettings('st_m1', 'de', 1.5);
    expect(slow.name).toBe('de+m1');
    expect(fast.rate / slow.rate).toBeCloseTo(3, 1);
  });
});
