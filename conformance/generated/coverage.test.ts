import { describe, expect, it } from 'vitest';
import { CURATED_VOICES } from '../../src/contract/voices.js';
import { OpenApiDocument } from '../openapi-document.js';
import { coverageCases } from './coverage.js';
import { requestSchemas } from './request-schemas.js';

const schemas = requestSchemas(OpenApiDocument.load());
const offered = { voices: CURATED_VOICES.map((v) => v.id).sort() };
const cases = coverageCases(schemas, offered);
const bodies = cases.map((c) => ({ expect: c.expect, body: JSON.parse(c.body ?? 'null') as Record<string, unknown> }));
const valid = bodies.filter((b) => b.expect === 'accept').map((b) => b.body);

describe('the coverage phase of the generated requests', () => {
  it('pairs every language of the document with a speed next to each bound, on voices that take a language', () => {
    const languages: string[] = schemas.properties.language.enum;
    expect(languages.length).toBe(31);
    for (const language of languages)
      for (const speed of [0.51, 1.49]) {
        const hit = valid.find((b) => b.language === language && b.speed === speed);
        expect(hit, `${language} at ${speed}`).toBeDefined();
        expect(String(hit?.voice)).toMatch(/^st_/);
      }
  });

  it('meets every voice family at both bounds, every value of the other enums, and each bound crossed', () => {
    const families = new Set(offered.voices.map((v) => (v.startsWith('st_') ? 'st' : v.slice(0, 1))));
    expect(families.size).toBeGreaterThanOrEqual(9);
    for (const family of families)
      for (const speed of [0.5, 1.5])
        expect(
          valid.some((b) => String(b.voice).startsWith(family === 'st' ? 'st_' : family) && b.speed === speed),
          `${family} at ${speed}`,
        ).toBe(true);
    for (const value of schemas.properties.timestamps.enum) expect(valid.some((b) => b.timestamps === value)).toBe(true);
    const refused = bodies.filter((b) => b.expect === 'reject').map((b) => b.body);
    expect(refused).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ speed: 0.49 }),
        expect.objectContaining({ speed: 1.51 }),
        expect.objectContaining({ language: 'xx' }),
        expect.objectContaining({ voice: 'st_f6' }),
        { text: '' },
      ]),
    );
  });

  it('is the same list on every run, within its budget of valid submissions', () => {
    expect(coverageCases(schemas, offered)).toEqual(cases);
    expect(valid.length).toBeLessThanOrEqual(62 + 2 * 10);
    expect(valid.every((b) => b.text === 'Hi.')).toBe(true);
  });
});
