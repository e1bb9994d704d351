import type SQLite from 'better-sqlite3';

/** Every connection to the database file, on any thread, runs with the same settings. */
export function configureSqlite(sqlite: SQLite.Database): void {
  sqlite.pragma('journal_mode = WAL');
  // FULL: a committed write survives power loss, which the registry and ledger promise.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  /**
   * Checkpoint (copy the WAL's pages into the database file) when the WAL passes 4,000 pages (16 MB)
   * rather than SQLite's 1,000. A receipt dirties a random page of two indexes plus the last pages
   * of the others; at 1,000 the receipt insert worker checkpointed every twenty-odd commits and wrote
   * the same hot pages out again each time (34.6% -> 39.6% of bare verify, bench/RESULTS.md). Every
   * connection has the same threshold: with a lower one, a request-thread write during a receipt
   * flood would find the WAL past it and do the worker's checkpointing on the event loop.
   */
  sqlite.pragma('wal_autocheckpoint = 4000');
}
