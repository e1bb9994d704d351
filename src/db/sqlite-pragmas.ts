import type SQLite from 'better-sqlite3';

/** Every connection to the database file, on any thread, runs with the same settings. */
export function configureSqlite(sqlite: SQLite.Database): void {
  sqlite.pragma('journal_mode = WAL');
  // FULL: a committed write survives power loss, which the registry and ledger promise.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
}
