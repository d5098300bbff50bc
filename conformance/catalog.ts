import type { Rule } from './rule.js';
import { basisLabel, profilesOf } from './rule.js';
import { acceptanceRules } from './rules/acceptance.js';
import { audioRules } from './rules/audio.js';
import { audioRefusalRules } from './rules/audio-refusals.js';
import { authRules } from './rules/auth.js';
import { corsRules } from './rules/cors.js';
import { errorRules } from './rules/errors.js';
import { figureRules } from './rules/figures.js';
import { idempotencyRules } from './rules/idempotency.js';
import { jobRules } from './rules/jobs.js';
import { legacyRules } from './rules/legacy.js';
import { metaRules } from './rules/meta.js';
import { notFoundRules } from './rules/not-found.js';
import { openApiRules } from './rules/openapi.js';
import { rateLimitRules } from './rules/rate-limit.js';
import { streamRules } from './rules/stream.js';
import { submitRules } from './rules/submit.js';
import { timingsRules } from './rules/timings.js';
import { timingsPromiseRules } from './rules/timings-promises.js';
import { timingsUrlRules } from './rules/timings-urls.js';
import { usageRules } from './rules/usage.js';
import { voiceRules } from './rules/voices.js';
import { generatedRules } from './generated/rules.js';

/**
 * The rule catalog, in start order: the job path (a long job) and the rules that wait out a
 * rate-limit window come first, because they set the length of a run.
 */
export const CATALOG: readonly Rule[] = [
  ...submitRules,
  ...acceptanceRules,
  ...rateLimitRules,
  ...idempotencyRules,
  ...usageRules,
  ...jobRules,
  ...audioRules,
  ...audioRefusalRules,
  ...timingsRules,
  ...timingsPromiseRules,
  ...timingsUrlRules,
  ...streamRules,
  ...authRules,
  ...notFoundRules,
  ...legacyRules,
  ...corsRules,
  ...voiceRules,
  ...errorRules,
  ...metaRules,
  ...openApiRules,
  ...figureRules,
  ...generatedRules,
];

/** The catalog as data, for --list, the README and results.json. */
export function catalogEntries() {
  return CATALOG.map((rule) => ({
    id: rule.id,
    title: rule.title,
    section: rule.section,
    basis: rule.basis,
    basisLabel: basisLabel(rule.basis, rule.section),
    profiles: profilesOf(rule),
    covers: rule.covers ?? {},
  }));
}
