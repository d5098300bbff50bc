import type { ConformanceFixturesT } from '../src/contract/fixtures.js';
import { redactKeys } from '../src/contract/limits.js';

/** Every full API key named by the fixtures file. */
export function secretsOf(fixtures: ConformanceFixturesT): string[] {
  const keys = fixtures.keys;
  return [
    ...keys.active,
    keys.revoked,
    keys.inactive_subscription,
    keys.no_api_access,
    keys.usage_exhausted,
    fixtures.legacy_expired_job?.key,
    ...(keys.acceptance ?? []),
    fixtures.failed_job?.key,
    fixtures.expired_audio?.key,
  ].filter((key): key is string => typeof key === 'string');
}

/**
 * Turns every API key into its display form `tts_<public_id>` (docs/api-rules.md#keys). Known keys are replaced
 * exactly; the pattern pass also catches keys the suite made up (e.g. an unknown key) and any a
 * server might echo back in another form of the same shape.
 */
export class Redactor {
  private readonly secrets: string[];

  constructor(secrets: readonly string[]) {
    // Longest first, so a key that is a prefix of another cannot leave a tail behind.
    this.secrets = [...new Set(secrets)].sort((a, b) => b.length - a.length);
  }

  text(input: string): string {
    let out = input;
    for (const secret of this.secrets) {
      if (out.includes(secret)) out = out.split(secret).join(displayKey(secret));
    }
    return redactKeys(out);
  }
}

/** `tts_<public_id>_<secret>` → `tts_<public_id>`; anything else keeps only its first 12 characters. */
export function displayKey(key: string): string {
  const match = /^(tts_[0-9a-fA-F]{8})_/.exec(key);
  return match?.[1] ?? `${key.slice(0, 12)}…`;
}
