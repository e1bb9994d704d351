/**
 * The parts of a multi-node deployment, each started on loopback in a temporary folder of its own and
 * stopped by the Cleanup: a PostgreSQL cluster (never the shared one the tests use), a Redis, and
 * Debian's nginx running the configuration docs/operations.md recommends. The cluster harness
 * (bench/cluster-harness.ts) and the multi-node test put service nodes behind them.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, repoRoot, type Cleanup } from './lib.ts';

export const NGINX = process.env.NGINX_BIN || '/usr/sbin/nginx';
const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';

export const nginxInstalled = () => existsSync(NGINX);

/**
 * The nginx configuration of docs/operations.md (its `nginx` block), with the listen port and the
 * upstream servers replaced by these: what the tests and the harness run is what the guide says.
 */
export function recommendedNginxSite(upstreams: string[], listenPort: number): string {
  const guide = readFileSync(join(repoRoot, 'docs/operations.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(guide)?.[1];
  if (!block) throw new Error('docs/operations.md has no nginx block');
  const serverLine = /^(\s*)server 127\.0\.0\.1:\d+( [^;]*)?;\n/m.exec(block);
  if (!serverLine) throw new Error('the nginx block of docs/operations.md lists no upstream server');
  const servers = upstreams.map((address) => `${serverLine[1]}server ${address}${serverLine[2] ?? ''};\n`).join('');
  const withServers = block.replace(/^\s*server 127\.0\.0\.1:\d+[^;]*;\n/gm, '').replace(/(upstream agentry \{\n)/, `$1${servers}`);
  if (!/^\s*listen 80;$/m.test(withServers)) throw new Error('the nginx block of docs/operations.md does not listen on 80');
  return withServers.replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${listenPort};`);
}

export interface Nginx {
  url: string;
  /** nginx's access log lines so far (status and upstream addresses tried, one request a line). */
  accessLog(): string[];
  /** nginx's error log lines so far (why an upstream failed: refused, reset, closed early). */
  errorLog(): string[];
  stop(): Promise<void>;
}

/** nginx with its own prefix, configuration and logs in a temporary folder, in front of `upstreams` (host:port), on `port` or a free one. */
export async function startNginx(cleanup: Cleanup, upstreams: string[], port?: number): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'agentry-nginx-'));
  cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
  const listenPort = port ?? (await freePort());
  const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`;
  const conf = [
    // Run as root (CI containers), the workers would switch to `nobody`, who cannot use this folder.
    ...(process.getuid?.() === 0 ? ['user root root;'] : []),
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    'events { worker_connections 1024; }',
    'http {',
    // The connect time is 0.000 on a kept-alive connection nginx reused (a new loopback connection may also show 0.000).
    `  log_format upstreams '$status $request_method $uri $upstream_addr $upstream_status $upstream_connect_time';`,
    `  access_log ${join(dir, 'access.log')} upstreams;`,
    `  ${temp('client_body')} ${temp('proxy')} ${temp('fastcgi')} ${temp('uwsgi')} ${temp('scgi')}`,
    recommendedNginxSite(upstreams, listenPort),
    '}',
  ].join('\n');
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawn(NGINX, ['-p', `${dir}/`, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGQUIT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  cleanup.add(stop);
  await waitForPort(listenPort, child, 10_000, () => readFileSync(join(dir, 'error.log'), 'utf8'));
  return {
    url: `http://127.0.0.1:${listenPort}`,
    accessLog: () => readFileSync(join(dir, 'access.log'), 'utf8').split('\n').filter(Boolean),
    errorLog: () => readFileSync(join(dir, 'error.log'), 'utf8').split('\n').filter(Boolean),
    stop,
  };
}

async function waitForPort(port: number, child: ChildProcess | null, timeoutMs: number, diagnostics: () => string): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) throw new Error(`exited before listening:\n${diagnostics()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms:\n${diagnostics()}`);
}

export interface PostgresCluster {
  /** The service's database on this cluster. */
  url: string;
  /** `pg_ctl stop -m <mode>`, then start again after `downMs`; resolves once it accepts connections. */
  restart(mode: 'fast' | 'immediate', downMs?: number): Promise<void>;
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
}

/**
 * A PostgreSQL cluster of its own (initdb in a temporary folder, a free port, trust authentication on
 * loopback). initdb refuses to run as root, so as root the cluster belongs to the `postgres` user.
 */
export async function startPostgresCluster(cleanup: Cleanup): Promise<PostgresCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'agentry-pg-'));
  cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const run = (program: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : join(PG_BIN, program), asRoot ? ['-u', 'postgres', '--', join(PG_BIN, program), ...args] : args, {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`;
  const start = () => run('pg_ctl', ['-D', data, '-l', join(dir, 'postgres.log'), '-w', '-t', '60', '-o', options, 'start']);
  const stop = (mode: 'fast' | 'immediate' = 'fast') => run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
  // During a restart under load the harness keeps sending and timing requests: pg_ctl must not block its event loop.
  const runAsync = (program: string, args: string[]) =>
    promisify(execFile)(asRoot ? 'runuser' : join(PG_BIN, program), asRoot ? ['-u', 'postgres', '--', join(PG_BIN, program), ...args] : args);
  start();
  cleanup.add(() => {
    if (existsSync(join(data, 'postmaster.pid'))) stop('immediate');
  });
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE agentry');
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/agentry`,
    async restart(mode, downMs = 0) {
      await runAsync('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      await new Promise((r) => setTimeout(r, downMs));
      await runAsync('pg_ctl', ['-D', data, '-l', join(dir, 'postgres.log'), '-w', '-t', '60', '-o', options, 'start']);
    },
    stop,
    start,
  };
}

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** A Redis of its own on a free port, keeping nothing on disk. */
export async function startRedis(cleanup: Cleanup): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'agentry-redis-'));
  mkdirSync(dir, { recursive: true });
  cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
  let child: ChildProcess | null = null;
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((done) => running.once('exit', () => done()));
    running.kill('SIGTERM');
    await exited;
  };
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    await waitForPort(port, child, 10_000, () => 'redis-server');
  };
  cleanup.add(stop);
  await start();
  return { url: `redis://127.0.0.1:${port}`, stop, start };
}
