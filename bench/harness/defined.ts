/**
 * The value, or an Error naming what was missing: for values a benchmark itself guarantees (the
 * figures of a side it measured, the first of the rounds it ran), where a `!` would have turned a
 * broken guarantee into a TypeError far from its cause.
 */
export function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is missing`);
  return value;
}
