/**
 * Shared parts of the benches: servers in child processes (so the load generator never shares an
 * event loop with the server it measures), throwaway databases, an autocannon wrapper, and output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Insertable } from 'kysely';
import pg from 'pg';
import type { AgentsTable } from '../src/modules/registry/index.ts';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const outDir = join(repoRoot, 'bench', '.out');

// ---------------------------------------------------------------------------------------------
// Cleanup: whatever a bench starts is stopped at the end, on error and on Ctrl-C.

type Task = () => Promise<void> | void;

export class Cleanup {
  private tasks: Task[] = [];
  add(task: Task): void {
    this.tasks.push(task);
  }
  /** Runs tasks newest first; one failing does not stop the others. */
  async run(): Promise<void> {
    while (this.tasks.length > 0) {
      const task = this.tasks.pop()!;
      try {
        await task();
      } catch (error) {
        console.error('cleanup step failed:', error instanceof Error ? error.message : error);
      }
    }
  }
}

const liveChildren = new Set<ChildProcess>();
// Last resort if the bench dies without running its cleanup: no server is left listening.
process.on('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

/** Runs `main` with a Cleanup that runs when it ends, throws, or the process gets SIGINT/SIGTERM. */
export async function withCleanup(main: (cleanup: Cleanup) => Promise<void>): Promise<void> {
  const cleanup = new Cleanup();
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping`);
    void cleanup.run().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await main(cleanup);
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  } finally {
    await cleanup.run();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

// ---------------------------------------------------------------------------------------------
// Child processes.

export interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface StartOptions {
  name: string;
  /** A TypeScript or JavaScript entry point, relative to the repository root. */
  entry: string;
  env?: Record<string, string>;
  /** Extra node flags, e.g. ['--cpu-prof', '--cpu-prof-dir=bench/.out/prof']. */
  nodeArgs?: string[];
  /** Path answering 2xx once the server is ready. */
  readyPath?: string;
  /** Another checkout to run `entry` in (a side-by-side comparison with an older commit). */
  cwd?: string;
  readyTimeoutMs?: number;
  /** The port to listen on (a node restarted behind a proxy keeps its address); default a free one. */
  port?: number;
}

/**
 * Spawns `node --import tsx <entry>` (a .js entry: plain `node <entry>`) with PORT set, and resolves
 * once readyPath answers 2xx, with how long that took from the spawn.
 */
export async function startNodeServer(options: StartOptions, cleanup?: Cleanup): Promise<Server & { readyMs: number; readyCpuSeconds: number }> {
  const port = options.port ?? (await freePort());
  const spawned = performance.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...(options.entry.endsWith('.js') ? [] : ['--import', 'tsx']), options.entry], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveChildren.add(child);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  void exited.then(() => liveChildren.delete(child));
  const prefix = (chunk: Buffer) => chunk.toString().replace(/^(?=.)/gm, `[${options.name}] `);
  child.stdout!.on('data', (chunk: Buffer) => process.stderr.write(prefix(chunk)));
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(prefix(chunk)));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  cleanup?.add(stop);

  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(`${url}${options.readyPath ?? '/'}`, child, options.readyTimeoutMs ?? Number(process.env.BENCH_READY_TIMEOUT_MS ?? 60_000));
  const readyMs = performance.now() - spawned;
  return { name: options.name, url, child, stop, readyMs, readyCpuSeconds: cpuSeconds(child.pid!) };
}

async function waitUntilReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`server exited (${child.exitCode ?? child.signalCode}) before answering ${url}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** Resident memory of a process now, in MB (Linux: /proc/<pid>/status VmRSS). */
export function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** CPU seconds a process has used so far (Linux: /proc/<pid>/stat utime + stime, in clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds used so far by each thread of a process, by thread name (`request thread` for the main one); Linux only. */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const name = Number(tid) === pid ? 'request thread' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
  }
  return byName;
}

/**
 * Waits until a server's process has settled: under `maxCores` of CPU over a `windowMs` window (its
 * background work, such as discovery's sentence vectors for a new index, is done). Resolves with
 * the seconds waited; throws after `timeoutMs`.
 */
export async function waitUntilIdle(server: Server, { maxCores = 0.1, windowMs = 3000, timeoutMs = 20 * 60_000 } = {}): Promise<number> {
  const started = Date.now();
  const pid = server.child.pid!;
  while (Date.now() - started < timeoutMs) {
    const before = cpuSeconds(pid);
    await new Promise((r) => setTimeout(r, windowMs));
    if ((cpuSeconds(pid) - before) / (windowMs / 1000) < maxCores) return (Date.now() - started) / 1000;
  }
  throw new Error(`${server.name} still busy after ${timeoutMs / 1000} s`);
}

/** The bare Fastify baseline (bench/hello-world.ts). */
export function startHelloWorld(cleanup?: Cleanup, nodeArgs?: string[]): Promise<Server> {
  return startNodeServer({ name: 'hello-world', entry: 'bench/hello-world.ts', ...(nodeArgs ? { nodeArgs } : {}) }, cleanup);
}

/** With BENCH_CPU_PROF=1 the service writes a V8 CPU profile here when it stops (see bench/cpuprofile.ts). */
export const profileDir = join(outDir, 'prof');

/**
 * The real service (src/main.ts) on the given database. The rate limiter stays on but out of reach:
 * 10,000,000 is the most RATE_LIMIT_MAX accepts.
 */
export async function startService(
  databaseUrl: string,
  cleanup?: Cleanup,
  extra: { env?: Record<string, string>; nodeArgs?: string[]; entry?: string; cwd?: string; readyTimeoutMs?: number; name?: string; port?: number } = {},
): Promise<Server & { readyMs: number; readyCpuSeconds: number; statementCounts: (() => Promise<StatementCounts>) | null }> {
  // On PostgreSQL the service counts the statements it sends (bench/pg-statement-counter.mjs).
  const countFile = databaseUrl.startsWith('postgres') ? join(mkdtempSync(join(tmpdir(), 'agentry-statements-')), 'counts.json') : null;
  if (countFile) cleanup?.add(() => rmSync(dirname(countFile), { recursive: true, force: true }));
  const nodeArgs = [
    ...(countFile ? ['--import', join(repoRoot, 'bench', 'pg-statement-counter.mjs')] : []),
    ...(extra.nodeArgs ?? []),
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
  ];
  const server = await startNodeServer(
    {
      name: extra.name ?? 'service',
      ...(extra.port ? { port: extra.port } : {}),
      entry: extra.entry ?? 'src/main.ts',
      ...(extra.cwd ? { cwd: extra.cwd } : {}),
      ...(extra.readyTimeoutMs ? { readyTimeoutMs: extra.readyTimeoutMs } : {}),
      readyPath: '/health',
      env: {
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        SECRETS_KEY: BENCH_SECRETS_KEY,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_MAX: '10000000',
        ...(countFile ? { PG_STATEMENT_COUNT_FILE: countFile } : {}),
        ...extra.env,
      },
      nodeArgs,
      ...(extra.readyTimeoutMs ? { readyTimeoutMs: extra.readyTimeoutMs } : {}),
    },
    cleanup,
  );
  return { ...server, statementCounts: countFile ? () => readStatementCounts(server.child, countFile) : null };
}

// ---------------------------------------------------------------------------------------------
// Statements a service sends to PostgreSQL.

/** Every statement the service's PostgreSQL clients sent since it started, in all and by statement text. */
export interface StatementCounts {
  total: number;
  byText: Record<string, number>;
}

/** Asks the service (SIGUSR2) to write its counts, and reads them once written. */
async function readStatementCounts(child: ChildProcess, file: string): Promise<StatementCounts> {
  rmSync(file, { force: true });
  child.kill('SIGUSR2');
  for (let i = 0; i < 200; i++) {
    await new Promise((r) => setTimeout(r, 10));
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as StatementCounts;
    } catch {
      // not written yet (or half written)
    }
  }
  throw new Error('the service did not write its statement counts');
}

/** The statements sent between two readings. */
export function statementsBetween(before: StatementCounts, after: StatementCounts): StatementCounts {
  const byText: Record<string, number> = {};
  for (const [text, count] of Object.entries(after.byText)) {
    const sent = count - (before.byText[text] ?? 0);
    if (sent > 0) byText[text] = sent;
  }
  return { total: after.total - before.total, byText };
}

/** The `top` most sent statements, per operation (`operations` of them), as a markdown table. */
export function busiestStatements(counts: StatementCounts, operations: number, top = 12): string {
  const rows = Object.entries(counts.byText)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([text, count]) => [(count / operations).toFixed(2), `\`${text.replace(/\s+/g, ' ').slice(0, 160)}\``]);
  return markdownTable(['per operation', 'statement'], rows);
}

/** PostgreSQL's own count of committed transactions in the bench's database (pg_stat_database, updated about once a second). */
export async function pgCommits(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ xact_commit: string }>('select xact_commit from pg_stat_database where datname = current_database()');
    return Number(rows[0]?.xact_commit ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * Samples what the bench database's client backends are waiting on (`pg_stat_activity`) every
 * `everyMs` until stopped: per sample, each active backend counts once under its wait event
 * ("CPU" when it waits on nothing), a lock wait also under the start of its statement. The
 * sampler's own connection is left out.
 */
export async function sampleWaitEvents(databaseUrl: string, everyMs = 100) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const byEvent = new Map<string, number>();
  const lockedStatements = new Map<string, number>();
  let samples = 0;
  let active = 0;
  let stopped = false;
  const sampling = (async () => {
    while (!stopped) {
      const { rows } = await client.query<{ wait_event_type: string | null; wait_event: string | null; query: string }>(
        `select wait_event_type, wait_event, query from pg_stat_activity
          where datname = current_database() and backend_type = 'client backend' and state = 'active' and pid <> pg_backend_pid()`,
      );
      samples++;
      for (const row of rows) {
        active++;
        const event = row.wait_event_type ? `${row.wait_event_type}: ${row.wait_event}` : 'CPU';
        byEvent.set(event, (byEvent.get(event) ?? 0) + 1);
        if (row.wait_event_type === 'Lock') {
          const statement = row.query.replace(/\s+/g, ' ').slice(0, 80);
          lockedStatements.set(statement, (lockedStatements.get(statement) ?? 0) + 1);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    /** Stops sampling; the table of wait events, most frequent first, with the statements that waited on locks. */
    async stop(): Promise<string> {
      stopped = true;
      await sampling;
      await client.end();
      const share = (count: number) => `${((100 * count) / Math.max(1, active)).toFixed(0)}%`;
      const rows = [...byEvent].sort((a, b) => b[1] - a[1]).map(([event, count]) => [event, String(count), share(count)]);
      const locks = [...lockedStatements].sort((a, b) => b[1] - a[1]).map(([statement, count]) => `  ${count} \`${statement}\``);
      return [
        `${samples} samples, ${active} active backends seen in them:`,
        '',
        markdownTable(['wait event', 'backends', 'share'], rows),
        ...(locks.length > 0 ? ['', 'Lock waits by statement:', ...locks] : []),
      ].join('\n');
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Databases: each run gets a fresh one, removed at the end, so runs are repeatable.

export interface BenchDatabase {
  dialect: 'sqlite' | 'postgres';
  url: string;
}

/** Any fixed key: a benchmark's database is thrown away with its sealed credentials. */
export const BENCH_SECRETS_KEY = '0'.repeat(64);

/**
 * BENCH_DATABASE_URL (a postgres:// URL) names a server on which a fresh database is created and
 * later dropped; without it, a SQLite file in a temporary directory.
 */
export async function benchDatabase(cleanup: Cleanup, adminUrl = process.env.BENCH_DATABASE_URL || null): Promise<BenchDatabase> {
  if (!adminUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'agentry-bench-'));
    cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
    return { dialect: 'sqlite', url: `sqlite:${join(dir, 'bench.db')}` };
  }
  const name = `bench_${process.pid}_${Date.now().toString(36)}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  // Registered after the server stops (cleanup runs newest first), but FORCE covers a straggler.
  cleanup.add(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { dialect: 'postgres', url: url.toString() };
}

type AgentRow = Insertable<AgentsTable>;

/**
 * An agent row written straight into the table (seeding skips the API for speed): the given columns,
 * and every optional one empty as registration leaves it.
 */
export function agentRow(
  fields: Pick<AgentRow, 'id' | 'name' | 'slug' | 'status' | 'owner_id' | 'registration_pubkey' | 'delivery_mode' | 'created_at' | 'updated_at'> &
    Partial<AgentRow>,
): AgentRow {
  return {
    description: '',
    long_description: null,
    endpoint: null,
    protocols: '[]',
    categories: '[]',
    capabilities: '[]',
    tags: '[]',
    docs_url: null,
    manifest_url: null,
    auth_type: 'none',
    version: '1.0.0',
    visibility: 'public',
    org_id: null,
    input_schema: null,
    twitter_url: null,
    claimed_at: null,
    key_verified_at: null,
    webhook_secret: null,
    last_seen_at: null,
    reported_status: null,
    reported_load: null,
    price_per_task_cents: 0,
    currency: 'usd',
    ...fields,
  };
}

/** An unclaimed (provisional) agent holding `pubkey`: an issuer receipts can name. */
export const provisionalAgentRow = (id: string, slug: string, pubkey: string, now: string): AgentRow =>
  agentRow({
    id,
    name: slug,
    slug,
    status: 'provisional',
    owner_id: null,
    registration_pubkey: pubkey,
    delivery_mode: 'poll',
    created_at: now,
    updated_at: now,
  });

/** mulberry32: a small deterministic generator of numbers in [0, 1), so every run seeds the same data. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers for seeding.

export async function postJson<T = unknown>(url: string, body: unknown, token?: string): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url} -> ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A delivered task as a local webhook agent hears it: when it arrived and how to call back. */
export interface WebhookArrival {
  at: number;
  taskId: string;
  taskToken: string;
}

/**
 * A local agent for webhook benches: answers every delivery 200 at once and hands each arrival to
 * `onArrival` (possibly before the submitter has its own response). Gives the endpoint to register.
 */
export async function startWebhookAgent(cleanup: Cleanup, onArrival: (arrival: WebhookArrival) => void): Promise<string> {
  const agent = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { taskId: string; taskToken: string };
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      onArrival({ at, taskId: payload.taskId, taskToken: payload.taskToken });
    });
  });
  await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
  cleanup.add(() => new Promise<void>((resolve) => agent.close(() => resolve())));
  return `http://127.0.0.1:${(agent.address() as AddressInfo).port}/hook`;
}

/** A summarising agent that receives its tasks by webhook at `endpoint`, with its signing secret made: its id. */
export async function registerWebhookAgent(serviceUrl: string, ownerToken: string, name: string, endpoint: string): Promise<string> {
  const agent = await postJson<{ data: { id: string } }>(
    `${serviceUrl}/v1/agents`,
    { name, description: 'Summarises', endpoint, protocols: ['rest'], categories: ['productivity'], capabilities: ['text-summarization'] },
    ownerToken,
  );
  await postJson(`${serviceUrl}/v1/agents/${agent.data.id}/webhook-secret`, {}, ownerToken);
  return agent.data.id;
}

// ---------------------------------------------------------------------------------------------
// Load.

export interface Target {
  name: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The target service's statement counter (startService's `statementCounts`): statements per request are counted when given. */
  statementCounts?: (() => Promise<StatementCounts>) | null;
  /** The serving process: its CPU per answered request is measured when given (rates swing with the machine's load; CPU per request much less). */
  pid?: number;
}

export interface Measurement {
  name: string;
  /** Mean requests per second. */
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  /** Socket errors and timeouts, and what they were (error code or message -> count). */
  errors: number;
  errorKinds: Record<string, number>;
  statusCodes: Record<string, number>;
  /** On PostgreSQL, when the options name the service's counter: the statements it sent per 2xx answer of the measured run. */
  statementsPerRequest?: number;
  /** When the target names its process: CPU (user + system, every thread) per request of the measured run, in microseconds. */
  cpuPerRequestUs?: number;
  /** The same by thread name (`request thread` for the main one; threads of one name summed), in microseconds. */
  cpuPerRequestByThreadUs?: Record<string, number>;
}

export interface LoadOptions {
  seconds: number;
  connections?: number;
  pipelining?: number;
  /** Discarded run first, so JIT and caches are warm; 0 to skip. */
  warmupSeconds?: number;
  /**
   * Pause after the run: autocannon returns with requests still in the server, which would
   * otherwise count against the next target (or still be running when the server is stopped).
   */
  settleMs?: number;
}

export async function measure(
  target: Target,
  { seconds, connections = 50, pipelining = 1, warmupSeconds = 2, settleMs = 1000 }: LoadOptions,
): Promise<Measurement> {
  const base = {
    url: target.url,
    connections,
    pipelining,
    ...(target.method ? { method: target.method } : {}),
    ...(target.headers ? { headers: target.headers } : {}),
    ...(target.body ? { body: target.body } : {}),
  };
  const settle = () => new Promise((r) => setTimeout(r, settleMs));
  if (warmupSeconds > 0) {
    await autocannon({ ...base, duration: warmupSeconds });
    await settle();
  }
  const errorKinds: Record<string, number> = {};
  const statementsBefore = await target.statementCounts?.();
  const cpuBefore = target.pid ? cpuSeconds(target.pid) : null;
  const threadsBefore = target.pid ? threadCpuSeconds(target.pid) : null;
  const run = autocannon({ ...base, duration: seconds });
  run.on('reqError', (error: Error & { code?: string }) => {
    const kind = error.code ?? error.message;
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
  });
  const result = await run;
  await settle();
  // After the settle: the requests still in the server when autocannon returned are paid for too.
  const cpuAfter = target.pid ? cpuSeconds(target.pid) : null;
  const threadsAfter = target.pid ? threadCpuSeconds(target.pid) : null;
  const statementsAfter = await target.statementCounts?.();
  const answered = result.requests.total - result.non2xx - result.errors;
  return {
    ...(cpuBefore !== null && cpuAfter !== null ? { cpuPerRequestUs: ((cpuAfter - cpuBefore) * 1e6) / result.requests.total } : {}),
    ...(threadsBefore && threadsAfter
      ? {
          cpuPerRequestByThreadUs: Object.fromEntries(
            [...threadsAfter].map(([name, seconds]) => [name, ((seconds - (threadsBefore.get(name) ?? 0)) * 1e6) / result.requests.total]),
          ),
        }
      : {}),
    ...(statementsBefore && statementsAfter ? { statementsPerRequest: statementsBetween(statementsBefore, statementsAfter).total / answered } : {}),
    name: target.name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    errorKinds,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count])),
  };
}

/** Measures targets one after another (never in parallel: they would compete for the 2 cores). */
export async function measureAll(targets: Target[], options: LoadOptions): Promise<Measurement[]> {
  const results: Measurement[] = [];
  for (const target of targets) {
    process.stderr.write(`measuring ${target.name} for ${options.seconds} s ...\n`);
    results.push(await measure(target, options));
  }
  return results;
}

/** Lines describing measurements that saw non-2xx answers or socket errors; empty when all is clean. */
export function problemsOf(results: Measurement[]): string[] {
  return results
    .filter((r) => r.non2xx > 0 || r.errors > 0)
    .map((r) => `${r.name}: ${r.non2xx} non-2xx, ${r.errors} errors (status codes ${JSON.stringify(r.statusCodes)}, errors ${JSON.stringify(r.errorKinds)})`);
}

// ---------------------------------------------------------------------------------------------
// Output.

/** The p-th percentile of an ascending list (nearest rank); NaN when it is empty. */
export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export function markdownTable(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map((h, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

/** route | req/s | p50 | p99 | ratio to the baseline measurement (the one named `baseline`). */
export function resultsTable(results: Measurement[], baseline: string): string {
  const base = results.find((r) => r.name === baseline)?.rps ?? NaN;
  const counted = results.some((r) => r.statementsPerRequest !== undefined);
  const cpuBase = results.find((r) => r.name === baseline)?.cpuPerRequestUs;
  const cpu = cpuBase !== undefined;
  return markdownTable(
    [
      'route',
      'req/s (mean)',
      'p50 (ms)',
      'p99 (ms)',
      `vs ${baseline}`,
      ...(cpu ? ['CPU per request (µs)', `${baseline}'s CPU per request as a share of this one's`] : []),
      ...(counted ? ['statements per request'] : []),
    ],
    results.map((r) => [
      r.name,
      Math.round(r.rps),
      r.p50,
      r.p99,
      `${((r.rps / base) * 100).toFixed(1)}%`,
      ...(cpu ? (r.cpuPerRequestUs === undefined ? ['', ''] : [Math.round(r.cpuPerRequestUs), `${((cpuBase / r.cpuPerRequestUs) * 100).toFixed(1)}%`]) : []),
      ...(counted ? [r.statementsPerRequest === undefined ? '' : r.statementsPerRequest.toFixed(2)] : []),
    ]),
  );
}

export function machine() {
  const cpu = cpus();
  return {
    node: process.version,
    cores: cpu.length,
    cpu: cpu[0]?.model ?? 'unknown',
    platform: `${process.platform}-${process.arch}`,
    // Other work on the machine skews every number; a load average well above 0 before a run is a warning.
    loadavg: loadavg().map((n) => Number(n.toFixed(2))),
  };
}

/** Writes bench/.out/<name>.json and returns its path. */
export function writeResult(name: string, data: unknown): string {
  mkdirSync(outDir, { recursive: true });
  const path = join(outDir, `${name}.json`);
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
  return path;
}

export const benchSeconds = (fallback = 10): number => {
  const raw = process.env.BENCH_SECONDS;
  const n = raw ? Number(raw) : fallback;
  if (!Number.isFinite(n) || n <= 0) throw new Error(`BENCH_SECONDS must be a positive number (got "${raw}")`);
  return n;
};
