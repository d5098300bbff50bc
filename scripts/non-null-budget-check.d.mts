/** The counts of `after` above those of `before`, as "kind: before → after" (a kind new in `after` counts from 0). */
export function risenBudgets(before: Record<string, number>, after: Record<string, number>): string[];
