/**
 * `--only` / `--skip` patterns: a rule id, or a glob where `*` matches any run of characters
 * (`auth.*`, `*.retry-*`) and `?` one character.
 */
export function globToRegExp(glob: string): RegExp {
  const source = glob
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

function selects(patterns: readonly string[], id: string): boolean {
  return patterns.some((p) => globToRegExp(p).test(id));
}

/** Why a rule is disabled by the settings, or undefined when it runs. */
export function disabledReason(id: string, only: readonly string[], skip: readonly string[]): string | undefined {
  if (only.length > 0 && !selects(only, id)) return `not selected by --only ${only.join(',')}`;
  if (selects(skip, id)) return `disabled by --skip ${skip.join(',')}`;
  return undefined;
}

/** The patterns that match none of these rule ids: a typo would otherwise silently select nothing. */
export function unmatchedPatterns(patterns: readonly string[], ids: readonly string[]): string[] {
  return patterns.filter((p) => !ids.some((id) => globToRegExp(p).test(id)));
}
