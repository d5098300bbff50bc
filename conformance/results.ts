import type { Exchange } from './exchange.js';
import type { Outcome, SkipKind } from './outcome.js';
import type { Basis } from './rule.js';
import type { ExtensionMode, Level, Profile } from './settings.js';

export interface RuleResult {
  id: string;
  title: string;
  section: string;
  basis: Basis;
  /** Whether the outcome counts at the run's level: false for a document rule in a run at --level api (advisory). */
  binding: boolean;
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
  /** What the run certifies (--level): the API, or the API and this project's decisions. */
  level: Level;
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

/** The results that decide the run: every rule but the advisory ones (document rules at --level api). */
const bindingResults = (run: RunResult) => run.rules.filter((r) => r.binding);

/** The advisory results that did not pass: reported, never failing the run. */
export const advisoryProblems = (run: RunResult) => run.rules.filter((r) => !r.binding && (r.outcome === 'fail' || r.outcome === 'error'));

export const isFailing = (run: RunResult) => bindingResults(run).some((r) => r.outcome === 'fail' || r.outcome === 'error');

/** --strict: a certification run must run every binding rule to a verdict; a skip or a disabled one fails it. */
export const failsStrict = (run: RunResult) => bindingResults(run).some((r) => r.outcome === 'skip' || r.outcome === 'disabled');
