/** Settings that cannot describe a run (bad syntax, a value out of range, an unusable target): exit 2. */
export class UsageError extends Error {}
