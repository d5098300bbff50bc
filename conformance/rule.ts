import type { ErrorCode } from '../src/contract/errors.js';
import type { Extension } from './extensions.js';
import type { RuleContext } from './rule-context.js';
import type { Profile } from './settings.js';

export type RuleBody = (ctx: RuleContext) => Promise<void>;

/**
 * What a rule holds a deployment to. `api`: the API itself (`section` gives its § references), binding at
 * every level. `document`: a decision this project made where the API is silent or leaves a detail open,
 * or a departure from it; `decision` is the anchor of that decision in docs/api-rules.md. Binding at
 * `--level document`, advisory at `--level api`. `extension`: an extension beyond the base API (its
 * anchor in docs/api-rules.md), governed by `--extensions`.
 */
export type Basis = { kind: 'api' } | { kind: 'document'; decision: string } | { kind: 'extension'; decision: string };

/** The basis as one line: `api §4.1`, `document docs/api-rules.md#audio-urls`, `extension docs/api-rules.md#…`. */
export function basisLabel(basis: Basis, section: string): string {
  return basis.kind === 'api' ? `api ${section}` : `${basis.kind} docs/api-rules.md#${basis.decision}`;
}

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
  /** Whether the rule checks the API, a decision of docs/api-rules.md, or an extension. */
  basis: Basis;
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
