import type { ClaimResult, IdempotencyRepository } from '../../ports/index.js';
import type { SqlStatement } from '../sqlite-driver.js';
import type { Row, SqliteConnection } from './connection.js';

/** The statements on the `idempotency` table (an account's Idempotency-Key → the job that claimed it). */
export interface IdempotencyClaims {
  get: SqlStatement;
  insert: SqlStatement;
  replace: SqlStatement;
  release: SqlStatement;
  /** Marks the claim as having its job (run when the job is created): (account, key, job). */
  bind: SqlStatement;
  /** Deletes the claim of a job (run when the job is deleted): (account, key, job). */
  deleteOf: SqlStatement;
}

export function idempotencyClaims({ prepare }: SqliteConnection): IdempotencyClaims {
  return {
    get: prepare('SELECT * FROM idempotency WHERE account_id = ? AND idem_key = ?'),
    insert: prepare('INSERT INTO idempotency (account_id, idem_key, job_id, claimed_at, bound) VALUES (?, ?, ?, ?, 0)'),
    replace: prepare('UPDATE idempotency SET job_id = ?, claimed_at = ?, bound = 0 WHERE account_id = ? AND idem_key = ?'),
    release: prepare('DELETE FROM idempotency WHERE account_id = ? AND idem_key = ? AND job_id = ? AND bound = 0'),
    bind: prepare('UPDATE idempotency SET bound = 1 WHERE account_id = ? AND idem_key = ? AND job_id = ?'),
    deleteOf: prepare('DELETE FROM idempotency WHERE account_id = ? AND idem_key = ? AND job_id = ?'),
  };
}

/** Idempotency-Keys claimed by requests before their jobs exist, each claim checked and taken in one transaction. */
export function sqliteIdempotency({ db }: SqliteConnection, claims: IdempotencyClaims): IdempotencyRepository {
  return {
    async claimIdempotencyKey(accountId, key, jobId, now, staleAfterMs) {
      return db.immediate((): ClaimResult => {
        const row = claims.get.get(accountId, key) as Row | undefined;
        if (!row) {
          claims.insert.run(accountId, key, jobId, now);
          return { kind: 'claimed' };
        }
        if (row.bound) return { kind: 'existing', jobId: row.job_id as string };
        if (now - (row.claimed_at as number) > staleAfterMs) {
          claims.replace.run(jobId, now, accountId, key);
          return { kind: 'claimed' };
        }
        return { kind: 'pending' };
      });
    },

    async releaseIdempotencyKey(accountId, key, jobId) {
      claims.release.run(accountId, key, jobId);
    },
  };
}
