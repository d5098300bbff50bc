import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConformanceFixtures, type ConformanceFixturesT } from '../src/contract/fixtures.js';
import type { Settings } from './settings.js';

/** The fixtures file, or the URLs the run would go to, are unusable: the command line exits 2. */
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
    const source = resolve(settings.fixturesPath);
    const baseUrl =
      settings.baseUrl !== undefined ? checkUrl(settings.baseUrl, BASE_URL_OPTION) : checkUrl(fixtures.base_url, `base_url of the fixtures file ${source}`);
    const voicesUrl =
      settings.voicesUrl !== undefined
        ? checkUrl(settings.voicesUrl, VOICES_URL_OPTION)
        : fixtures.voices_url !== undefined
          ? checkUrl(fixtures.voices_url, `voices_url of the fixtures file ${source}`)
          : undefined;
    return { baseUrl: trimSlash(baseUrl), voicesUrl, fixtures, source };
  }
  if (settings.profile === 'mock' && settings.baseUrl) {
    const baseUrl = checkUrl(settings.baseUrl, BASE_URL_OPTION);
    const voicesUrl = settings.voicesUrl !== undefined ? checkUrl(settings.voicesUrl, VOICES_URL_OPTION) : undefined;
    // A mock holds no accounts: one placeholder key stands for every key the rules need.
    const fixtures: ConformanceFixturesT = { base_url: baseUrl, keys: { active: [MOCK_API_KEY] } };
    return { baseUrl: trimSlash(baseUrl), voicesUrl, fixtures, source: '(none: profile mock)' };
  }
  throw new FixturesError(
    settings.profile === 'mock'
      ? 'profile mock needs --base-url (TTS_CONFORMANCE_BASE_URL) or a fixtures file'
      : 'no fixtures file: pass --fixtures <path> or set TTS_CONFORMANCE_FIXTURES (see conformance/README.md for its shape)',
  );
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

const BASE_URL_OPTION = '--base-url (TTS_CONFORMANCE_BASE_URL)';
const VOICES_URL_OPTION = '--voices-url (TTS_CONFORMANCE_VOICES_URL)';

/**
 * Every rule sends to these URLs: one that is not an absolute http(s) URL would break each rule the
 * same way, so it is refused up front, naming where it came from.
 */
/** True for an absolute http:// or https:// URL with a host. */
export function isHttpUrl(value: string): boolean {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

function checkUrl(value: string, where: string): string {
  if (!isHttpUrl(value)) throw new FixturesError(`${where} must be an absolute http:// or https:// URL, got ${JSON.stringify(value)}`);
  return value;
}
