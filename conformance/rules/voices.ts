import { CURATED_VOICES } from '../../src/contract/voices.js';
import { VOICES_PATH } from '../../src/contract/limits.js';
import { must, mustJson, mustStatus, skip } from '../assertions.js';
import { describe } from '../exchange.js';
import type { Rule } from '../rule.js';

export const voiceRules: Rule[] = [
  {
    id: 'voices.catalog-public',
    title: 'The voice catalog is public (no key) and lists the curated voices of §4.4 among its voices',
    section: '§4.3, §4.4',
    mockSkip: 'the mock serves only the curated voices of its example',
    async full(ctx) {
      const voicesUrl = ctx.target.voicesUrl;
      if (!voicesUrl) skip('fixture', 'the fixtures file has no voices_url');
      const exchange = await ctx.send({ method: 'GET', url: VOICES_PATH, base: voicesUrl.replace(/\/+$/, ''), label: 'voice catalog, no key' });
      mustStatus(exchange, 200);
      const body = mustJson(exchange);
      const voices: unknown[] = Array.isArray(body.voices) ? body.voices : Array.isArray(body) ? body : [];
      const ids = new Set(voices.map((v) => (v && typeof v === 'object' ? (v as { id?: unknown }).id : undefined)).filter((id): id is string => typeof id === 'string'));
      // §4.3 describes the production catalog (more than 300 voices); a deployment lists what it can
      // speak, which may be fewer, so the count is reported rather than required.
      if (ids.size <= 300) ctx.note(`${ids.size} voices listed; docs/api-rules.md#voice-catalog describes a catalog of more than 300`);
      const missing = CURATED_VOICES.map((v) => v.id).filter((id) => !ids.has(id));
      must(missing.length === 0, `${describe(exchange)}: curated voices missing from the catalog: ${missing.join(', ')}`);
    },
  },
];
