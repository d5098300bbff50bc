import type { Store } from '../ports/index.js';
import { assembled } from './assembled.js';
import { sqliteAccounts } from './sqlite/accounts.js';
import { connectSqlite } from './sqlite/connection.js';
import { idempotencyClaims, sqliteIdempotency } from './sqlite/idempotency.js';
import { sqliteJobs } from './sqlite/jobs.js';
import { sqliteKeys } from './sqlite/keys.js';
import { sqliteSessions } from './sqlite/sessions.js';
import { sqliteUsage, usageLedger } from './sqlite/usage.js';
import type { SqliteDriverName } from './sqlite-driver.js';

/** The repositories over the database at `path`, one module per aggregate under sqlite/. */
function openRepositories(path: string, driver?: SqliteDriverName): Store {
  const connection = connectSqlite(path, driver);
  const { db } = connection;
  const ledger = usageLedger(connection);
  const claims = idempotencyClaims(connection);
  const ping = db.prepare('SELECT 1');
  return {
    ...sqliteAccounts(connection),
    ...sqliteKeys(connection),
    ...sqliteIdempotency(connection, claims),
    ...sqliteUsage(connection, ledger),
    ...sqliteJobs(connection, ledger, claims),
    ...sqliteSessions(connection),
    async ping() {
      ping.get();
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

/**
 * The embedded store: one SQLite file (WAL), through this Node's driver (see `sqlite-driver.ts`), with
 * its schema in sqlite/schema.sql. Both drivers are synchronous, so each method body runs without
 * interleaving inside this process; multi-step operations are also wrapped in transactions so they
 * stay atomic against other connections to the same file (the admin CLI). Reads on the request path
 * go through a cache emptied by any write (sqlite/connection.ts, ReadCache).
 */
export class SqliteStore extends assembled<Store>() implements Store {
  /** `driver` picks the SQLite driver (tests); by default this Node's (`defaultSqliteDriver`). */
  constructor(path: string, driver?: SqliteDriverName) {
    super(openRepositories(path, driver));
  }
}
