import { createRequire } from 'node:module';

/**
 * The SQLite driver under the embedded store: the part of a driver the store uses, over one of two.
 *
 * - **Node.js 24 and newer: `node:sqlite`**, built into Node.js. `better-sqlite3` 12 aborts the process
 *   there (Node 24's `ObjectWrap` removes an environment clean-up hook when a garbage-collected
 *   statement is destroyed, and asserts that an environment is current, which it is not during some
 *   collections; `better-sqlite3` 13, the fix, needs Node 22 and segfaults on Node 20).
 * - **Node.js 20 and 22: `better-sqlite3`** (an optional peer dependency of @agent-tts/server, which the
 *   operator installs beside it; compiled at install where no prebuilt binary fits).
 *
 * Both run SQLite in the calling thread with prepared statements, so the store's code, schema and
 * transactions are the same on both; `.ci/run` runs the whole suite on Node 20 (better-sqlite3) and on
 * Node 24 (node:sqlite).
 */
export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

/**
 * Parameters: positional, or an object for `@name`s. Bind every name a statement uses, never
 * `undefined` (use null): the drivers differ there (better-sqlite3 refuses a missing name and binds
 * undefined as NULL; node:sqlite binds a missing name as NULL and refuses undefined).
 */
export interface SqlStatement {
  run(...params: unknown[]): { changes: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

export interface SqlDatabase {
  readonly driver: SqliteDriverName;
  prepare(sql: string): SqlStatement;
  /** Runs one or more statements without results (schema, PRAGMAs). */
  exec(sql: string): void;
  /** Runs `fn` in a `BEGIN IMMEDIATE` transaction: committed when it returns, rolled back when it throws. */
  immediate<T>(fn: () => T): T;
  readonly open: boolean;
  close(): void;
}

/** The driver this Node.js uses: `node:sqlite` from Node 24 on, `better-sqlite3` before. */
export function defaultSqliteDriver(version = process.versions.node): SqliteDriverName {
  return Number(version.split('.')[0]) >= 24 ? 'node:sqlite' : 'better-sqlite3';
}

const require = createRequire(import.meta.url);

/**
 * Opens (creating it if needed) the database at `path` (`:memory:` for one in memory), with the busy
 * timeout set, and the driver given or this Node's default.
 */
export function openSqlite(path: string, options: { busyTimeoutMs: number; driver?: SqliteDriverName }): SqlDatabase {
  const driver = options.driver ?? defaultSqliteDriver();
  return driver === 'node:sqlite' ? openNodeSqlite(path, options.busyTimeoutMs) : openBetterSqlite(path, options.busyTimeoutMs);
}

/** True for a UNIQUE constraint violation (not a PRIMARY KEY one), whichever driver threw it. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown };
  // better-sqlite3 names the extended result code; node:sqlite gives its number (SQLITE_CONSTRAINT_UNIQUE).
  return e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.errcode === 2067;
}

interface BetterSqliteDatabase {
  prepare(sql: string): SqlStatement;
  exec(sql: string): unknown;
  pragma(source: string): unknown;
  transaction<T>(fn: () => T): { immediate(): T };
  readonly open: boolean;
  close(): void;
}

function openBetterSqlite(path: string, busyTimeoutMs: number): SqlDatabase {
  let Database: new (path: string, options?: { timeout?: number }) => BetterSqliteDatabase;
  try {
    Database = require('better-sqlite3');
  } catch (error) {
    throw new Error(
      `better-sqlite3, the SQLite driver of Node.js ${process.versions.node}, could not be loaded ` +
        `(${(error as Error).message.split('\n')[0]}); install it beside @agent-tts/server (npm install better-sqlite3@"^12.11.1"), ` +
        'or run on Node.js 24, whose built-in node:sqlite needs nothing',
    );
  }
  const db = new Database(path, { timeout: busyTimeoutMs });
  return {
    driver: 'better-sqlite3',
    prepare: (sql) => db.prepare(sql),
    exec: (sql) => void db.exec(sql),
    immediate: (fn) => db.transaction(fn).immediate(),
    get open() {
      return db.open;
    },
    close: () => db.close(),
  };
}

interface NodeSqliteStatement extends SqlStatement {
  setAllowUnknownNamedParameters(enabled: boolean): void;
}

interface NodeSqliteDatabase {
  prepare(sql: string): NodeSqliteStatement;
  exec(sql: string): void;
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
  close(): void;
}

function openNodeSqlite(path: string, busyTimeoutMs: number): SqlDatabase {
  const { DatabaseSync } = require('node:sqlite') as {
    DatabaseSync: new (path: string, options?: { timeout?: number }) => NodeSqliteDatabase;
  };
  const db = new DatabaseSync(path, { timeout: busyTimeoutMs });
  const prepare = (sql: string): SqlStatement => {
    const stmt = db.prepare(sql);
    // As better-sqlite3 does: an object's properties that the statement does not name are ignored.
    stmt.setAllowUnknownNamedParameters(true);
    return stmt;
  };
  const statements = new Map<string, SqlStatement>();
  const run = (sql: string) => {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = prepare(sql);
      statements.set(sql, stmt);
    }
    stmt.run();
  };
  let depth = 0;
  return {
    driver: 'node:sqlite',
    prepare,
    exec: (sql) => db.exec(sql),
    // As better-sqlite3's `transaction(fn).immediate()`: BEGIN IMMEDIATE, or a savepoint inside an open
    // transaction; a commit that fails is rolled back too, so the connection never stays inside one.
    immediate<T>(fn: () => T): T {
      const nested = db.isTransaction;
      const savepoint = `agent_tts_${depth}`;
      run(nested ? `SAVEPOINT ${savepoint}` : 'BEGIN IMMEDIATE');
      depth++;
      try {
        const result = fn();
        if (result !== null && typeof (result as { then?: unknown })?.then === 'function') {
          throw new TypeError('A transaction function must not return a promise: its work would run outside the transaction');
        }
        run(nested ? `RELEASE ${savepoint}` : 'COMMIT');
        return result;
      } catch (error) {
        if (db.isTransaction) {
          if (nested) {
            run(`ROLLBACK TO ${savepoint}`);
            run(`RELEASE ${savepoint}`);
          } else run('ROLLBACK');
        }
        throw error;
      } finally {
        depth--;
      }
    },
    get open() {
      return db.isOpen;
    },
    close: () => db.close(),
  };
}
