import { API_PATH, VOICES_PATH } from '../../src/contract/limits.js';
import { CURATED_VOICES, KOKORO_VOICE_PATTERN } from '../../src/contract/voices.js';
import { must, mustError, mustJson, mustStatus, skip } from '../assertions.js';
import { type Exchange, describe } from '../exchange.js';
import type { Rule } from '../rule.js';
import type { RuleContext } from '../rule-context.js';
import { SHORT_TEXT } from '../scenarios.js';

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
  {
    id: 'voices.unlisted-refused',
    title:
      "A voice id of the right form that the deployment's voice catalog does not list (a typo) is refused at submission with 400 INVALID_REQUEST, not spoken in another voice and charged",
    section: '§2.3, §4.3 (decided in the OpenAPI document: a deployment that publishes a catalog offers the voices it lists)',
    covers: { codes: ['INVALID_REQUEST'], statuses: [400] },
    mockSkip: "the mock checks a voice against the document's pattern only: it has no catalog of its own",
    async full(ctx) {
      const voicesUrl = ctx.target.voicesUrl;
      // Without a catalog the deployment has not said which voices it offers: nothing to hold it to.
      if (!voicesUrl)
        skip(
          'feature',
          'the deployment publishes no voice catalog (no voices_url in the fixtures file or --voices-url), so which voices it offers is not known',
        );
      const catalog = await fetchCatalog(ctx, voicesUrl);
      if (catalog.response?.status === 404) skip('feature', `${describe(catalog)}: the deployment publishes no voice catalog at ${VOICES_PATH}`);
      mustStatus(catalog, 200);
      const listed = listedIds(catalog);
      if (listed.size === 0) skip('feature', `${describe(catalog)}: the catalog lists no voice ids`);
      const voice = unlistedVoiceId(listed);
      // A refused request takes no POST quota (OpenAPI submitTts), so this need not wait for the bucket.
      const [key] = await ctx.lease({ fresh: 'get' });
      const refused = await ctx.send({
        method: 'POST',
        url: API_PATH,
        key,
        json: { text: SHORT_TEXT, voice },
        throttle: false,
        label: `voice ${voice}, which the catalog does not list`,
      });
      const body = mustError(refused, 'INVALID_REQUEST');
      must(
        body.job_id === undefined && body.error?.details?.job_id === undefined,
        `${describe(refused)}: the refusal names a job: a refused submission creates none`,
      );
      if (typeof body.error?.message === 'string' && !body.error.message.includes(voice)) {
        ctx.note(`the message does not name the voice ${voice}: ${JSON.stringify(body.error.message)}`);
      }
    },
  },
];
