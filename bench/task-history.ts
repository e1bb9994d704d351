/**
 * Task history bench: does a service with a long history of finished tasks cost more than a new one?
 * At 1k, 100k and 1M completed tasks (seeded straight into the tables in batches, then ANALYZE, as a
 * production database is analysed) it measures, with the service restarted on the grown database:
 *
 *   - idle CPU: the service's process CPU time over IDLE_SECONDS with no request (its timers only),
 *     from /proc/<pid>/stat;
 *   - submit-to-webhook latency: TASKS tasks one after another to a local webhook agent, each
 *     timed from just before its POST /v1/tasks to the webhook's arrival (the agent then calls
 *     back, so the task completes before the next is sent).
 *
 * Each size is measured in ROUNDS rounds; the table gives the median and the range over them.
 *
 *   npx tsx bench/task-history.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/task-history.ts
 *   BENCH_HISTORY_SIZES=1000,100000 BENCH_HISTORY_TASKS=100 npx tsx bench/task-history.ts   (a quicker run)
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sqlitePath } from '../src/db/dialect.ts';
import { configureSqlite } from '../src/db/sqlite-pragmas.ts';
import {
  benchDatabase,
  cpuSeconds,
  machine,
  markdownTable,
  percentile,
  postJson,
  registerWebhookAgent,
  startWebhookAgent,
  startService,
  waitUntilIdle,
  withCleanup,
  writeResult,
  type BenchDatabase,
  type Server,
} from './lib.ts';

const ROUNDS = 3;
const IDLE_SECONDS = 10;
const TASKS = Number(process.env.BENCH_HISTORY_TASKS ?? 300);
const SEED_BATCH = 100_000;
const sizes = (process.env.BENCH_HISTORY_SIZES ?? '1000,100000,1000000').split(',').map(Number);

/** Runs SQL against the bench database from this process (the service is stopped meanwhile). */
async function openSeeder(database: BenchDatabase): Promise<{ run(statement: string): Promise<void>; close(): Promise<void> }> {
  if (database.dialect === 'sqlite') {
    const sqlite = new SQLite(sqlitePath(database.url));
    // The service's own connection settings, including the agentry_signal function the status triggers on tasks call.
    configureSqlite(sqlite);
    return { run: async (statement) => void sqlite.exec(statement), close: async () => void sqlite.close() };
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  return { run: async (statement) => void (await client.query(statement)), close: () => client.end() };
}

/**
 * Completed tasks `from`..`to` (1-based, ids padded so they sort in order), all done by the bench
 * agent for the bench requester, each with its finished delivery job, as the service leaves them.
 */
function seedStatements(dialect: BenchDatabase['dialect'], from: number, to: number, requesterId: string, agentId: string): string[] {
  const numbers =
    dialect === 'sqlite'
      ? `WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to}) SELECT i FROM n`
      : `SELECT i FROM generate_series(${from}, ${to}) AS i`;
  const id = dialect === 'sqlite' ? `'hist-' || substr('000000000' || i, -9, 9)` : `'hist-' || lpad(i::text, 9, '0')`;
  const at = `'2026-01-01T00:00:00.000Z'`;
  return [
    `INSERT INTO tasks (id, requester_id, description, capabilities, assigned_agent_id, candidates, status, result, priority, created_at, updated_at, expires_at, delivered_at, completed_at)
     SELECT ${id}, '${requesterId}', 'Summarise an old report', '["summarize"]', '${agentId}', '["${agentId}"]', 'completed', '{"ok":true}', 'normal', ${at}, ${at}, ${at}, ${at}, ${at} FROM (${numbers}) AS numbers`,
    `INSERT INTO task_deliveries (id, task_id, agent_id, attempts, state, run_at, created_at, updated_at)
     SELECT 'job-' || substr(${id}, 6), ${id}, '${agentId}', 1, 'done', ${at}, ${at}, ${at} FROM (${numbers}) AS numbers`,
  ];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const spread = (values: number[], digits: number) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

await withCleanup(async (cleanup) => {
  const database = await benchDatabase(cleanup);

  // The agent: answers 200 at once and notes when each task arrived (possibly before its submitter's response).
  const arrivedAt = new Map<string, { at: number; token: string }>();
  let arrivalHeard: () => void = () => {};
  const agentUrl = await startWebhookAgent(cleanup, ({ at, taskId, taskToken }) => {
    arrivedAt.set(taskId, { at, token: taskToken });
    arrivalHeard();
  });

  const env = { ALLOW_PRIVATE_ENDPOINTS: 'true' };
  // A start on a busy machine can take a minute.
  const startOptions = { env, readyTimeoutMs: 300_000 };
  let service: Server = await startService(database.url, cleanup, startOptions);
  const signup = (email: string) =>
    postJson<{ data: { token: string; account: { id: string } } }>(`${service.url}/v1/auth/signup`, { email, password: 'correct horse battery' });
  const owner = (await signup('owner@example.test')).data.token;
  const requester = (await signup('req@example.test')).data;
  const agentId = await registerWebhookAgent(service.url, owner, 'History Agent', agentUrl);

  async function oneTask(): Promise<number> {
    const started = performance.now();
    const response = await fetch(`${service.url}/v1/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${requester.token}` },
      body: JSON.stringify({ description: 'Summarise the bench report', capabilities: ['summarize'] }),
    });
    const { data } = (await response.json()) as { data: { id: string; status: string } };
    if (response.status !== 201 || data.status !== 'matched') throw new Error(`task not matched: ${response.status} ${JSON.stringify(data)}`);
    while (!arrivedAt.has(data.id)) await new Promise<void>((resolve) => (arrivalHeard = resolve));
    const arrival = arrivedAt.get(data.id)!;
    arrivedAt.delete(data.id);
    const callback = await fetch(`${service.url}/v1/tasks/${data.id}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ taskToken: arrival.token, result: { ok: true } }),
    });
    await callback.arrayBuffer();
    if (callback.status !== 200) throw new Error(`callback answered ${callback.status}`);
    return arrival.at - started;
  }

  const rows: (string | number)[][] = [];
  const figures: Record<string, unknown>[] = [];
  let seeded = 0;
  for (const size of sizes) {
    await service.stop();
    process.stderr.write(`seeding to ${size.toLocaleString('en')} completed tasks ...\n`);
    const seedStarted = performance.now();
    const seeder = await openSeeder(database);
    for (let from = seeded + 1; from <= size; from += SEED_BATCH) {
      for (const statement of seedStatements(database.dialect, from, Math.min(size, from + SEED_BATCH - 1), requester.account.id, agentId))
        await seeder.run(statement);
    }
    await seeder.run('ANALYZE');
    await seeder.close();
    seeded = size;
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    service = await startService(database.url, cleanup, startOptions);
    await postJson(`${service.url}/v1/agents/${agentId}/heartbeat`, { status: 'available' }, owner);
    for (let i = 0; i < 20; i++) await oneTask(); // warm up: JIT, caches, statements

    const idleCores: number[] = [];
    const p50s: number[] = [];
    const p99s: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await waitUntilIdle(service, { maxCores: 0.2, windowMs: 1000, timeoutMs: 60_000 });
      const pid = service.child.pid!;
      const before = cpuSeconds(pid);
      await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
      idleCores.push((cpuSeconds(pid) - before) / IDLE_SECONDS);
      const latencies: number[] = [];
      for (let i = 0; i < TASKS; i++) latencies.push(await oneTask());
      const timed = latencies.sort((a, b) => a - b);
      p50s.push(percentile(timed, 50));
      p99s.push(percentile(timed, 99));
      process.stderr.write(
        `  ${size}: round ${round}: idle ${(idleCores.at(-1)! * 100).toFixed(2)}% of a core, submit-to-webhook p50 ${p50s.at(-1)!.toFixed(1)} ms, p99 ${p99s.at(-1)!.toFixed(1)} ms\n`,
      );
    }
    figures.push({ size, seedSeconds, idleCores, p50s, p99s });
    rows.push([
      size.toLocaleString('en'),
      `${(median(idleCores) * 100).toFixed(2)} (${spread(
        idleCores.map((c) => c * 100),
        2,
      )})`,
      `${median(p50s).toFixed(1)} (${spread(p50s, 1)})`,
      `${median(p99s).toFixed(1)} (${spread(p99s, 1)})`,
    ]);
  }

  const table = markdownTable(['completed tasks', `idle CPU, % of a core over ${IDLE_SECONDS} s`, 'submit-to-webhook p50 ms', 'p99 ms'], rows);
  console.log(`\n## Task history on ${database.dialect} (${ROUNDS} rounds per size, median (range); ${TASKS} sequential tasks a round)\n\n${table}\n`);
  writeResult(`task-history-${database.dialect}`, {
    bench: 'task-history',
    dialect: database.dialect,
    date: new Date().toISOString(),
    machine: machine(),
    figures,
    table,
  });
});
