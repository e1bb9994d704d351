import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type KyselyConfig,
  type MigrationLockOptions,
  type SqliteDialectConfig,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { dialectOf, sqlitePath, type DialectName } from './dialect.ts';
import { isUniqueViolation } from './errors.ts';
import { latestMigration, migrationNames, migrationProvider } from './migrations/index.ts';
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
  /** PostgreSQL: the pool's connections (all, idle) and the requests waiting for one; null on SQLite. */
  poolStats(): { total: number; idle: number; waiting: number } | null;
  /** Runs pending migrations, all of them or up to and including `through` (tests of a migration). */
  migrate(through?: string): Promise<string[]>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url: string;
  /** PostgreSQL schema to work in (tests give each app its own); created when missing. */
  schema?: string;
  poolSize?: number;
  /** PostgreSQL: how long to wait for a connection (a new one, or a free one from the pool) before failing. */
  connectTimeoutMs?: number;
  /** Told each query's duration, whether it failed and its SQL (the metrics' query latency, tracing's query spans). */
  onQuery?: (seconds: number, failed: boolean, sql: string) => void;
}

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  const dialect = dialectOf(options.url);
  const schema = options.schema ?? 'public';
  if (dialect === 'postgres' && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`invalid PostgreSQL schema name "${schema}"`);
  }
  const file = dialect === 'sqlite' ? sqlitePath(options.url) : null;
  let sqlSignalListener: SqlSignalListener = () => {};
  const { onQuery } = options;
  const log: KyselyConfig['log'] = onQuery ? (event) => onQuery(event.queryDurationMillis / 1000, event.level === 'error', event.query.sql) : undefined;
  let pool: pg.Pool | null = null;
  const db =
    file === null
      ? openPostgres(options, schema, log, (made) => (pool = made))
      : openSqlite(file, (channel, payload) => sqlSignalListener(channel, payload), log);

  return {
    db,
    dialect,
    sqliteFile: file === ':memory:' ? null : file,
    transaction: (work) => db.transaction().execute(work),
    poolStats: () => (pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null),
    relaySqlSignals(listener) {
      if (dialect === 'sqlite') sqlSignalListener = listener;
    },
    async migrate(through) {
      if (dialect === 'postgres' && schema !== 'public') {
        // Nodes starting together may race to create it; IF NOT EXISTS alone can still fail on PostgreSQL.
        await db.schema
          .createSchema(schema)
          .ifNotExists()
          .execute()
          .catch((error: unknown) => {
            if (!isUniqueViolation(error)) throw error;
          });
      }
      await refuseNewerSchema(db, dialect === 'postgres' ? schema : null);
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

/** A node whose code is older than its database's schema stops here instead of running old code on it. */
export class SchemaNewerThanCodeError extends Error {
  constructor(
    readonly databaseVersion: string,
    readonly codeVersion: string,
  ) {
    super(
      `The database's schema is at migration ${databaseVersion}, newer than this code knows (its latest is ${codeVersion}): ` +
        'a newer version of the service has run against this database; run that version here too',
    );
    this.name = 'SchemaNewerThanCodeError';
  }
}

async function refuseNewerSchema(db: Db, schema: string | null): Promise<void> {
  const table = schema ? sql.table(`${schema}.kysely_migration`) : sql.table('kysely_migration');
  let applied: string[];
  try {
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(db);
    applied = rows.map((row) => row.name).sort();
  } catch (error) {
    // An empty database has no migration table yet; any other failure is the migrator's to report.
    if (/does not exist|no such table/.test(error instanceof Error ? error.message : '')) return;
    throw error;
  }
  const known = new Set(migrationNames);
  const unknown = applied.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new SchemaNewerThanCodeError(unknown.at(-1)!, latestMigration);
}

/**
 * The database holds password hashes, webhook secrets and the ledger, so what the service creates is
 * its owner's alone: folders 0700, the file 0600 (created empty before SQLite opens it; SQLite gives
 * the -wal and -shm files the database file's permissions). Existing files and folders keep theirs.
 */
function openSqlite(path: string, onSignal: SqlSignalListener, log: KyselyConfig['log']): Db {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
  }
  const sqlite = new SQLite(path);
  configureSqlite(sqlite, onSignal);
  return new Kysely<Database>({ dialect: immediateTransactions({ database: withStatementCache(sqlite) }), ...(log ? { log } : {}) });
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

function openPostgres(options: DatabaseOptions, schema: string, log: KyselyConfig['log'], made: (pool: pg.Pool) => void): Db {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    // While the database is down or restarting, a request fails within this bound instead of queueing forever.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    keepAlive: true,
    // The namespace names this schema's signal channels for signals raised in SQL (agentry_signal),
    // as src/db/signals.ts names them for this schema's app.
    options: `-c search_path=${schema}${schema === 'public' ? '' : ` -c agentry.signal_namespace=${schema}`}`,
  });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // Nor one in use: pg emits 'error' on a client whose connection ends even while its query fails with
  // the same error, and a client in use has no pool listener. The query's own rejection reports it.
  pool.on('connect', (client) => client.on('error', () => {}));
  made(pool);
  return new Kysely<Database>({ dialect: new SchemaMigrationLockDialect({ pool }), ...(log ? { log } : {}) });
}

/** The first key of the two-key advisory lock a schema's migrations take; the second is the schema's hash. */
const MIGRATION_LOCK_CLASS = 20_261_129;

/**
 * Kysely's PostgreSQL migrations take one advisory lock for the whole database, so migrating one
 * schema waits for every other schema's migrations. Nodes of one instance share a schema and must
 * still migrate one at a time; instances (or test apps) in other schemas of the same database need
 * not wait for each other. The lock is therefore per schema.
 */
class SchemaMigrationLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>, options: MigrationLockOptions): Promise<void> {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_CLASS}::int4, hashtext(${options.lockTableSchema ?? 'public'}))`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>, options: MigrationLockOptions): Promise<void> {
    await sql`select pg_advisory_unlock(${MIGRATION_LOCK_CLASS}::int4, hashtext(${options.lockTableSchema ?? 'public'}))`.execute(db);
  }
}

/**
 * What the migrator asks of the catalog (which schemas and tables exist), by name only. Kysely's own
 * PostgreSQL introspector resolves every table of every schema by name (`pg_get_serial_sequence`), so
 * it fails with "relation does not exist" when another schema of the database is dropped while it
 * reads: many nodes or test apps on one server each in a schema of its own do that.
 */
class TableNamesIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas() {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.db);
    return rows;
  }

  async getTables() {
    const { rows } = await sql<{ name: string; schema: string; kind: string }>`
      select c.relname as name, ns.nspname as schema, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      where c.relkind in ('r', 'v', 'p') and ns.nspname !~ '^pg_' and ns.nspname <> 'information_schema'`.execute(this.db);
    return rows.map((row) => ({ name: row.name, schema: row.schema, isView: row.kind === 'v', columns: [] }));
  }

  async getMetadata() {
    return { tables: await this.getTables() };
  }
}

class SchemaMigrationLockDialect extends PostgresDialect {
  override createAdapter(): SchemaMigrationLockAdapter {
    return new SchemaMigrationLockAdapter();
  }

  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new TableNamesIntrospector(db);
  }
}
