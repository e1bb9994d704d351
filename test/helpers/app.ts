/**
 * Builds the real app for a test, on SQLite by default or on PostgreSQL when TEST_DATABASE_URL is
 * set. Each app gets a database of its own (a temporary SQLite file, or an empty, migrated
 * PostgreSQL schema from the pool in schema-pool.ts), so test files run in parallel without seeing
 * each other's rows.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp, type AgentryApp, type AppOverrides } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openDatabase, type DatabaseHandle, type Db } from '../../src/db/database.ts';
import { createSentenceEncoder, type SentenceEncoder } from '../../src/modules/discovery/index.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { claimMigratedSchema } from './schema-pool.ts';

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || null;
/** The SECRETS_KEY of test apps on PostgreSQL (any 32 bytes: tests seal nothing that outlives them). */
export const TEST_SECRETS_KEY = '0'.repeat(64);
export const dialectUnderTest = testDatabaseUrl ? 'postgres' : 'sqlite';

export class TestClock implements Clock {
  private current: number;
  constructor(start = Date.parse('2026-11-21T12:00:00.000Z')) {
    this.current = start;
  }
  now = () => new Date(this.current);
  advance(ms: number): void {
    this.current += ms;
  }
}

export interface TestApp extends AgentryApp {
  /** The PostgreSQL schema the app works in; null on SQLite. */
  databaseSchema: string | null;
  request(options: {
    method: string;
    url: string;
    token?: string | null;
    body?: unknown;
    headers?: Record<string, string>;
    rawBody?: string | Buffer;
  }): Promise<LightMyRequestResponse>;
  /** Signs up a fresh person and returns its session token. */
  signup(email?: string): Promise<{ token: string; accountId: string; email: string }>;
}

let counter = 0;

let encoder: SentenceEncoder | null = null;
/**
 * One built-in sentence encoder for every app of a test process: its model takes seconds of CPU to
 * load, which each app would pay again on its first search. Its worker, idle, keeps no process alive.
 */
export const sharedSentenceEncoder = (): SentenceEncoder => (encoder ??= createSentenceEncoder());

/**
 * Kysely's migrator looks for its table by scanning every schema of the database with
 * has_schema_privilege(name), which fails when another test process drops its schema during the
 * scan. Migrations therefore hold this lock shared (many test processes migrate their own schemas
 * at once) and a schema is dropped only while holding it alone (`dropTestSchema`).
 */
const SCHEMA_LOCK = 7_2026;
export async function withSchemaLock<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  return withLock(url, 'pg_advisory_lock_shared', work);
}

/** Drops a test schema, when no test process is migrating (see withSchemaLock). */
export async function dropTestSchema(url: string, schema: string): Promise<void> {
  await withLock(url, 'pg_advisory_lock', async (client) => void (await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)));
}

async function withLock<T>(url: string, lock: 'pg_advisory_lock' | 'pg_advisory_lock_shared', work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`SELECT ${lock}($1)`, [SCHEMA_LOCK]);
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A database of its own for a test that works below the HTTP layer; not migrated yet. */
export async function openTestDatabase(): Promise<{ handle: DatabaseHandle; migrate(through?: string): Promise<void>; close(): Promise<void> }> {
  if (testDatabaseUrl) {
    const url = testDatabaseUrl;
    const schema = `t_${process.pid}_${Date.now().toString(36)}_${counter++}`;
    const handle = openDatabase({ url, schema });
    return {
      handle,
      migrate: (through) => withSchemaLock(url, async () => void (await handle.migrate(through))),
      async close() {
        await handle.close();
        await dropTestSchema(url, schema);
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'agentry-test-'));
  const handle = openDatabase({ url: `sqlite:${join(dir, 'test.db')}` });
  return {
    handle,
    migrate: async (through) => void (await handle.migrate(through)),
    async close() {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let sqliteTemplate: Promise<string> | null = null;
/**
 * A SQLite file migrated once per test process, copied for each app: a copy costs a millisecond,
 * migrating a new file about a tenth of a second of CPU.
 */
function migratedSqliteTemplate(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentry-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'template.db');
    const handle = openDatabase({ url: `sqlite:${file}` });
    try {
      await handle.migrate();
    } finally {
      await handle.close();
    }
    return file;
  })();
  return sqliteTemplate;
}

/**
 * scrypt's cost for passwords in test apps: real scrypt, 2 ms a hash instead of 50-80, since the suites
 * sign up thousands of accounts. The service's own cost is checked in test/unit/secrets.test.ts.
 */
export const TEST_PASSWORD_COST = 1024;

/** The password `TestApp.signup` gives every account it makes. */
export const signupPassword = 'correct horse battery';

export function startTestApp(env: Record<string, string> = {}, overrides: AppOverrides = {}): Promise<TestApp> {
  return startApp(env, overrides, null);
}

/**
 * An app on a database that held rows before a migration (tests of that migration): the database is
 * migrated through `through`, `fill` writes what it held then (typed for the latest schema, so only
 * what existed then), and the app migrates the rest as it starts.
 */
export function startTestAppAfter(
  through: string,
  fill: (db: Db) => Promise<void>,
  env: Record<string, string> = {},
  overrides: AppOverrides = {},
): Promise<TestApp> {
  return startApp(env, overrides, { through, fill });
}

async function startApp(
  env: Record<string, string>,
  overrides: AppOverrides,
  before: { through: string; fill: (db: Db) => Promise<void> } | null,
): Promise<TestApp> {
  let cleanup: () => Promise<void>;
  let databaseUrl: string;
  let databaseSchema: string | undefined;
  if (testDatabaseUrl && !before) {
    const url = testDatabaseUrl;
    databaseUrl = url;
    const pooled = await claimMigratedSchema(url, {
      migrateLocked: (work) => withSchemaLock(url, work),
      dropSchema: (schema) => dropTestSchema(url, schema),
    });
    databaseSchema = pooled.schema;
    cleanup = pooled.release;
  } else if (testDatabaseUrl) {
    // A test of a migration needs a schema that has not been migrated yet.
    databaseUrl = testDatabaseUrl;
    databaseSchema = `t_${process.pid}_${Date.now().toString(36)}_${counter++}`;
    const schema = databaseSchema;
    cleanup = () => dropTestSchema(testDatabaseUrl, schema);
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'agentry-test-'));
    const file = join(dir, 'test.db');
    if (!before) copyFileSync(await migratedSqliteTemplate(), file);
    databaseUrl = `sqlite:${file}`;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }

  // PostgreSQL needs a shared secrets key; on SQLite the app makes its key file beside the database.
  const secretsKey = testDatabaseUrl ? { SECRETS_KEY: TEST_SECRETS_KEY } : {};
  // The health prober stays off unless a test turns it on: probing each test agent's made-up endpoint
  // would change the agents' health under tests about something else.
  const config: Config = loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '100000',
    HEALTH_PROBE_INTERVAL_MS: '0',
    ...secretsKey,
    ...env,
  });
  const build = async () => {
    if (before) {
      const handle = openDatabase({ url: databaseUrl, ...(databaseSchema ? { schema: databaseSchema } : {}) });
      try {
        await handle.migrate(before.through);
        await before.fill(handle.db);
      } finally {
        await handle.close();
      }
    }
    return buildApp(config, {
      logger: false,
      webRoot: null,
      sentenceEncoder: sharedSentenceEncoder(),
      passwordCost: TEST_PASSWORD_COST,
      ...(databaseSchema ? { databaseSchema } : {}),
      ...overrides,
    });
  };
  const app = testDatabaseUrl ? await withSchemaLock(testDatabaseUrl, build) : await build();
  const release = holdDatabase(app, cleanup);
  return asTestApp(app, databaseSchema ?? null, async () => {
    await app.close();
    await release();
  });
}

/**
 * The apps using each test database: the database is emptied for the next app (or deleted) only when
 * the last of them has closed, whichever closes first (an app, or another node on its database).
 */
const databaseUsers = new WeakMap<AgentryApp['server'], { users: number; cleanup: () => Promise<void> }>();

function holdDatabase(app: AgentryApp, cleanup: () => Promise<void>): () => Promise<void> {
  const held = { users: 1, cleanup };
  databaseUsers.set(app.server, held);
  return () => letGo(held);
}

async function letGo(held: { users: number; cleanup: () => Promise<void> }): Promise<void> {
  held.users -= 1;
  if (held.users === 0) await held.cleanup();
}

/**
 * Another node on `app`'s database, configured as `app` is, as a second process would run it. On
 * PostgreSQL a second app on the same schema: signals travel between the two by LISTEN/NOTIFY. SQLite
 * has one node per database file, so this is `app` itself (closing it does nothing), unless
 * `sqliteFile` asks for a second app on the same file, for code that must see another writer's rows
 * without any signal.
 */
export async function otherNode(app: TestApp, options: { sqliteFile?: boolean; overrides?: AppOverrides } = {}): Promise<TestApp> {
  const schema = app.databaseSchema;
  if (!schema && !options.sqliteFile) return { ...app, close: async () => {} };
  const build = () =>
    buildApp(app.config, {
      logger: false,
      sentenceEncoder: sharedSentenceEncoder(),
      passwordCost: TEST_PASSWORD_COST,
      ...(schema ? { databaseSchema: schema } : {}),
      ...options.overrides,
    });
  const node = testDatabaseUrl ? await withSchemaLock(testDatabaseUrl, build) : await build();
  const held = databaseUsers.get(app.server);
  if (held) held.users += 1;
  return asTestApp(node, schema, async () => {
    await node.close();
    if (held) await letGo(held);
  });
}

/**
 * `app` with the test conveniences; requests are injected into its server unless `send` gives another
 * way (over real HTTP, through a proxy).
 */
export function asTestApp(app: AgentryApp, databaseSchema: string | null, close: () => Promise<void>, send?: TestApp['request']): TestApp {
  const inject: TestApp['request'] = ({ method, url, token, body, headers, rawBody }) =>
    app.server.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined || rawBody !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(rawBody !== undefined ? { payload: rawBody } : body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
  const request = send ?? inject;

  let people = 0;
  return {
    ...app,
    databaseSchema,
    request,
    /** Makes an account whose password is `signupPassword`. */
    async signup(email = `person${people++}-${Math.random().toString(36).slice(2, 8)}@example.test`) {
      const response = await request({ method: 'POST', url: '/v1/auth/signup', body: { email, password: signupPassword } });
      if (response.statusCode !== 201) throw new Error(`signup failed: ${response.statusCode} ${response.body}`);
      const { data } = response.json();
      return { token: data.token, accountId: data.account.id, email };
    },
    close,
  };
}

/** Asserts an error response has the catalogue's shape, status and code. */
export function expectError(
  response: LightMyRequestResponse,
  status: number,
  code: string,
): { code: string; message: string; details?: { path: string; message: string }[] } {
  const body = response.json();
  if (response.statusCode !== status || body.code !== code || typeof body.message !== 'string') {
    throw new Error(`expected ${status} ${code}, got ${response.statusCode} ${response.body}`);
  }
  if (!String(response.headers['content-type']).startsWith('application/json')) throw new Error('error is not JSON');
  return body;
}
