import type { UsageFigures, UsageRepository } from '../../ports/index.js';
import type { SqlStatement } from '../sqlite-driver.js';
import { ReadCache, type Row, type SqliteConnection } from './connection.js';

/** The statements on the `usage` table (settled and reserved, per account and month) that jobs run in their own transactions. */
export interface UsageLedger {
  /** (account, month) → settled_cm, reserved_cm. */
  get: SqlStatement;
  /** Creates the month's row at zero unless it exists. */
  ensure: SqlStatement;
  /** Adds a job's reservation: (centiminutes, account, month). */
  reserve: SqlStatement;
  /** Gives back a reservation and adds what was charged: (reserved, charged, account, month). */
  settle: SqlStatement;
}

export function usageLedger({ prepare }: SqliteConnection): UsageLedger {
  return {
    get: prepare('SELECT settled_cm, reserved_cm FROM usage WHERE account_id = ? AND month = ?'),
    ensure: prepare('INSERT OR IGNORE INTO usage (account_id, month) VALUES (?, ?)'),
    reserve: prepare('UPDATE usage SET reserved_cm = reserved_cm + ? WHERE account_id = ? AND month = ?'),
    settle: prepare('UPDATE usage SET reserved_cm = MAX(0, reserved_cm - ?), settled_cm = settled_cm + ? WHERE account_id = ? AND month = ?'),
  };
}

/** Monthly usage, read through the cache (every submission reads it) and set by administration. */
export function sqliteUsage({ prepare, cache }: SqliteConnection, ledger: UsageLedger): UsageRepository {
  const set = prepare(
    `INSERT INTO usage (account_id, month, settled_cm) VALUES (?, ?, ?)
     ON CONFLICT (account_id, month) DO UPDATE SET settled_cm = excluded.settled_cm`,
  );
  const usage = cache.map<string, UsageFigures>();

  return {
    async getUsage(accountId, month) {
      cache.fresh();
      const name = `${accountId} ${month}`;
      const cached = usage.get(name);
      if (cached) return { ...cached };
      const row = ledger.get.get(accountId, month) as Row | undefined;
      const figures = { usedCentiminutes: row ? (row.settled_cm as number) + (row.reserved_cm as number) : 0 };
      ReadCache.remember(usage, name, figures);
      return { ...figures };
    },

    async setUsage(accountId, month, usedCentiminutes) {
      set.run(accountId, month, usedCentiminutes);
    },
  };
}
