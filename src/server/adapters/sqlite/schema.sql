-- The embedded store's schema (adapters/sqlite-store.ts), run on every open: each statement creates
-- what is missing and leaves what exists as it is.
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
  legacy_expires_at INTEGER,
  -- 'word' when the job asked for word timings. Added after the first release: connection.ts adds the
  -- column to a database made before it (CREATE TABLE IF NOT EXISTS leaves an existing table as it is).
  timestamps TEXT
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
