import { isUniqueViolation, openSqlite, type SqlDatabase, type SqlStatement, type SqliteDriverName } from './sqlite-driver.js';
import type { Account, ApiKeyRecord, ClaimResult, CreateJobResult, JobRecord, SessionRecord, SignInTokenRecord, Store, UsageFigures } from '../ports/index.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  plan TEXT NOT NULL,
  subscription TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
  public_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  secret_hash TEXT NOT NULL,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  call_count INTEGER NOT NULL DEFAULT 0,
  revoked_at INTEGER
);
-- At most one active key per account (docs/api-rules.md#keys), enforced by the database itself.
CREATE UNIQUE INDEX IF NOT EXISTS api_keys_one_active ON api_keys(account_id) WHERE revoked_at IS NULL;
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  key_public_id TEXT NOT NULL,
  status TEXT NOT NULL,
  text TEXT NOT NULL,
  voice TEXT NOT NULL,
  language TEXT NOT NULL,
  speed REAL NOT NULL,
  created_at INTEGER NOT NULL,
  delete_after INTEGER NOT NULL,
  reserved_cm INTEGER NOT NULL,
  charged_cm INTEGER,
  usage_month TEXT NOT NULL,
  progress REAL NOT NULL DEFAULT 0,
  completed_at INTEGER,
  processing_time_ms INTEGER,
  duration_seconds REAL,
  file_size_bytes INTEGER,
  error_code TEXT,
  error_message TEXT,
  idempotency_key TEXT,
  legacy_expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS jobs_status ON jobs(status);
CREATE INDEX IF NOT EXISTS jobs_delete_after ON jobs(delete_after);
CREATE INDEX IF NOT EXISTS jobs_account_created ON jobs(account_id, created_at);
CREATE TABLE IF NOT EXISTS sessions (
  id_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sign_in_tokens (
  token_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS idempotency (
  account_id TEXT NOT NULL,
  idem_key TEXT NOT NULL,
  job_id TEXT NOT NULL,
  claimed_at INTEGER NOT NULL,
  bound INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, idem_key)
);
CREATE TABLE IF NOT EXISTS usage (
  account_id TEXT NOT NULL,
  month TEXT NOT NULL,
  settled_cm INTEGER NOT NULL DEFAULT 0,
  reserved_cm INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, month)
);
`;

type Row = Record<string, unknown>;
const CACHE_ENTRIES = 10_000;
const opt = <T>(v: unknown): T | undefined => (v === null || v === undefined ? undefined : (v as T));

function toAccount(r: Row): Account {
  return {
    id: r.id as string,
    name: r.name as string,
    plan: r.plan as Account['plan'],
    subscription: r.subscription as Account['subscription'],
    createdAt: r.created_at as number,
  };
}

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

function toJob(r: Row): JobRecord {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    keyPublicId: r.key_public_id as string,
    status: r.status as JobRecord['status'],
    text: r.text as string,
    voice: r.voice as string,
    language: r.language as string,
    speed: r.speed as number,
    createdAt: r.created_at as number,
    deleteAfter: r.delete_after as number,
    reservedCentiminutes: r.reserved_cm as number,
    chargedCentiminutes: opt(r.charged_cm),
    usageMonth: r.usage_month as string,
    progress: r.progress as number,
    completedAt: opt(r.completed_at),
    processingTimeMs: opt(r.processing_time_ms),
    durationSeconds: opt(r.duration_seconds),
    fileSizeBytes: opt(r.file_size_bytes),
    errorCode: opt(r.error_code),
    errorMessage: opt(r.error_message),
    idempotencyKey: opt(r.idempotency_key),
    legacyExpiresAt: opt(r.legacy_expires_at),
  };
}

function jobParams(job: JobRecord) {
  return {
    id: job.id,
    account_id: job.accountId,
    key_public_id: job.keyPublicId,
    status: job.status,
    text: job.text,
    voice: job.voice,
    language: job.language,
    speed: job.speed,
    created_at: job.createdAt,
    delete_after: job.deleteAfter,
    reserved_cm: job.reservedCentiminutes,
    charged_cm: job.chargedCentiminutes ?? null,
    usage_month: job.usageMonth,
    progress: job.progress,
    completed_at: job.completedAt ?? null,
    processing_time_ms: job.processingTimeMs ?? null,
    duration_seconds: job.durationSeconds ?? null,
    file_size_bytes: job.fileSizeBytes ?? null,
    error_code: job.errorCode ?? null,
    error_message: job.errorMessage ?? null,
    idempotency_key: job.idempotencyKey ?? null,
    legacy_expires_at: job.legacyExpiresAt ?? null,
  };
}

/**
 * The embedded store: one SQLite file (WAL), through this Node's driver (see `sqlite-driver.ts`). Both
 * drivers are synchronous, so each method body runs without interleaving inside this process;
 * multi-step operations are also wrapped in transactions so they stay atomic against other connections
 * to the same file (the admin CLI).
 */
export class SqliteStore implements Store {
  private readonly db: SqlDatabase;
  private readonly stmts;
  /**
   * Records the request path reads on every call (keys, accounts, finished jobs, usage), kept while
   * nothing has written to the database: every write through this connection counts in `writes`, and
   * SQLite's `data_version` changes when another connection (the admin CLI, another process) commits.
   * Both are checked before reads (see `fresh`), so a revocation or a subscription change is seen by
   * the very next request, and a hit costs a Map lookup instead of a query and a row mapping.
   */
  private readonly cache = {
    keys: new Map<string, ApiKeyRecord | undefined>(),
    accounts: new Map<string, Account | undefined>(),
    jobs: new Map<string, JobRecord>(),
    usage: new Map<string, UsageFigures>(),
  };
  private writes = 0;
  private versionReadThisTurn = false;
  private lastDataVersion = -1;
  private readonly endTurn = () => {
    this.versionReadThisTurn = false;
  };
  private seenWrites = -1;
  private seenDataVersion = -1;
  private readonly dataVersion: SqlStatement;
  private readonly pingStmt: SqlStatement;
  /** Account updates by the set of fields they change, prepared once each. */
  private readonly accountUpdates = new Map<string, SqlStatement>();

  /** `driver` picks the SQLite driver (tests); by default this Node's (`defaultSqliteDriver`). */
  constructor(path: string, driver?: SqliteDriverName) {
    this.db = openSqlite(path, { busyTimeoutMs: 5000, driver });
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
    this.db.exec(SCHEMA);
    const db = this.db;
    this.stmts = {
      insertAccount: db.prepare('INSERT INTO accounts (id, name, plan, subscription, created_at) VALUES (@id, @name, @plan, @subscription, @created_at)'),
      getAccount: db.prepare('SELECT * FROM accounts WHERE id = ?'),
      listAccounts: db.prepare('SELECT * FROM accounts ORDER BY created_at, id'),
      insertKey: db.prepare(
        `INSERT INTO api_keys (public_id, account_id, secret_hash, name, created_at, call_count)
         VALUES (@public_id, @account_id, @secret_hash, @name, @created_at, 0)`,
      ),
      getKey: db.prepare('SELECT * FROM api_keys WHERE public_id = ?'),
      listKeys: db.prepare('SELECT * FROM api_keys ORDER BY created_at, public_id'),
      listKeysOf: db.prepare('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, public_id'),
      renameKey: db.prepare('UPDATE api_keys SET name = ? WHERE public_id = ?'),
      revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE public_id = ? AND revoked_at IS NULL'),
      useKey: db.prepare('UPDATE api_keys SET call_count = call_count + ?, last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE public_id = ?'),
      getClaim: db.prepare('SELECT * FROM idempotency WHERE account_id = ? AND idem_key = ?'),
      insertClaim: db.prepare('INSERT INTO idempotency (account_id, idem_key, job_id, claimed_at, bound) VALUES (?, ?, ?, ?, 0)'),
      replaceClaim: db.prepare('UPDATE idempotency SET job_id = ?, claimed_at = ?, bound = 0 WHERE account_id = ? AND idem_key = ?'),
      releaseClaim: db.prepare('DELETE FROM idempotency WHERE account_id = ? AND idem_key = ? AND job_id = ? AND bound = 0'),
      bindClaim: db.prepare('UPDATE idempotency SET bound = 1 WHERE account_id = ? AND idem_key = ? AND job_id = ?'),
      insertJob: db.prepare(
        `INSERT INTO jobs VALUES (@id, @account_id, @key_public_id, @status, @text, @voice, @language, @speed,
          @created_at, @delete_after, @reserved_cm, @charged_cm, @usage_month, @progress, @completed_at,
          @processing_time_ms, @duration_seconds, @file_size_bytes, @error_code, @error_message,
          @idempotency_key, @legacy_expires_at)`,
      ),
      getJob: db.prepare('SELECT * FROM jobs WHERE id = ?'),
      // Only ever raised: a run started again, or a write that arrives late, never lowers what was shown.
      progress: db.prepare("UPDATE jobs SET progress = MAX(progress, ?) WHERE id = ? AND status = 'processing'"),
      complete: db.prepare(
        `UPDATE jobs SET status = 'completed', text = '', progress = 1, duration_seconds = @duration_seconds,
           file_size_bytes = @file_size_bytes, completed_at = @completed_at, processing_time_ms = @processing_time_ms,
           charged_cm = @charged_cm
         WHERE id = @id AND status = 'processing'`,
      ),
      fail: db.prepare(
        `UPDATE jobs SET status = 'failed', text = '', error_code = @error_code, error_message = @error_message,
           completed_at = @completed_at, charged_cm = 0
         WHERE id = @id AND status = 'processing'`,
      ),
      processingIds: db.prepare("SELECT id FROM jobs WHERE status = 'processing' ORDER BY created_at"),
      expiredIds: db.prepare('SELECT id, account_id, idempotency_key, status, reserved_cm, usage_month FROM jobs WHERE delete_after <= ? LIMIT ?'),
      expiredIdsOf: db.prepare(
        'SELECT id, account_id, idempotency_key, status, reserved_cm, usage_month FROM jobs WHERE delete_after <= ? AND account_id IN (SELECT value FROM json_each(?)) LIMIT ?',
      ),
      expiredIdsNotOf: db.prepare(
        'SELECT id, account_id, idempotency_key, status, reserved_cm, usage_month FROM jobs WHERE delete_after <= ? AND account_id NOT IN (SELECT value FROM json_each(?)) LIMIT ?',
      ),
      deleteJob: db.prepare('DELETE FROM jobs WHERE id = ?'),
      deleteClaimOf: db.prepare('DELETE FROM idempotency WHERE account_id = ? AND idem_key = ? AND job_id = ?'),
      recentJobs: db.prepare('SELECT * FROM jobs WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?'),
      insertSession: db.prepare('INSERT INTO sessions (id_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)'),
      getSession: db.prepare('SELECT * FROM sessions WHERE id_hash = ? AND expires_at > ?'),
      deleteSession: db.prepare('DELETE FROM sessions WHERE id_hash = ?'),
      deleteExpiredSessions: db.prepare('DELETE FROM sessions WHERE expires_at <= ?'),
      insertToken: db.prepare('INSERT INTO sign_in_tokens (token_hash, account_id, expires_at) VALUES (?, ?, ?)'),
      takeToken: db.prepare('DELETE FROM sign_in_tokens WHERE token_hash = ? RETURNING account_id, expires_at'),
      deleteExpiredTokens: db.prepare('DELETE FROM sign_in_tokens WHERE expires_at <= ?'),
      getUsage: db.prepare('SELECT settled_cm, reserved_cm FROM usage WHERE account_id = ? AND month = ?'),
      ensureUsage: db.prepare('INSERT OR IGNORE INTO usage (account_id, month) VALUES (?, ?)'),
      reserve: db.prepare('UPDATE usage SET reserved_cm = reserved_cm + ? WHERE account_id = ? AND month = ?'),
      settle: db.prepare('UPDATE usage SET reserved_cm = MAX(0, reserved_cm - ?), settled_cm = settled_cm + ? WHERE account_id = ? AND month = ?'),
      setUsage: db.prepare(
        `INSERT INTO usage (account_id, month, settled_cm) VALUES (?, ?, ?)
         ON CONFLICT (account_id, month) DO UPDATE SET settled_cm = excluded.settled_cm`,
      ),
    };
    // Every statement that writes counts, so no write path can leave a stale record in the cache.
    for (const stmt of Object.values(this.stmts) as SqlStatement[]) {
      const run = stmt.run.bind(stmt);
      stmt.run = (...params: unknown[]) => {
        try {
          return run(...params);
        } finally {
          this.writes++;
        }
      };
    }
    this.dataVersion = db.prepare('PRAGMA data_version');
    this.pingStmt = db.prepare('SELECT 1');
  }

  /**
   * Empties the read cache when anything wrote to the database since it was filled: this process's
   * writes are counted as they happen; another process's (the admin CLI revoking a key) show in
   * `PRAGMA data_version`, read at most once per turn of the event loop. The requests handled in one
   * turn were all received before that turn's first read, so a write committed before a request was
   * sent is seen by that request; reading it once per turn rather than per lookup saves three of a
   * poll's four reads of it.
   */
  private fresh(): SqliteStore['cache'] {
    if (!this.versionReadThisTurn) {
      this.versionReadThisTurn = true;
      setImmediate(this.endTurn);
      this.lastDataVersion = (this.dataVersion.get() as { data_version: number }).data_version;
    }
    const version = this.lastDataVersion;
    if (version !== this.seenDataVersion || this.writes !== this.seenWrites) {
      for (const map of Object.values(this.cache)) map.clear();
      this.seenDataVersion = version;
      this.seenWrites = this.writes;
    }
    return this.cache;
  }

  private static remember<K, V>(map: Map<K, V>, key: K, value: V): V {
    // Bounded: past this many entries start over (a hit rate that matters needs far fewer).
    if (map.size >= CACHE_ENTRIES) map.clear();
    map.set(key, value);
    return value;
  }

  async createAccount(a: Account): Promise<void> {
    this.stmts.insertAccount.run({ id: a.id, name: a.name, plan: a.plan, subscription: a.subscription, created_at: a.createdAt });
  }

  async getAccount(id: string): Promise<Account | undefined> {
    const { accounts } = this.fresh();
    if (accounts.has(id)) return accounts.get(id);
    const row = this.stmts.getAccount.get(id) as Row | undefined;
    return SqliteStore.remember(accounts, id, row && toAccount(row));
  }

  async updateAccount(id: string, patch: Partial<Pick<Account, 'name' | 'plan' | 'subscription'>>): Promise<boolean> {
    const sets = Object.keys(patch).filter((k) => ['name', 'plan', 'subscription'].includes(k));
    if (sets.length === 0) return (await this.getAccount(id)) !== undefined;
    const sql = `UPDATE accounts SET ${sets.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`;
    let stmt = this.accountUpdates.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.accountUpdates.set(sql, stmt);
    }
    const params: Record<string, unknown> = { id };
    for (const k of sets) params[k] = patch[k as keyof typeof patch];
    try {
      return stmt.run(params).changes > 0;
    } finally {
      this.writes++;
    }
  }

  async listAccounts(): Promise<Account[]> {
    return (this.stmts.listAccounts.all() as Row[]).map(toAccount);
  }

  async createKey(k: ApiKeyRecord): Promise<boolean> {
    try {
      this.stmts.insertKey.run({
        public_id: k.publicId,
        account_id: k.accountId,
        secret_hash: k.secretHash,
        name: k.name,
        created_at: k.createdAt,
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async getKey(publicId: string): Promise<ApiKeyRecord | undefined> {
    const { keys } = this.fresh();
    if (keys.has(publicId)) return keys.get(publicId);
    const row = this.stmts.getKey.get(publicId) as Row | undefined;
    return SqliteStore.remember(keys, publicId, row && toKey(row));
  }

  async listKeys(accountId?: string): Promise<ApiKeyRecord[]> {
    const rows = accountId ? this.stmts.listKeysOf.all(accountId) : this.stmts.listKeys.all();
    return (rows as Row[]).map(toKey);
  }

  async renameKey(publicId: string, name: string): Promise<boolean> {
    return this.stmts.renameKey.run(name, publicId).changes > 0;
  }

  async revokeKey(publicId: string, at: number): Promise<boolean> {
    return this.stmts.revokeKey.run(at, publicId).changes > 0;
  }

  async recordKeyUse(publicId: string, calls: number, lastUsedAt: number): Promise<void> {
    this.stmts.useKey.run(calls, lastUsedAt, publicId);
  }

  async claimIdempotencyKey(accountId: string, key: string, jobId: string, now: number, staleAfterMs: number): Promise<ClaimResult> {
    return this.db.immediate((): ClaimResult => {
      const row = this.stmts.getClaim.get(accountId, key) as Row | undefined;
      if (!row) {
        this.stmts.insertClaim.run(accountId, key, jobId, now);
        return { kind: 'claimed' };
      }
      if (row.bound) return { kind: 'existing', jobId: row.job_id as string };
      if (now - (row.claimed_at as number) > staleAfterMs) {
        this.stmts.replaceClaim.run(jobId, now, accountId, key);
        return { kind: 'claimed' };
      }
      return { kind: 'pending' };
    });
  }

  async releaseIdempotencyKey(accountId: string, key: string, jobId: string): Promise<void> {
    this.stmts.releaseClaim.run(accountId, key, jobId);
  }

  async createJob(job: JobRecord, limitCentiminutes: number): Promise<CreateJobResult> {
    return this.db.immediate((): CreateJobResult => {
      this.stmts.ensureUsage.run(job.accountId, job.usageMonth);
      const usage = this.stmts.getUsage.get(job.accountId, job.usageMonth) as Row;
      const used = (usage.settled_cm as number) + (usage.reserved_cm as number);
      if (used + job.reservedCentiminutes > limitCentiminutes) {
        return { kind: 'usage_exceeded', usedCentiminutes: used, limitCentiminutes };
      }
      this.stmts.reserve.run(job.reservedCentiminutes, job.accountId, job.usageMonth);
      this.stmts.insertJob.run(jobParams(job));
      if (job.idempotencyKey !== undefined) this.stmts.bindClaim.run(job.accountId, job.idempotencyKey, job.id);
      return { kind: 'created' };
    });
  }

  async getJob(id: string): Promise<JobRecord | undefined> {
    const { jobs } = this.fresh();
    const cached = jobs.get(id);
    if (cached) return cached;
    const row = this.stmts.getJob.get(id) as Row | undefined;
    const job = row && toJob(row);
    // Only finished jobs: a running one changes with every progress update.
    if (job && job.status !== 'processing') SqliteStore.remember(jobs, id, job);
    return job;
  }

  async updateProgress(id: string, progress: number): Promise<void> {
    this.stmts.progress.run(progress, id);
  }

  async completeJob(
    id: string,
    r: { durationSeconds: number; fileSizeBytes: number; completedAt: number; processingTimeMs: number; chargedCentiminutes: number },
  ): Promise<boolean> {
    return this.db.immediate((): boolean => {
      const job = this.stmts.getJob.get(id) as Row | undefined;
      if (job?.status !== 'processing') return false;
      this.stmts.complete.run({
        id,
        duration_seconds: r.durationSeconds,
        file_size_bytes: r.fileSizeBytes,
        completed_at: r.completedAt,
        processing_time_ms: r.processingTimeMs,
        charged_cm: r.chargedCentiminutes,
      });
      this.stmts.settle.run(job.reserved_cm, r.chargedCentiminutes, job.account_id, job.usage_month);
      return true;
    });
  }

  async failJob(id: string, e: { code: 'TTS_PROVIDER_ERROR' | 'INTERNAL_ERROR'; message: string; completedAt: number }): Promise<boolean> {
    return this.db.immediate((): boolean => {
      const job = this.stmts.getJob.get(id) as Row | undefined;
      if (job?.status !== 'processing') return false;
      this.stmts.fail.run({ id, error_code: e.code, error_message: e.message, completed_at: e.completedAt });
      this.stmts.settle.run(job.reserved_cm, 0, job.account_id, job.usage_month);
      return true;
    });
  }

  async listProcessingJobIds(): Promise<string[]> {
    return (this.stmts.processingIds.all() as Row[]).map((r) => r.id as string);
  }

  /**
   * `accounts` (beyond the port, for the sandbox, whose test clocks each judge the jobs of their own
   * accounts): only the jobs of these accounts, or with `except`, of every other account.
   */
  async deleteExpiredJobs(now: number, limit: number, accounts?: { ids: readonly string[]; except?: boolean }): Promise<string[]> {
    return this.db.immediate((): string[] => {
      const rows = (
        accounts === undefined
          ? this.stmts.expiredIds.all(now, limit)
          : (accounts.except ? this.stmts.expiredIdsNotOf : this.stmts.expiredIdsOf).all(now, JSON.stringify(accounts.ids), limit)
      ) as Row[];
      for (const r of rows) {
        // A job deleted while still processing gives its reservation back.
        if (r.status === 'processing') this.stmts.settle.run(r.reserved_cm, 0, r.account_id, r.usage_month);
        if (r.idempotency_key !== null) this.stmts.deleteClaimOf.run(r.account_id, r.idempotency_key, r.id);
        this.stmts.deleteJob.run(r.id);
      }
      return rows.map((r) => r.id as string);
    });
  }

  async importLegacyJob(job: JobRecord): Promise<void> {
    this.stmts.insertJob.run(jobParams(job));
  }

  async listRecentJobs(accountId: string, limit: number): Promise<JobRecord[]> {
    return (this.stmts.recentJobs.all(accountId, limit) as Row[]).map(toJob);
  }

  async createSession(session: SessionRecord): Promise<void> {
    this.stmts.deleteExpiredSessions.run(session.createdAt);
    this.stmts.insertSession.run(session.idHash, session.accountId, session.createdAt, session.expiresAt);
  }

  async getSession(idHash: string, now: number): Promise<SessionRecord | undefined> {
    const r = this.stmts.getSession.get(idHash, now) as Row | undefined;
    return r
      ? { idHash: r.id_hash as string, accountId: r.account_id as string, createdAt: r.created_at as number, expiresAt: r.expires_at as number }
      : undefined;
  }

  async deleteSession(idHash: string): Promise<void> {
    this.stmts.deleteSession.run(idHash);
  }

  async createSignInToken(token: SignInTokenRecord): Promise<void> {
    this.stmts.insertToken.run(token.tokenHash, token.accountId, token.expiresAt);
  }

  async consumeSignInToken(tokenHash: string, now: number): Promise<string | undefined> {
    return this.db.immediate((): string | undefined => {
      this.stmts.deleteExpiredTokens.run(now);
      const r = this.stmts.takeToken.get(tokenHash) as Row | undefined;
      return r && (r.expires_at as number) > now ? (r.account_id as string) : undefined;
    });
  }

  async getUsage(accountId: string, month: string): Promise<UsageFigures> {
    const { usage } = this.fresh();
    const name = `${accountId} ${month}`;
    const cached = usage.get(name);
    if (cached) return { ...cached };
    const row = this.stmts.getUsage.get(accountId, month) as Row | undefined;
    const figures = { usedCentiminutes: row ? (row.settled_cm as number) + (row.reserved_cm as number) : 0 };
    SqliteStore.remember(usage, name, figures);
    return { ...figures };
  }

  async setUsage(accountId: string, month: string, usedCentiminutes: number): Promise<void> {
    this.stmts.setUsage.run(accountId, month, usedCentiminutes);
  }

  async ping(): Promise<void> {
    this.pingStmt.get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
