import { readFileSync } from 'node:fs';
import { openSqlite, type SqlDatabase, type SqlStatement, type SqliteDriverName } from '../sqlite-driver.js';

/** A row as the drivers return it: column name → value. */
export type Row = Record<string, unknown>;

/** A nullable column's value, undefined for NULL. */
export const opt = <T>(v: unknown): T | undefined => (v === null || v === undefined ? undefined : (v as T));

const CACHE_ENTRIES = 10_000;

/**
 * Records the request path reads on every call (keys, accounts, finished jobs, usage), kept while
 * nothing has written to the database: every write through this connection counts (`wrote`), and
 * SQLite's `data_version` changes when another connection (the admin CLI, another process) commits.
 * Both are checked before reads (see `fresh`), so a revocation or a subscription change is seen by
 * the very next request, and a hit costs a Map lookup instead of a query and a row mapping.
 */
export class ReadCache {
  private readonly maps: Map<unknown, unknown>[] = [];
  private writes = 0;
  private versionReadThisTurn = false;
  private lastDataVersion = -1;
  private readonly endTurn = () => {
    this.versionReadThisTurn = false;
  };
  private seenWrites = -1;
  private seenDataVersion = -1;

  constructor(private readonly dataVersion: SqlStatement) {}

  /** A map of records of one kind, emptied with all the others. */
  map<K, V>(): Map<K, V> {
    const map = new Map<K, V>();
    this.maps.push(map as Map<unknown, unknown>);
    return map;
  }

  /** Counts a write through this connection. */
  wrote(): void {
    this.writes++;
  }

  /**
   * Empties the maps when anything wrote to the database since they were filled: this process's
   * writes are counted as they happen; another process's (the admin CLI revoking a key) show in
   * `PRAGMA data_version`, read at most once per turn of the event loop. The requests handled in one
   * turn were all received before that turn's first read, so a write committed before a request was
   * sent is seen by that request; reading it once per turn rather than per lookup saves three of a
   * poll's four reads of it.
   */
  fresh(): void {
    if (!this.versionReadThisTurn) {
      this.versionReadThisTurn = true;
      setImmediate(this.endTurn);
      this.lastDataVersion = (this.dataVersion.get() as { data_version: number }).data_version;
    }
    const version = this.lastDataVersion;
    if (version !== this.seenDataVersion || this.writes !== this.seenWrites) {
      for (const map of this.maps) map.clear();
      this.seenDataVersion = version;
      this.seenWrites = this.writes;
    }
  }

  /** Sets `key` in `map` and returns `value`. */
  static remember<K, V>(map: Map<K, V>, key: K, value: V): V {
    // Bounded: past this many entries start over (a hit rate that matters needs far fewer).
    if (map.size >= CACHE_ENTRIES) map.clear();
    map.set(key, value);
    return value;
  }
}

/** Columns schema.sql gained after the first release: table → column → its definition. */
const ADDED_COLUMNS: Record<string, Record<string, string>> = {
  jobs: { timestamps: 'TEXT' },
};

/**
 * Adds to a database made by an earlier release the columns schema.sql has since gained (its CREATE
 * TABLE IF NOT EXISTS leaves an existing table as it was). Rows written before read NULL there: a job
 * made before word timings existed asked for none.
 */
function addMissingColumns(db: SqlDatabase): void {
  for (const [table, columns] of Object.entries(ADDED_COLUMNS)) {
    const present = new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
    for (const [column, definition] of Object.entries(columns)) {
      if (!present.has(column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
    }
  }
}

/** The database handle the repositories share, with its read cache. */
export interface SqliteConnection {
  readonly db: SqlDatabase;
  readonly cache: ReadCache;
  /** Prepares a statement whose every run counts as a write, so no write path can leave a stale record in the cache. */
  prepare(sql: string): SqlStatement;
}

/**
 * Opens the database at `path` (WAL, foreign keys on) and creates what the schema (schema.sql) has
 * that it lacks. `driver` picks the SQLite driver; by default this Node's (`defaultSqliteDriver`).
 */
export function connectSqlite(path: string, driver?: SqliteDriverName): SqliteConnection {
  const db = openSqlite(path, { busyTimeoutMs: 5000, driver });
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
  db.exec(readFileSync(new URL('./schema.sql', import.meta.url), 'utf8'));
  addMissingColumns(db);
  const cache = new ReadCache(db.prepare('PRAGMA data_version'));
  const prepare = (sql: string): SqlStatement => {
    const stmt = db.prepare(sql);
    const run = stmt.run.bind(stmt);
    stmt.run = (...params: unknown[]) => {
      try {
        return run(...params);
      } finally {
        cache.wrote();
      }
    };
    return stmt;
  };
  return { db, cache, prepare };
}
