import type { Exchange } from './exchange.js';
import type { Outcome, SkipKind } from './outcome.js';
import type { ExtensionMode, Profile } from './settings.js';

export interface RuleResult {
  id: string;
  title: string;
  section: string;
  profiles: Profile[];
  outcome: Outcome;
  /** Why it failed, errored, was skipped or disabled. */
  message?: string;
  skipKind?: SkipKind;
  durationMs: number;
  notes: string[];
  /** Sequence numbers of the exchanges behind the result. */
  exchanges: number[];
  /** For a failed generated rule: the seed to run it again with, and the smallest failing request as curl. */
  reproduction?: string;
}

export interface RunResult {
  suite: 'agent-tts-conformance';
  startedAt: string;
  durationMs: number;
  profile: Profile;
  /** How the run treated the extensions beyond the base API (--extensions). */
  extensions: ExtensionMode;
  target: { baseUrl: string; voicesUrl?: string; fixtures: string };
  /** The deployment's test clock, when the run moved it instead of waiting, and by how much. */
  clock?: { url: string; advancedSeconds: number };
  counts: Record<Outcome, number>;
  rules: RuleResult[];
  exchanges: Exchange[];
}

export function countOutcomes(rules: RuleResult[]): Record<Outcome, number> {
  const counts = { pass: 0, fail: 0, error: 0, skip: 0, disabled: 0 };
  for (const r of rules) counts[r.outcome]++;
  return counts;
}

export const isFailing = (run: RunResult) => run.counts.fail > 0 || run.counts.error > 0;

/** --strict: a certification run must run every rule to a verdict; a skip or a disabled rule fails it. */
export const failsStrict = (run: RunResult) => run.counts.skip > 0 || run.counts.disabled > 0;
