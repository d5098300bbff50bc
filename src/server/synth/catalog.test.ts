import { describe, expect, it } from 'vitest';
import { LANGUAGE_CODES } from '../../contract/languages.js';
import { CURATED_VOICES, parseVoice } from '../../contract/voices.js';
import { voiceCatalog } from './catalog.js';

describe('voiceCatalog', () => {
  const voices = voiceCatalog('espeak');

  it('lists more than 300 voices, every id unique and valid, with a consistent gender and language', () => {
    expect(voices.length).toBeGreaterThan(300);
    expect(new Set(voices.map((v) => v.id)).size).toBe(voices.length);
    for (const v of voices) {
      const parsed = parseVoice(v.id);
      expect(parsed, v.id).toBeDefined();
      expect(v.gender).toBe(parsed!.gender);
      expect(v.family).toBe(parsed!.family);
      expect(v.name).toMatch(/^\S/);
      if (parsed!.family === 'kokoro') expect(v.languages).toEqual([parsed!.language]);
    }
  });

  it('starts with the curated voices of §4.4, flagged, and st_* voices speak all 31 codes', () => {
    expect(voices.slice(0, CURATED_VOICES.length).map((v) => v.id)).toEqual(CURATED_VOICES.map((v) => v.id));
    expect(voices.filter((v) => v.curated).length).toBe(CURATED_VOICES.length);
    for (const v of voices.filter((v) => v.family === 'supertonic')) expect(v.languages).toEqual([...LANGUAGE_CODES]);
    expect(voices.find((v) => v.id === 'af_heart')).toMatchObject({ name: 'Heart', accent: 'American', curated: true });
  });

  it('covers every language letter and both genders with generated voices', () => {
    for (const letter of 'abefhijpz') {
      for (const g of 'fm') expect(voices.filter((v) => v.id.startsWith(`${letter}${g}_`) && !v.curated).length).toBeGreaterThanOrEqual(18);
    }
  });

  it('lists only the curated voices of configured families for an upstream server', () => {
    const kokoroOnly = voiceCatalog('openai-compatible', { baseUrls: { kokoro: 'http://k' } });
    expect(kokoroOnly.every((v) => v.family === 'kokoro' && v.curated)).toBe(true);
    expect(kokoroOnly.length).toBe(CURATED_VOICES.filter((v) => v.family === 'kokoro').length);
  });
});
