import type { Account, ApiKeyRecord, JobRecord } from '../../ports/index.js';

/** An Idempotency-Key's claim: the job that claimed it, when, and whether that job exists yet. */
interface Claim {
  jobId: string;
  claimedAt: number;
  bound: boolean;
}

/** An account's usage in one month: settled and reserved, in hundredths of a minute. */
interface UsageRow {
  settled: number;
  reserved: number;
}

/**
 * Everything the memory store holds, one Map per table of the SQLite schema (sqlite/schema.sql).
 * Records are copied in and out, so no caller shares an object with the store.
 */
export interface MemoryState {
  accounts: Map<string, Account>;
  keys: Map<string, ApiKeyRecord>;
  jobs: Map<string, JobRecord>;
  /** `claimName(account, key)` → the claim. */
  claims: Map<string, Claim>;
  /** `usageName(account, month)` → the month's figures. */
  usage: Map<string, UsageRow>;
  sessions: Map<string, { idHash: string; accountId: string; createdAt: number; expiresAt: number }>;
  signInTokens: Map<string, { tokenHash: string; accountId: string; expiresAt: number }>;
}

export function emptyState(): MemoryState {
  return {
    accounts: new Map(),
    keys: new Map(),
    jobs: new Map(),
    claims: new Map(),
    usage: new Map(),
    sessions: new Map(),
    signInTokens: new Map(),
  };
}

export const claimName = (accountId: string, key: string): string => `${accountId}\u0000${key}`;
export const usageName = (accountId: string, month: string): string => `${accountId}\u0000${month}`;

/** A copy of a flat record without its absent (undefined) fields, as SQLite reads back NULL. */
export function copy<T extends object>(record: T): T {
  const out = {} as T;
  for (const [k, v] of Object.entries(record)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** Compares by the first key, then the second (ascending), as an ORDER BY of two columns. */
export function byTwo<T>(first: (t: T) => number, second: (t: T) => string): (a: T, b: T) => number {
  return (a, b) => first(a) - first(b) || (second(a) < second(b) ? -1 : second(a) > second(b) ? 1 : 0);
}

/** Gives back a reservation and adds a charge to the month's usage, if it has a row (as sqlite/usage.ts's `settle`). */
export function settleUsage(state: MemoryState, accountId: string, month: string, reserved: number, charged: number): void {
  const row = state.usage.get(usageName(accountId, month));
  if (!row) return;
  row.reserved = Math.max(0, row.reserved - reserved);
  row.settled += charged;
}
