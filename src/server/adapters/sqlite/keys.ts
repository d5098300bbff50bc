import type { ApiKeyRecord, KeyRepository } from '../../ports/index.js';
import { isUniqueViolation } from '../sqlite-driver.js';
import { opt, ReadCache, type Row, type SqliteConnection } from './connection.js';

function toKey(r: Row): ApiKeyRecord {
  return {
    publicId: r.public_id as string,
    accountId: r.account_id as string,
    secretHash: r.secret_hash as string,
    name: r.name as string,
    createdAt: r.created_at as number,
    lastUsedAt: opt(r.last_used_at),
    callCount: r.call_count as number,
    revokedAt: opt(r.revoked_at),
  };
}

/**
 * API keys in the `api_keys` table, whose unique index keeps one active key per account; read through
 * the cache (every authenticated request reads one).
 */
export function sqliteKeys({ prepare, cache }: SqliteConnection): KeyRepository {
  const stmts = {
    insert: prepare(
      `INSERT INTO api_keys (public_id, account_id, secret_hash, name, created_at, call_count)
       VALUES (@public_id, @account_id, @secret_hash, @name, @created_at, 0)`,
    ),
    get: prepare('SELECT * FROM api_keys WHERE public_id = ?'),
    list: prepare('SELECT * FROM api_keys ORDER BY created_at, public_id'),
    listOf: prepare('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, public_id'),
    rename: prepare('UPDATE api_keys SET name = ? WHERE public_id = ?'),
    revoke: prepare('UPDATE api_keys SET revoked_at = ? WHERE public_id = ? AND revoked_at IS NULL'),
    use: prepare('UPDATE api_keys SET call_count = call_count + ?, last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE public_id = ?'),
  };
  const keys = cache.map<string, ApiKeyRecord | undefined>();

  return {
    async createKey(k) {
      try {
        stmts.insert.run({ public_id: k.publicId, account_id: k.accountId, secret_hash: k.secretHash, name: k.name, created_at: k.createdAt });
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },

    async getKey(publicId) {
      cache.fresh();
      if (keys.has(publicId)) return keys.get(publicId);
      const row = stmts.get.get(publicId) as Row | undefined;
      return ReadCache.remember(keys, publicId, row && toKey(row));
    },

    async listKeys(accountId) {
      const rows = accountId ? stmts.listOf.all(accountId) : stmts.list.all();
      return (rows as Row[]).map(toKey);
    },

    async renameKey(publicId, name) {
      return stmts.rename.run(name, publicId).changes > 0;
    },

    async revokeKey(publicId, at) {
      return stmts.revoke.run(at, publicId).changes > 0;
    },

    async recordKeyUse(publicId, calls, lastUsedAt) {
      stmts.use.run(calls, lastUsedAt, publicId);
    },
  };
}
