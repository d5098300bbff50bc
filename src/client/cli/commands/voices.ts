import { parseArgs } from 'node:util';
import type { CatalogVoice } from '../../types.js';
import { commandConfig, usageOnError } from '../args.js';
import { adviseOnUrl, clientOf, progressOf, settingsOf, type CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { EXIT, type ExitCode } from '../exit-codes.js';

const OPTIONS = {
  language: { type: 'string' },
  gender: { type: 'string' },
  family: { type: 'string' },
  curated: { type: 'boolean' },
} as const;

export interface VoiceFilter {
  language?: string;
  gender?: string;
  family?: string;
  curated?: boolean;
}

/** `en` matches `en`, `en-US` and `en-GB`; `en-US` matches only itself (case-insensitive). */
export function speaksLanguage(voice: CatalogVoice, language: string): boolean {
  const want = language.toLowerCase();
  return voice.languages.some((tag) => {
    const have = tag.toLowerCase();
    return have === want || have.startsWith(`${want}-`);
  });
}

export function filterVoices(voices: CatalogVoice[], filter: VoiceFilter): CatalogVoice[] {
  return voices.filter(
    (v) =>
      (filter.language === undefined || speaksLanguage(v, filter.language)) &&
      (filter.gender === undefined || v.gender === filter.gender) &&
      (filter.family === undefined || v.family === filter.family) &&
      (!filter.curated || v.curated),
  );
}

function table(voices: CatalogVoice[]): string[] {
  // Supertonic voices speak 31 languages: a short form keeps the table readable (--json has them all).
  const languages = (v: CatalogVoice) =>
    v.languages.length > 4 ? `${v.languages.slice(0, 3).join(',')} +${v.languages.length - 3} more` : v.languages.join(',');
  const rows = voices.map((v) => [`${v.curated ? '*' : ' '} ${v.id}`, v.gender, v.family, languages(v), v.name]);
  const header = ['  ID', 'GENDER', 'FAMILY', 'LANGUAGES', 'NAME'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  return [header, ...rows].map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '));
}

export async function voicesCommand(ctx: CliContext, args: string[]): Promise<ExitCode> {
  const { values, positionals } = usageOnError('voices', () => parseArgs(commandConfig(args, OPTIONS)));
  if (positionals.length > 0) throw usageError(`Unexpected argument "${positionals[0]}"`, 'voices');
  const gender = values.gender?.toLowerCase();
  if (gender !== undefined && gender !== 'female' && gender !== 'male') {
    throw usageError(`--gender must be female or male, got "${values.gender}"`, 'voices');
  }
  const family = values.family?.toLowerCase();
  if (family !== undefined && family !== 'supertonic' && family !== 'kokoro') {
    throw usageError(`--family must be supertonic or kokoro, got "${values.family}"`, 'voices');
  }
  const settings = await settingsOf(ctx);
  const client = clientOf(ctx, settings, progressOf(ctx));
  const catalog = await client
    .listVoices({ signal: ctx.signal })
    .catch((error: unknown) => adviseOnUrl(error, settings.voicesUrl, '--voices-url', 'voices_url'));
  const voices = filterVoices(catalog.voices, { language: values.language, gender, family, curated: values.curated });

  if (ctx.output.json) {
    ctx.output.emitJson({ ok: true, count: voices.length, voices });
    return EXIT.OK;
  }
  if (voices.length === 0) {
    ctx.output.err(`No voices match (the catalog has ${catalog.voices.length}).`);
    return EXIT.OK;
  }
  for (const line of table(voices)) ctx.output.out(line);
  ctx.output.err(`${voices.length} of ${catalog.voices.length} voices (* curated). Source: ${settings.voicesUrl.value}/api/v1/voices`);
  return EXIT.OK;
}
