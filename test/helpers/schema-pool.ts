/**
 * Migrated PostgreSQL schemas for test apps, reused instead of made and dropped for every app.
 *
 * Migrating a fresh schema costs about 1.5 s of wall time on a quiet machine (some 270 statements)
 * and dropping it another 0.4 s; the PostgreSQL suite starts hundreds of apps. A schema that an app
 * has finished with is emptied instead (every table's rows deleted, its sequences restarted, the
 * rows the migrations themselves wrote put back from a copy) and handed to the next app. An empty,
 * fully migrated schema is what a fresh one would be, so no test can tell the difference.
 *
 * The pool lives in the test database (`public.agentry_test_schemas`), shared by every test process:
 * a schema is claimed by the claiming process's pid, and one whose process died is reset before it
 * is used again. A schema belongs to one version of the migrations (a hash of their source), so a
 * checkout with other migrations never gets a schema migrated by this one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';

const migrationsFolder = join(import.meta.dirname, '../../src/db/migrations');

/** A hash of every migration's source: schemas migrated by other migrations are never handed out. */
export const migrationsVersion = (() => {
  const hash = createHash('sha256');
  for (const name of readdirSync(migrationsFolder).sort()) hash.update(name).update(readFileSync(join(migrationsFolder, name)));
  return hash.digest('hex').slice(0, 12);
})();

/** Rows the migrations write into an empty schema are kept here, one table per seeded table. */
const seedSchema = `agentry_test_seed_${migrationsVersion}`;

const POOL_LOCK = 7_2027;

/** Empties a pooled schema: deletes every row (migration bookkeeping aside), restarts its sequences, restores the seed rows. */
const resetFunction = `
CREATE OR REPLACE FUNCTION public.agentry_test_reset_schema(target text, seed text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE item record;
BEGIN
  -- Deleting with foreign keys off: the order of the tables does not matter, and every row goes.
  SET LOCAL session_replication_role = replica;
  FOR item IN SELECT tablename FROM pg_tables WHERE schemaname = target AND tablename NOT LIKE 'kysely\\_%' LOOP
    EXECUTE format('DELETE FROM %I.%I', target, item.tablename);
  END LOOP;
  FOR item IN SELECT sequencename FROM pg_sequences WHERE schemaname = target LOOP
    EXECUTE format('ALTER SEQUENCE %I.%I RESTART', target, item.sequencename);
  END LOOP;
  IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = seed) THEN
    RAISE EXCEPTION 'the seed rows of % are gone', target;
  END IF;
  FOR item IN SELECT tablename FROM pg_tables WHERE schemaname = seed LOOP
    EXECUTE format('INSERT INTO %I.%I SELECT * FROM %I.%I', target, item.tablename, seed, item.tablename);
  END LOOP;
END $$`;

let prepared: Promise<void> | null = null;
let counter = 0;

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Once per process: the pool's table and the reset function exist, and schemas of other migrations are gone. */
function preparePool(url: string, dropSchema: (schema: string) => Promise<void>): Promise<void> {
  prepared ??= (async () => {
    const stale = await withClient(url, async (client) => {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [POOL_LOCK]);
      await client.query(
        'CREATE TABLE IF NOT EXISTS public.agentry_test_schemas (schema text PRIMARY KEY, version text NOT NULL, owner_pid integer, released_at timestamptz NOT NULL DEFAULT now())',
      );
      await client.query(resetFunction);
      // Another checkout may be running its tests beside this one: its schemas go only once unused for an hour.
      const { rows } = await client.query<{ schema: string }>(
        "DELETE FROM public.agentry_test_schemas WHERE version <> $1 AND owner_pid IS NULL AND released_at < now() - interval '1 hour' RETURNING schema",
        [migrationsVersion],
      );
      const seeds = await client.query<{ nspname: string }>(
        `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'agentry\\_test\\_seed\\_%' AND nspname <> $1
           AND NOT EXISTS (SELECT 1 FROM public.agentry_test_schemas WHERE 'agentry_test_seed_' || version = nspname)`,
        [seedSchema],
      );
      await client.query('COMMIT');
      return [...rows.map((row) => row.schema), ...seeds.rows.map((row) => row.nspname)];
    });
    for (const schema of stale) await dropSchema(schema);
  })();
  return prepared;
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export interface PooledSchema {
  schema: string;
  /** Empties the schema and hands it back to the pool; drops it if it cannot be emptied. */
  release(): Promise<void>;
}

/**
 * A migrated, empty schema for one app: one from the pool when one is free, otherwise a new one,
 * migrated here. `migrateLocked` runs a migration while no test process drops a schema.
 */
export async function claimMigratedSchema(
  url: string,
  { migrateLocked, dropSchema }: { migrateLocked: <T>(work: () => Promise<T>) => Promise<T>; dropSchema: (schema: string) => Promise<void> },
): Promise<PooledSchema> {
  await preparePool(url, dropSchema);
  const claimed = await withClient(url, async (client) => {
    await client.query('BEGIN');
    const { rows } = await client.query<{ schema: string; owner_pid: number | null }>(
      'SELECT schema, owner_pid FROM public.agentry_test_schemas WHERE version = $1 AND owner_pid IS DISTINCT FROM $2 ORDER BY owner_pid NULLS FIRST FOR UPDATE SKIP LOCKED',
      [migrationsVersion, process.pid],
    );
    const free = rows.find((row) => row.owner_pid === null || !isAlive(row.owner_pid));
    if (free) {
      await client.query('UPDATE public.agentry_test_schemas SET owner_pid = $2 WHERE schema = $1', [free.schema, process.pid]);
      // A schema whose process died mid-test still holds that test's rows.
      if (free.owner_pid !== null) await client.query('SELECT public.agentry_test_reset_schema($1, $2)', [free.schema, seedSchema]);
    }
    await client.query('COMMIT');
    return free?.schema ?? null;
  });
  const schema = claimed ?? (await migrateNewSchema(url, migrateLocked));
  return {
    schema,
    release: async () => {
      try {
        await withClient(url, async (client) => {
          await client.query('SELECT public.agentry_test_reset_schema($1, $2)', [schema, seedSchema]);
          await client.query('UPDATE public.agentry_test_schemas SET owner_pid = NULL, released_at = now() WHERE schema = $1', [schema]);
        });
      } catch {
        await withClient(url, (client) => client.query('DELETE FROM public.agentry_test_schemas WHERE schema = $1', [schema]));
        await dropSchema(schema);
      }
    },
  };
}

/**
 * A name for a new pooled schema. Not by pid and count alone: pids come round again (32,768 of them
 * on a default Linux), and a schema a finished process made stays in the pool under its name.
 */
export const newPooledSchemaName = () => `tp_${migrationsVersion}_${process.pid}_${randomBytes(4).toString('hex')}_${counter++}`;

async function migrateNewSchema(url: string, migrateLocked: <T>(work: () => Promise<T>) => Promise<T>): Promise<string> {
  const schema = newPooledSchemaName();
  const handle = openDatabase({ url, schema });
  try {
    await migrateLocked(() => handle.migrate());
  } finally {
    await handle.close();
  }
  await withClient(url, async (client) => {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [POOL_LOCK]);
    // The first schema of this version keeps a copy of what the migrations wrote, for every reset.
    const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [seedSchema]);
    if (rowCount === 0) {
      await client.query(`CREATE SCHEMA ${seedSchema}`);
      const { rows } = await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename NOT LIKE 'kysely\\_%'", [
        schema,
      ]);
      for (const { tablename } of rows) {
        const { rowCount: seeded } = await client.query(`SELECT 1 FROM ${schema}."${tablename}" LIMIT 1`);
        if (seeded) await client.query(`CREATE TABLE ${seedSchema}."${tablename}" AS SELECT * FROM ${schema}."${tablename}"`);
      }
    }
    await client.query('INSERT INTO public.agentry_test_schemas (schema, version, owner_pid) VALUES ($1, $2, $3)', [schema, migrationsVersion, process.pid]);
    await client.query('COMMIT');
  });
  return schema;
}
