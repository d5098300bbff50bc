import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConformanceFixtures, type ConformanceFixturesT } from '../src/contract/fixtures.js';
import type { Settings } from './settings.js';

export class FixturesError extends Error {}

/** What the rules run against: the fixtures file with the command-line overrides applied. */
export interface Target {
  baseUrl: string;
  voicesUrl?: string;
  fixtures: ConformanceFixturesT;
  /** Where the fixtures came from, for the report. */
  source: string;
}

/**
 * A syntactically valid key for a mock: Prism checks only that a Bearer credential is present, so a
 * client author (and the mock profile) can send this one.
 */
export const MOCK_API_KEY = `tts_00000000_${'0'.repeat(48)}`;

export function loadFixturesFile(path: string): ConformanceFixturesT {
  const full = resolve(path);
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch (error) {
    throw new FixturesError(`cannot read the fixtures file ${full}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new FixturesError(`the fixtures file ${full} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = ConformanceFixtures.safeParse(data);
  if (!parsed.success) {
    throw new FixturesError(`the fixtures file ${full} does not match the fixtures schema:\n${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

export function resolveTarget(settings: Settings): Target {
  if (settings.fixturesPath) {
    const fixtures = loadFixturesFile(settings.fixturesPath);
    return {
      baseUrl: trimSlash(settings.baseUrl ?? fixtures.base_url),
      voicesUrl: settings.voicesUrl ?? fixtures.voices_url,
      fixtures,
      source: resolve(settings.fixturesPath),
    };
  }
  if (settings.profile === 'mock' && settings.baseUrl) {
    // A mock holds no accounts: one placeholder key stands for every key the rules need.
    const fixtures: ConformanceFixturesT = { base_url: settings.baseUrl, keys: { active: [MOCK_API_KEY] } };
    return { baseUrl: trimSlash(settings.baseUrl), voicesUrl: settings.voicesUrl, fixtures, source: '(none: profile mock)' };
  }
  throw new FixturesError(
    settings.profile === 'mock'
      ? 'profile mock needs --base-url (TTS_CONFORMANCE_BASE_URL) or a fixtures file'
      : 'no fixtures file: pass --fixtures <path> or set TTS_CONFORMANCE_FIXTURES (see conformance/README.md for its shape)',
  );
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');
