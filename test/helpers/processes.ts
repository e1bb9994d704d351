/**
 * For tests that start the service as a real process (kill -9 runs, SIGTERM): a free port, a
 * database of its own, and a statement run as the database's admin.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { testDatabaseUrl } from './app.ts';

export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs one statement on TEST_DATABASE_URL outside any test app (creating or dropping a schema). */
export async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl as string });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A database for a child process, on the suite's engine: a fresh PostgreSQL database beside
 * TEST_DATABASE_URL's, or a SQLite file in a new temporary folder. `cleanup` drops it.
 */
export async function processDatabase(prefix: string): Promise<{ databaseUrl: string; cleanup: () => Promise<void> }> {
  if (testDatabaseUrl) {
    const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`;
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(testDatabaseUrl);
    url.pathname = `/${name}`;
    return { databaseUrl: url.toString(), cleanup: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
  }
  const dir = mkdtempSync(join(tmpdir(), `agentry-${prefix}-`));
  return { databaseUrl: `sqlite:${join(dir, `${prefix}.db`)}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}
