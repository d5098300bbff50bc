import type { z } from 'zod';

/** A setting that stops the start: the message names the variable, never a secret value (exit code 2). */
export class ConfigError extends Error {}

/**
 * What is wrong with a setting, said for the person who set it (the schema library's own wording,
 * "Invalid input: expected number, received NaN", is for programmers). Messages the settings write
 * themselves (URLs, S3, CORS) pass through unchanged. The value is never repeated: it may be a secret.
 */
function settingProblem(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'int') return 'must be a whole number';
      if (issue.expected === 'number') return 'must be a number';
      return issue.message;
    case 'too_small':
      if (issue.origin === 'string') return issue.minimum === 1 ? 'must not be empty' : `must be at least ${issue.minimum} characters long`;
      return `must be ${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters long`;
      return `must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}`;
    case 'invalid_value':
      return `must be one of: ${issue.values.map(String).join(', ')}`;
    default:
      return issue.message;
  }
}

/**
 * The lines of a refused configuration, one per variable (its first problem: a value that is not a
 * number is not also said to be out of range), in the order of the settings table.
 */
export function settingProblemLines(issues: readonly z.core.$ZodIssue[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const issue of issues) {
    const name = issue.path.join('.');
    if (seen.has(name)) continue;
    seen.add(name);
    lines.push(`  ${name}: ${settingProblem(issue)}`);
  }
  return lines;
}
