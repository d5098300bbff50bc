import type { Account, AccountRepository } from '../../ports/index.js';
import type { SqlStatement } from '../sqlite-driver.js';
import { ReadCache, type Row, type SqliteConnection } from './connection.js';

function toAccount(r: Row): Account {
  return {
    id: r.id as string,
    name: r.name as string,
    plan: r.plan as Account['plan'],
    subscription: r.subscription as Account['subscription'],
    createdAt: r.created_at as number,
  };
}

const UPDATABLE = ['name', 'plan', 'subscription'];

/** Accounts in the `accounts` table, read through the cache (every authenticated request reads one). */
export function sqliteAccounts({ prepare, cache }: SqliteConnection): AccountRepository {
  const stmts = {
    insert: prepare('INSERT INTO accounts (id, name, plan, subscription, created_at) VALUES (@id, @name, @plan, @subscription, @created_at)'),
    get: prepare('SELECT * FROM accounts WHERE id = ?'),
    list: prepare('SELECT * FROM accounts ORDER BY created_at, id'),
  };
  const accounts = cache.map<string, Account | undefined>();
  /** Account updates by the set of fields they change, prepared once each. */
  const updates = new Map<string, SqlStatement>();

  const getAccount = async (id: string): Promise<Account | undefined> => {
    cache.fresh();
    if (accounts.has(id)) return accounts.get(id);
    const row = stmts.get.get(id) as Row | undefined;
    return ReadCache.remember(accounts, id, row && toAccount(row));
  };

  return {
    async createAccount(a) {
      stmts.insert.run({ id: a.id, name: a.name, plan: a.plan, subscription: a.subscription, created_at: a.createdAt });
    },

    getAccount,

    async updateAccount(id, patch) {
      const sets = Object.keys(patch).filter((k) => UPDATABLE.includes(k));
      if (sets.length === 0) return (await getAccount(id)) !== undefined;
      const sql = `UPDATE accounts SET ${sets.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`;
      let stmt = updates.get(sql);
      if (!stmt) {
        stmt = prepare(sql);
        updates.set(sql, stmt);
      }
      const params: Record<string, unknown> = { id };
      for (const k of sets) params[k] = patch[k as keyof typeof patch];
      return stmt.run(params).changes > 0;
    },

    async listAccounts() {
      return (stmts.list.all() as Row[]).map(toAccount);
    },
  };
}
