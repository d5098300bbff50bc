import { VOICES_PATH } from '../../src/contract/limits.js';
import { CURATED_VOICES, KOKORO_VOICE_PATTERN } from '../../src/contract/voices.js';
import { must, mustJson, mustStatus, skip } from '../assertions.js';
import { type Exchange, describe } from '../exchange.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';

/** The ids a catalog answer lists (the reference's `{voices: [{id}]}`, or a bare array of voices). */
function listedIds(exchange: Exchange): Set<string> {
  const body = mustJson(exchange);
  const voices: unknown[] = Array.isArray(body.voices) ? body.voices : Array.isArray(body) ? body : [];
  return new Set(voices.map((v) => (v && typeof v === 'object' ? (v as { id?: unknown }).id : undefined)).filter((id): id is string => typeof id === 'string'));
}

/** GET {voices_url}/api/v1/voices, without a key. */
function fetchCatalog(ctx: RuleContext, voicesUrl: string): Promise<Exchange> {
  return ctx.send({ method: 'GET', url: VOICES_PATH, base: voicesUrl.replace(/\/+$/, ''), label: 'voice catalog, no key' });
}

/** The ids of the deployment's voice catalog, when it publishes one (empty otherwise). */
export async function catalogIds(ctx: RuleContext): Promise<Set<string>> {
  const voicesUrl = ctx.target.voicesUrl;
  if (!voicesUrl) return new Set();
  const catalog = await fetchCatalog(ctx, voicesUrl);
  return catalog.response?.status === 200 ? listedIds(catalog) : new Set();
}

/**
 * A voice id of the right form that `listed` does not hold: a made-up name with the language and
 * gender letters of a listed Kokoro-style voice (`af_nobody` on the reference), so that only the
 * catalog, not the form, can refuse it.
 */
export function unlistedVoiceId(listed: ReadonlySet<string>): string {
  const kokoro = [...listed].find((id) => KOKORO_VOICE_PATTERN.test(id));
  const prefix = kokoro ? kokoro.slice(0, 3) : 'af_';
  for (let n = 0; ; n++) {
    const id = `${prefix}nobody${n === 0 ? '' : n}`;
    if (!listed.has(id)) return id;
  }
}

export const voiceRules: Rule[] = [
  {
    id: 'voices.catalog-public',
    title: 'The voice catalog is public (no key) and lists the curated voices of §4.4 among its voices',
    section: '§4.3, §4.4',
    basis: { kind: 'api' },
    mockSkip: 'the mock serves only the curated voices of its example',
    async full(ctx) {
      const voicesUrl = ctx.target.voicesUrl;
      if (!voicesUrl) skip('fixture', 'the fixtures file has no voices_url');
      const exchange = await fetchCatalog(ctx, voicesUrl);
      mustStatus(exchange, 200);
      const ids = listedIds(exchange);
      // §4.3 describes the production catalog (more than 300 voices); a deployment lists what it can
      // speak, which may be fewer, so the count is reported rather than required.
      if (ids.size <= 300) ctx.note(`${ids.size} voices listed; docs/api-rules.md#voice-catalog describes a catalog of more than 300`);
      const missing = CURATED_VOICES.map((v) => v.id).filter((id) => !ids.has(id));
      must(missing.length === 0, `${describe(exchange)}: curated voices missing from the catalog: ${missing.join(', ')}`);
    },
  },
];
