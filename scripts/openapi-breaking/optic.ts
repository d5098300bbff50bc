// Optic's `breaking-changes` ruleset, used as a library (its `diff --json` output carries no rule results).
import { createRequire } from 'node:module';
import type { Finding, JsonObject } from './document.js';

interface OpticResult {
  name: string;
  where: string;
  error?: string;
  passed: boolean;
  location: { jsonPath: string; spec?: 'before' | 'after' };
}
interface OpticParseResult {
  jsonLike: JsonObject;
}
interface OpticModules {
  loadSpec(ref: string, config: object, options: { strict: boolean; denormalize: boolean }): Promise<OpticParseResult>;
  compute(
    files: [OpticParseResult, OpticParseResult],
    config: object,
    options: { check: boolean; path: string | null },
  ): Promise<{ specResults: { results: OpticResult[] } }>;
}

let optic: OpticModules | undefined;

function loadOptic(): OpticModules {
  if (optic) return optic;
  // Optic's CLI reports telemetry (Segment, Sentry) and checks for updates. Those live in its CLI
  // entry point, which is not loaded here; these switch them off should a module start them anyway.
  process.env.OPTIC_TELEMETRY_LEVEL = 'off';
  process.env.NO_UPDATE_NOTIFIER = '1';
  const require = createRequire(import.meta.url);
  // @useoptic/optic is pinned in package.json; its build has no `exports` map, so these are its modules.
  const { loadSpec } = require('@useoptic/optic/build/utils/spec-loaders.js') as Pick<OpticModules, 'loadSpec'>;
  const { compute } = require('@useoptic/optic/build/commands/diff/compute.js') as Pick<OpticModules, 'compute'>;
  optic = { loadSpec, compute };
  return optic;
}

/** The breaking-changes ruleset, also when info.version changes (ours is a date label, not semver). */
const OPTIC_CONFIG = {
  isInCi: false,
  ruleset: [{ name: 'breaking-changes', config: { skip_when_major_version_changes: false } }],
};

export async function opticFindings(basePath: string, headPath: string): Promise<Finding[]> {
  const { loadSpec, compute } = loadOptic();
  const base = await loadSpec(basePath, OPTIC_CONFIG, { strict: false, denormalize: true });
  const head = await loadSpec(headPath, OPTIC_CONFIG, { strict: true, denormalize: true });
  // A document can name its own Optic standard (x-optic-standard), which would replace the ruleset above.
  delete base.jsonLike['x-optic-standard'];
  delete head.jsonLike['x-optic-standard'];
  const { specResults } = await compute([base, head], OPTIC_CONFIG, { check: true, path: headPath });
  return specResults.results
    .filter((result) => !result.passed)
    .map((result) => ({
      rule: result.name,
      where: result.where,
      path: result.location.jsonPath,
      message: result.error ?? 'breaking change',
      source: 'optic' as const,
    }));
}
