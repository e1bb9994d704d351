import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Dialect,
  type SqliteDialectConfig,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { dialectOf, sqlitePath, type DialectName } from './dialect.ts';
import { migrationProvider } from './migrations/index.ts';
import { configureSqlite, type SqlSignalListener } from './sqlite-pragmas.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

export interface DatabaseHandle {
  db: Db;
  dialect: DialectName;
  /** The SQLite database file, which other connections (worker threads) may open; null on PostgreSQL and for `:memory:`. */
  sqliteFile: string | null;
  /** Runs `work` in one transaction: everything it writes lands together or not at all. */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Hands the signals that SQL raises (triggers calling `agentry_signal`) to `listener`: on SQLite
   * they come from this process's connection; on PostgreSQL they travel by NOTIFY from the database
   * itself and reach the signal bus without this.
   */
  relaySqlSignals(listener: SqlSignalListener): void;
  /** Runs pending migrations, all of them or up to and including `through` (tests of a migration). */
  migrate(through?: string): Promise<string[]>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url: string;
  /** PostgreSQL schema to work in (tests give each app its own); created when missing. */
  schema?: string;
  poolSize?: number;
}

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  const dialect = dialectOf(options.url);
  const schema = options.schema ?? 'public';
  if (dialect === 'postgres' && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`invalid PostgreSQL schema name "${schema}"`);
  }
  const file = dialect === 'sqlite' ? sqlitePath(options.url) : null;
  let sqlSignalListener: SqlSignalListener = () => {};
  const db = file === null ? openPostgres(options, schema) : openSqlite(file, (channel, payload) => sqlSignalListener(channel, payload));

  return {
    db,
    dialect,
    sqliteFile: file === ':memory:' ? null : file,
    transaction: (work) => db.transaction().execute(work),
    relaySqlSignals(listener) {
      if (dialect === 'sqlite') sqlSignalListener = listener;
    },
    async migrate(through) {
      if (dialect === 'postgres' && schema !== 'public') {
        await db.schema.createSchema(schema).ifNotExists().execute();
      }
      const migrator = new Migrator({
        db,
        provider: migrationProvider(dialect),
        // Without an explicit schema Kysely would find another schema's migration table on PostgreSQL.
        ...(dialect === 'postgres' ? { migrationTableSchema: schema } : {}),
      });
      const { error, results } = await (through ? migrator.migrateTo(through) : migrator.migrateToLatest());
      if (error) throw error;
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    },
    close: () => db.destroy(),
  };
}

/**
 * The database holds password hashes, webhook secrets and the ledger, so what the service creates is
 * its owner's alone: folders 0700, the file 0600 (created empty before SQLite opens it; SQLite gives
 * the -wal and -shm files the database file's permissions). Existing files and folders keep theirs.
 */
function openSqlite(path: string, onSignal: SqlSignalListener): Db {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
  }
  const sqlite = new SQLite(path);
  configureSqlite(sqlite, onSignal);
  return new Kysely<Database>({ dialect: immediateTransactions({ database: withStatementCache(sqlite) }) });
}

/**
 * Kysely begins SQLite transactions with a plain (deferred) BEGIN, which takes the write lock only at
 * the first write. With a second writer on the file (the receipt insert worker, db/sqlite-insert.ts),
 * a transaction that read first then fails that write with SQLITE_BUSY_SNAPSHOT whenever the other
 * connection committed in between, and no busy timeout waits that out. BEGIN IMMEDIATE takes the
 * lock up front, so the other writer waits its turn instead (busy_timeout).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

function immediateTransactions(config: SqliteDialectConfig): Dialect {
  const dialect = new SqliteDialect(config);
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new ImmediateSqliteDriver(config),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

/**
 * Kysely prepares every query afresh; on the hot paths that was a quarter of the service's CPU.
 * Statements are reused per SQL text (bounded, least recently used out). Reuse is safe because
 * Kysely runs one query at a time on this single connection.
 */
function withStatementCache(sqlite: SQLite.Database, limit = 500) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql);
      } else {
        statement = sqlite.prepare(sql);
        if (cache.size >= limit) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement;
    },
    close() {
      cache.clear();
      sqlite.close();
    },
  };
}

function openPostgres(options: DatabaseOptions, schema: string): Db {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    // The namespace names this schema's signal channels for signals raised in SQL (agentry_signal),
    // as src/db/signals.ts names them for this schema's app.
    options: `-c search_path=${schema}${schema === 'public' ? '' : ` -c agentry.signal_namespace=${schema}`}`,
  });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
