import type { SessionRepository } from '../../ports/index.js';
import type { Row, SqliteConnection } from './connection.js';

/**
 * Dashboard sessions (`sessions`) and one-time sign-in tokens (`sign_in_tokens`), both by the SHA-256
 * of their secret; expired ones are deleted as new ones are made or taken.
 */
export function sqliteSessions({ db, prepare }: SqliteConnection): SessionRepository {
  const stmts = {
    insertSession: prepare('INSERT INTO sessions (id_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)'),
    getSession: prepare('SELECT * FROM sessions WHERE id_hash = ? AND expires_at > ?'),
    deleteSession: prepare('DELETE FROM sessions WHERE id_hash = ?'),
    deleteExpiredSessions: prepare('DELETE FROM sessions WHERE expires_at <= ?'),
    insertToken: prepare('INSERT INTO sign_in_tokens (token_hash, account_id, expires_at) VALUES (?, ?, ?)'),
    takeToken: prepare('DELETE FROM sign_in_tokens WHERE token_hash = ? RETURNING account_id, expires_at'),
    deleteExpiredTokens: prepare('DELETE FROM sign_in_tokens WHERE expires_at <= ?'),
  };

  return {
    async createSession(session) {
      stmts.deleteExpiredSessions.run(session.createdAt);
      stmts.insertSession.run(session.idHash, session.accountId, session.createdAt, session.expiresAt);
    },

    async getSession(idHash, now) {
      const r = stmts.getSession.get(idHash, now) as Row | undefined;
      return r
        ? { idHash: r.id_hash as string, accountId: r.account_id as string, createdAt: r.created_at as number, expiresAt: r.expires_at as number }
        : undefined;
    },

    async deleteSession(idHash) {
      stmts.deleteSession.run(idHash);
    },

    async createSignInToken(token) {
      stmts.insertToken.run(token.tokenHash, token.accountId, token.expiresAt);
    },

    async consumeSignInToken(tokenHash, now) {
      return db.immediate((): string | undefined => {
        stmts.deleteExpiredTokens.run(now);
        const r = stmts.takeToken.get(tokenHash) as Row | undefined;
        return r && (r.expires_at as number) > now ? (r.account_id as string) : undefined;
      });
    },
  };
}
