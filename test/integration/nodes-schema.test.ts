/**
 * Several nodes on one database: migrations run once when they start together, a node whose code is
 * older than the database's schema refuses to start, and a database outage answers 503 quickly and
 * heals by itself.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { latestMigration, migrationNames } from '../../src/db/migrations/index.ts';
import { TEST_SECRETS_KEY, testDatabaseUrl, withSchemaLock, dropTestSchema } from '../helpers/app.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** `count` handles on one fresh database (a SQLite file, or a PostgreSQL schema), as `count` nodes open it. */
async function sharedDatabase(count: number) {
  if (testDatabaseUrl) {
    const url = testDatabaseUrl;
    const schema = `t_nodes_${process.pid}_${Date.now().toString(36)}`;
    const handles = Array.from({ length: count }, () => openDatabase({ url, schema }));
    return {
      url,
      schema,
      handles,
      /** Runs `work` while no other test process drops a schema (see withSchemaLock). */
      locked: <T>(work: () => Promise<T>) => withSchemaLock(url, work),
      async close() {
        for (const handle of handles) await handle.close();
        await dropTestSchema(url, schema);
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'agentry-nodes-'));
  const url = `sqlite:${join(dir, 'shared.db')}`;
  const handles = Array.from({ length: count }, () => openDatabase({ url }));
  return {
    url,
    schema: null,
    handles,
    locked: <T>(work: () => Promise<T>) => work(),
    async close() {
      for (const handle of handles) await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const recordFutureMigration = (handle: DatabaseHandle) =>
  sql`insert into kysely_migration (name, timestamp) values ('9999_from_a_newer_version', ${new Date().toISOString()})`.execute(handle.db);

describe('nodes sharing one database', () => {
  const onePerFile = testDatabaseUrl ? false : 'SQLite is one node per database file; the PostgreSQL run starts three together';
  it('runs each migration once when three nodes start together on an empty database', { skip: onePerFile }, async () => {
    const shared = await sharedDatabase(3);
    try {
      const ran = await shared.locked(() => Promise.all(shared.handles.map((handle) => handle.migrate())));
      assert.deepEqual(ran.flat().sort(), [...migrationNames].sort(), `each migration ran on exactly one node: ${JSON.stringify(ran)}`);
      const recorded = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(shared.handles[0]!.db);
      assert.deepEqual(
        recorded.rows.map((row) => row.name),
        [...migrationNames].sort(),
      );
    } finally {
      await shared.close();
    }
  });

  it('migrates a schema while other schemas of the database are created and dropped', { skip: onePerFile }, async () => {
    // Nodes (and test apps) each in a schema of their own share one server: one's migration must not
    // trip over another schema dropped while it looks up which tables exist.
    const url = testDatabaseUrl!;
    const stamp = `${process.pid}_${Date.now().toString(36)}`;
    const churner = new pg.Client({ connectionString: url });
    await churner.connect();
    const handle = openDatabase({ url, schema: `t_migrated_${stamp}` });
    let churning = true;
    let churned = 0;
    const churn = (async () => {
      while (churning) {
        const schema = `t_churn_${stamp}_${churned++}`;
        await churner.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items (id serial primary key, body text)`);
        await churner.query(`DROP SCHEMA ${schema} CASCADE`);
      }
    })();
    try {
      const ran = await handle.migrate();
      assert.deepEqual([...ran].sort(), [...migrationNames].sort());
      // The lookup the migrator makes, again and again while schemas come and go.
      for (let look = 0; look < 20; look++) {
        const tables = await handle.db.introspection.getTables({ withInternalKyselyTables: true });
        assert.ok(tables.some((table) => table.name === 'kysely_migration' && table.schema === `t_migrated_${stamp}`));
      }
      assert.ok(churned > 1, `schemas were dropped meanwhile: ${churned}`);
    } finally {
      churning = false;
      await churn.catch(() => {});
      await churner.end();
      await handle.close();
      await dropTestSchema(url, `t_migrated_${stamp}`);
    }
  });

  it('refuses to start a node whose code is older than the schema, naming both versions', async () => {
    const shared = await sharedDatabase(2);
    try {
      await shared.locked(() => shared.handles[0]!.migrate());
      await recordFutureMigration(shared.handles[0]!);
      await assert.rejects(
        shared.locked(() => shared.handles[1]!.migrate()),
        (error: Error) => error.message.includes('9999_from_a_newer_version') && error.message.includes(latestMigration),
      );
      // Nothing of the newer schema was touched: the refusal came before any migration ran.
      const recorded = await sql<{ count: string | number }>`select count(*) as count from kysely_migration`.execute(shared.handles[0]!.db);
      assert.equal(Number(recorded.rows[0]!.count), migrationNames.length + 1);
    } finally {
      await shared.close();
    }
  });

  it(
    'stops the service at start with that message and a failing exit code',
    { skip: testDatabaseUrl ? 'the service runs in the public schema; the SQLite run starts it' : false },
    async () => {
      const shared = await sharedDatabase(1);
      try {
        await shared.handles[0]!.migrate();
        await recordFutureMigration(shared.handles[0]!);
        const started = promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
          cwd: root,
          env: { ...process.env, DATABASE_URL: shared.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
          timeout: 60_000,
        });
        const failure = await started.then(
          () => assert.fail('the service started on a newer schema'),
          (error: { code: number; stderr: string }) => error,
        );
        assert.equal(failure.code, 1);
        assert.match(failure.stderr, /schema is at migration 9999_from_a_newer_version, newer than this code knows \(its latest is /);
        assert.ok(failure.stderr.includes(latestMigration), failure.stderr);
      } finally {
        await shared.close();
      }
    },
  );
});

/**
 * A TCP relay in front of the test's PostgreSQL that the test can cut (refusing new connections and
 * breaking open ones) and restore: a database outage as the service sees it.
 */
async function cuttableRelay(target: URL) {
  const sockets = new Set<Socket>();
  let open = true;
  const server = createServer((client) => {
    if (!open) return client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => (sockets.delete(socket), client.destroy(), upstream.destroy()));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as AddressInfo).port);
  const cut = () => {
    open = false;
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: url.toString(),
    cut,
    restore() {
      open = true;
    },
    close: () => new Promise<void>((resolve) => (cut(), server.close(() => resolve()))),
  };
}

describe('a database outage', { skip: testDatabaseUrl ? false : 'SQLite is a file of the node itself; the PostgreSQL run covers outages' }, () => {
  it('answers 503 quickly while the database is unreachable, /ready too, and heals by itself', async () => {
    const relay = await cuttableRelay(new URL(testDatabaseUrl!));
    const schema = `t_outage_${process.pid}_${Date.now().toString(36)}`;
    const config = loadConfig({ DATABASE_URL: relay.url, SECRETS_KEY: TEST_SECRETS_KEY, LOG_LEVEL: 'silent', DATABASE_TIMEOUT_MS: '1000' });
    const app = await withSchemaLock(testDatabaseUrl!, () => buildApp(config, { logger: false, webRoot: null, databaseSchema: schema }));
    try {
      const signup = (email: string) => app.server.inject({ method: 'POST', url: '/v1/auth/signup', payload: { email, password: 'correct horse battery' } });
      assert.equal((await signup('before@example.test')).statusCode, 201);

      relay.cut();
      const started = Date.now();
      const during = await signup('during@example.test');
      assert.equal(during.statusCode, 503, during.body);
      assert.equal(during.json().code, 'UNAVAILABLE');
      assert.equal(during.headers['retry-after'], '1');
      assert.ok(Date.now() - started < 1000 + 2000, `answered within DATABASE_TIMEOUT_MS and a margin (${Date.now() - started} ms)`);
      assert.equal((await app.server.inject({ method: 'GET', url: '/ready' })).statusCode, 503);
      assert.equal((await app.server.inject({ method: 'GET', url: '/health' })).statusCode, 200);

      relay.restore();
      assert.equal((await app.server.inject({ method: 'GET', url: '/ready' })).statusCode, 200);
      assert.equal((await signup('after@example.test')).statusCode, 201);
      const login = await app.server.inject({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: 'before@example.test', password: 'correct horse battery' },
      });
      assert.equal(login.statusCode, 200, 'what was acknowledged before the outage is there after it');
    } finally {
      await app.close();
      await relay.close();
      await dropTestSchema(testDatabaseUrl!, schema);
    }
  });
});
