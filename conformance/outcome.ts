/**
 * Outcomes of a rule, as in the OCI distribution conformance suite: pass, fail (the deployment broke
 * the rule), skip (the rule could not apply: a fixture is missing, the deployment does not offer the
 * feature, or the profile excludes it), error (the suite itself could not finish the rule, e.g. the
 * network failed or the suite threw), disabled (excluded by --only / --skip).
 */
export type Outcome = 'pass' | 'fail' | 'skip' | 'error' | 'disabled';
export type SkipKind = 'fixture' | 'feature' | 'profile';

export class RuleFailure extends Error {
  override name = 'RuleFailure';
  /** How to reproduce the failure, when the rule can say (the generated rules: the seed, and the smallest failing request as curl). */
  constructor(
    message: string,
    readonly reproduction?: string,
  ) {
    super(message);
  }
}

export class RuleSkip extends Error {
  override name = 'RuleSkip';
  constructor(
    readonly kind: SkipKind,
    reason: string,
  ) {
    super(reason);
  }
}

/** A network failure or timeout: the suite saw no answer, so it cannot judge the rule. */
export class SuiteError extends Error {
  override name = 'SuiteError';
}
