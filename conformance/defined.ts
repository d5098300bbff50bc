/**
 * The value, or an Error naming what was missing: for values the suite itself guarantees (a lease's
 * key, the first of a list it built), where a `!` would have turned a broken guarantee into a
 * TypeError far from its cause. What a server answers is checked with the assertions instead, so that
 * a missing field fails the rule rather than breaking the suite.
 */
export function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is missing`);
  return value;
}
