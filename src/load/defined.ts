/**
 * The value, or an Error naming what was missing: for values the tool itself guarantees (the first of
 * a list it built, a key's own counters), where a `!` would have turned a broken guarantee into a
 * TypeError far from its cause.
 */
export function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is missing`);
  return value;
}
