import type { ErrorCode } from '../src/contract/errors.js';
import type { Extension } from './extensions.js';
import type { RuleContext } from './rule-context.js';
import type { Profile } from './settings.js';

export type RuleBody = (ctx: RuleContext) => Promise<void>;

/**
 * One entry of the rule catalog. `full` checks any deployment; `mock`, when present, checks the same
 * rule against a stateless mock (Prism's named examples). A rule without `mock` is skipped under the
 * mock profile with `mockSkip` as its reason.
 */
export interface Rule {
  /** Stable id, `<group>.<name>`; reports, --only and --skip use it. */
  id: string;
  title: string;
  /** Where the rule comes from: a section of the API, or the OpenAPI document for decisions it records. */
  section: string;
  /** Error codes and HTTP statuses whose answers this rule provokes and checks. */
  covers?: { codes?: ErrorCode[]; statuses?: number[] };
  /** `final` rules also judge every exchange the other rules recorded, so they run last. */
  phase?: 'main' | 'final';
  /** An extension beyond the base API that the rule checks (extensions.ts): left out of a run with --extensions none. */
  extension?: Extension;
  full: RuleBody;
  mock?: RuleBody;
  mockSkip?: string;
}

export function profilesOf(rule: Rule): Profile[] {
  return rule.mock ? ['full', 'mock'] : ['full'];
}
