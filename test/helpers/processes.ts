/**
 * For tests that start the service as a real process (kill -9 runs, SIGTERM): a free port, a
 * database of its own, and a statement run as the database's admin.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { TEST_SECRETS_KEY, testDatabaseUrl } from './app.ts';
import { waitFor } from './wait.ts';

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

export interface ServiceProcess {
  child: ChildProcess;
  base: string;
  /** Resolves with the exit code once the process has ended, however it ended. */
  exited: Promise<number | null>;
}

/**
 * The real service (src/main.ts) as a child process on `port` and `databaseUrl`: quiet, without
 * Redis, with `env` on top. Not yet listening when this returns; see untilServing().
 */
export function spawnService(port: number, databaseUrl: string, env: Record<string, string> = {}): ServiceProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      SECRETS_KEY: TEST_SECRETS_KEY,
      LOG_LEVEL: 'silent',
      REDIS_URL: '',
      ...env,
    },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, base: `http://127.0.0.1:${port}`, exited };
}

/** Resolves once the service at `base` answers `path` with 200; a refused connection means it is not listening yet. */
export async function untilServing(base: string, path: '/health' | '/ready' = '/health'): Promise<void> {
  await waitFor(
    'the service to start',
    () =>
      fetch(`${base}${path}`).then(
        (response) => response.status,
        () => 0,
      ),
    (status) => status === 200,
    { timeoutMs: 120_000, intervalMs: 100 },
  );
}
