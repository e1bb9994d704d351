import type SQLite from 'better-sqlite3';

/** Hears the signals that SQL raises (triggers call `agentry_signal(channel, payload)`). */
export type SqlSignalListener = (channel: string, payload: string) => void;

/**
 * Every connection to the database file, on any thread, runs with the same settings. Each defines
 * `agentry_signal`, which triggers call, so any connection may write the tables that have them; a
 * connection without a listener (a worker thread) lets the signal go, and readers find the change
 * on their next regular look.
 */
export function configureSqlite(sqlite: SQLite.Database, onSignal: SqlSignalListener = () => {}): void {
  sqlite.function('agentry_signal', { deterministic: false }, (channel: unknown, payload: unknown) => {
    // Called inside the statement: listeners run once it is done, and any read they start waits
    // for the connection, so after the transaction ends.
    queueMicrotask(() => onSignal(String(channel), String(payload ?? '')));
    return null;
  });
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
