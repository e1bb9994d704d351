/**
 * The suite's own databases: every test app starts on an empty, fully migrated database, whether it
 * is new or (on PostgreSQL) a schema another app used before and handed back to the pool.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { latestMigration } from '../../src/db/migrations/index.ts';
import { dropTestSchema, startTestApp, testDatabaseUrl, withSchemaLock } from '../helpers/app.ts';
import { claimMigratedSchema, migrationsVersion, newPooledSchemaName } from '../helpers/schema-pool.ts';

describe('test databases', () => {
  it('a later app sees nothing an earlier one wrote', async () => {
    const first = await startTestApp();
    const person = await first.signup();
    await first.close();
    const second = await startTestApp();
    try {
      const login = await second.request({ method: 'POST', url: '/v1/auth/login', body: { email: person.email, password: 'correct horse battery' } });
      assert.equal(login.statusCode, 401, login.body);
    } finally {
      await second.close();
    }
  });

  it('a new pooled schema never takes the name of one a finished process with the same pid left in the pool', () => {
    // Pids come round again: the names an earlier process of this pid gave its first schemas.
    const earlier = new Set(Array.from({ length: 1000 }, (_, n) => `tp_${migrationsVersion}_${process.pid}_${n}`));
    const made = Array.from({ length: 20 }, () => newPooledSchemaName());
    assert.deepEqual(
      made.filter((name) => earlier.has(name)),
      [],
    );
    assert.equal(new Set(made).size, made.length);
    assert.ok(made.every((name) => name.length <= 63, 'a PostgreSQL identifier holds 63 bytes'));
  });

  it(
    'a pooled PostgreSQL schema comes back empty, with its sequences restarted and the rows its migrations wrote',
    { skip: !testDatabaseUrl && 'the pool holds PostgreSQL schemas only' },
    async () => {
      const url = testDatabaseUrl!;
      const options = { migrateLocked: <T>(work: () => Promise<T>) => withSchemaLock(url, work), dropSchema: (schema: string) => dropTestSchema(url, schema) };
      const pooled = await claimMigratedSchema(url, options);
      const handle = openDatabase({ url, schema: pooled.schema });
      assert.deepEqual(await handle.migrate(), [], 'a pooled schema is migrated already');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const snapshot = async () => {
        const { rows: tables } = await client.query<{ tablename: string }>(
          "SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename NOT LIKE 'kysely\\_%' ORDER BY 1",
          [pooled.schema],
        );
        const contents: Record<string, unknown[]> = {};
        for (const { tablename } of tables) {
          const { rows } = await client.query(`SELECT * FROM ${pooled.schema}."${tablename}"`);
          if (rows.length > 0) contents[tablename] = rows;
        }
        const { rows: sequences } = await client.query('SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = $1 ORDER BY 1', [pooled.schema]);
        return { contents, sequences };
      };
      try {
        const empty = await snapshot();
        assert.ok(
          empty.sequences.every((sequence) => sequence.last_value === null),
          'no sequence has been used',
        );
        // What a test leaves behind: rows with foreign keys, a used sequence, a changed row the migrations wrote.
        await client.query(`UPDATE ${pooled.schema}.trust_evidence_sweep SET expired_through = '2026-01-01'`);
        await client.query(
          `INSERT INTO ${pooled.schema}.accounts (id, kind, email, created_at) VALUES ('acc_left', 'person', 'left@example.test', '2026-01-01')`,
        );
        await client.query(
          `INSERT INTO ${pooled.schema}.sessions (id, account_id, token_hash, created_at, expires_at) VALUES ('ses_left', 'acc_left', 'hash', '2026-01-01', '2026-02-01')`,
        );
        await client.query(`SELECT nextval('${pooled.schema}.agent_changes_seq_seq')`);
        assert.notDeepEqual(await snapshot(), empty, 'the test changed the schema');
        await handle.close();
        await pooled.release();
        assert.deepEqual(await snapshot(), empty, 'released, the schema is as its migrations left it');
        const { rows } = await client.query(`SELECT max(name) AS name FROM ${pooled.schema}.kysely_migration`);
        assert.equal(rows[0].name, latestMigration, 'its migrations are still recorded');
      } finally {
        await client.end();
      }
    },
  );
});
