/**
 * Discovery as the registry grows: one database grown to each size in BENCH_SIZES (default 10,000,
 * 100,000 and 1,000,000 agents), the service restarted on it at each size.
 *
 * Agents are written straight into the database (bench/discovery-agents.ts: realistic texts and
 * capability mixes), each with a stored sentence vector: the real encoder's vector of its text,
 * scattered by Gaussian noise so that agents sharing a text form a cluster (embedding a million texts
 * takes hours; relevance is measured on the fixtures by bench/discovery.ts, not here).
 *
 * Per size, on the compiled server (dist/main.js, as npm start runs it) with DISCOVERY_INDEX_DIR set:
 *  - first start: seconds to /ready on the grown database, the node restoring the index saved at the
 *    last size and reading the agents added since (at the first size: every agent); then it saves
 *    its index and stops;
 *  - ready: seconds from the spawn of the restart to /ready answering 200 (search is ready);
 *  - RSS once ready and idle, and per agent beyond an empty node's;
 *  - first search: its latency and the process's CPU for it, against the warm median of the next
 *    BENCH_WARM searches (sequential, distinct fixture queries);
 *  - load: BENCH_RATE searches/s (default 10) offered open loop for BENCH_SECONDS (default 10), with
 *    /health at 5/s beside them: p50/p99 and CPU per search (request thread, whole process).
 * A size the node cannot start at (out of memory, or not ready within BENCH_READY_TIMEOUT_MS,
 * default 30 minutes) is reported as such and the bench goes on to print what it has.
 * BENCH_NODE_ARGS (e.g. `--max-old-space-size=16384`) is passed to the service's node.
 *
 *   npx tsx bench/discovery-scale.ts
 *   BENCH_SIZES=10000,100000 npx tsx bench/discovery-scale.ts
 *
 * Last line: `discovery-scale: cpu/search 10k=<ms> 1m=<ms>; rss/agent=<KB>; ready 1m=<s>; first/warm=<x>`.
 */
import { buildServerIfStale } from '../scripts/stale-builds.ts';
import { fixtureQueries } from '../test/fixtures/discovery/relevance.ts';
import { seedAgents, seedSentenceVectors } from './discovery-agents.ts';
import { openLoad, type Load } from './discovery-load.ts';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  benchDatabase,
  benchSeconds,
  cpuSeconds,
  machine,
  markdownTable,
  percentile,
  postJson,
  rssMb,
  startService,
  waitUntilIdle,
  withCleanup,
  writeResult,
  type Cleanup,
} from './lib.ts';

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map((size) => Number(size.trim()));
for (const size of SIZES) if (!Number.isInteger(size) || size < 1) throw new Error(`BENCH_SIZES: ${size} is not a positive whole number`);
const RATE = Number(process.env.BENCH_RATE ?? 10);
const WARM = Number(process.env.BENCH_WARM ?? 20);
const NOISE = Number(process.env.BENCH_NOISE ?? 0.015);
const READY_TIMEOUT_MS = Number(process.env.BENCH_READY_TIMEOUT_MS ?? 30 * 60_000);
const NODE_ARGS = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : [];
/** Agents written per transaction while growing: bounded memory in the bench at a million. */
const SEED_CHUNK = 20_000;
const queries = fixtureQueries.map((q) => q.q);

interface SizeResult {
  agents: number;
  firstStartSeconds: number;
  readySeconds: number;
  rssMb: number;
  firstMs: number;
  firstCpuMs: number;
  warmMedianMs: number;
  warmCpuMs: number;
  load: Load;
}
type Outcome = SizeResult | { agents: number; failed: string };

async function readyAfterSpawn(url: string, spawnedAt: number, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const response = await fetch(`${url}/ready`).catch(() => null);
    await response?.arrayBuffer();
    if (response?.status === 200) return (performance.now() - spawnedAt) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`/ready did not answer 200 within ${timeoutMs / 1000} s`);
}

/** One search: its latency and the process's CPU for it (to Linux's 10 ms tick). */
async function timedSearch(url: string, pid: number, q: string): Promise<{ ms: number; cpuMs: number }> {
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  const response = await fetch(`${url}/v1/discover?q=${encodeURIComponent(q)}`);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`search answered ${response.status}`);
  return { ms: performance.now() - started, cpuMs: (cpuSeconds(pid) - cpuBefore) * 1000 };
}

/** The saved index's file of agents (src/modules/discovery/agent-index.ts). */
const savedAt = (indexDir: string): number => {
  try {
    return statSync(join(indexDir, 'discovery-agents.bin')).mtimeMs;
  } catch {
    return 0;
  }
};

/** The compiled server on the grown database, its index saved in `indexDir`, probing nothing. */
const startNode = (databaseUrl: string, indexDir: string, cleanup: Cleanup) =>
  startService(databaseUrl, cleanup, {
    entry: 'dist/main.js',
    readyTimeoutMs: READY_TIMEOUT_MS,
    nodeArgs: NODE_ARGS,
    env: { HEALTH_PROBE_INTERVAL_MS: '0', DISCOVERY_INDEX_DIR: indexDir },
  });

/** Starts the node on the grown database and stops it once it has saved its index: seconds to /ready. */
async function firstStart(databaseUrl: string, indexDir: string, cleanup: Cleanup): Promise<number> {
  const before = savedAt(indexDir);
  const spawnedAt = performance.now();
  const service = await startNode(databaseUrl, indexDir, cleanup);
  try {
    const ready = await readyAfterSpawn(service.url, spawnedAt, READY_TIMEOUT_MS);
    const deadline = performance.now() + READY_TIMEOUT_MS;
    while (savedAt(indexDir) <= before) {
      if (performance.now() > deadline) throw new Error('the node did not save its index');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return ready;
  } finally {
    await service.stop();
  }
}

async function measureSize(databaseUrl: string, agents: number, seconds: number, indexDir: string, cleanup: Cleanup): Promise<SizeResult> {
  const firstStartSeconds = await firstStart(databaseUrl, indexDir, cleanup);
  const spawnedAt = performance.now();
  const service = await startNode(databaseUrl, indexDir, cleanup);
  try {
    const pid = service.child.pid!;
    const readySeconds = await readyAfterSpawn(service.url, spawnedAt, READY_TIMEOUT_MS);
    await waitUntilIdle(service, { windowMs: 1000 });
    const rss = rssMb(pid);
    const first = await timedSearch(service.url, pid, queries[0]!);
    // Each query's words once, so none is answered from a cache of the first.
    const warm: { ms: number; cpuMs: number }[] = [];
    for (let i = 1; i <= WARM; i++) warm.push(await timedSearch(service.url, pid, queries[i % queries.length]!));
    const warmMs = warm.map((w) => w.ms).sort((a, b) => a - b);
    const load = await openLoad(service.url, pid, { seconds, searchesPerSecond: RATE, healthPerSecond: 5, queries });
    return {
      agents,
      firstStartSeconds,
      readySeconds,
      rssMb: rss,
      firstMs: first.ms,
      firstCpuMs: first.cpuMs,
      warmMedianMs: percentile(warmMs, 50),
      warmCpuMs: warm.reduce((sum, w) => sum + w.cpuMs, 0) / warm.length,
      load,
    };
  } finally {
    await service.stop();
  }
}

const sizeLabel = (agents: number) => (agents >= 1_000_000 ? `${agents / 1_000_000}m` : agents >= 1000 ? `${agents / 1000}k` : String(agents));

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds(10);
  buildServerIfStale();
  const database = await benchDatabase(cleanup);
  const indexDir = mkdtempSync(join(tmpdir(), 'agentry-discovery-index-'));
  cleanup.add(() => rmSync(indexDir, { recursive: true, force: true }));
  // Migrations and an owner: one start of the service, which is also the empty node measured.
  const empty = await startService(database.url, cleanup, { entry: 'dist/main.js', readyTimeoutMs: READY_TIMEOUT_MS, nodeArgs: NODE_ARGS });
  const owner = await postJson<{ data: { account: { id: string } } }>(`${empty.url}/v1/auth/signup`, {
    email: 'bench@example.test',
    password: 'correct horse battery',
  });
  await readyAfterSpawn(empty.url, performance.now(), READY_TIMEOUT_MS);
  await timedSearch(empty.url, empty.child.pid!, queries[0]!);
  await waitUntilIdle(empty, { windowMs: 1000 });
  const emptyRssMb = rssMb(empty.child.pid!);
  await empty.stop();
  process.stderr.write(`empty node: ${emptyRssMb.toFixed(0)} MB after its first search\n`);

  const outcomes: Outcome[] = [];
  let seeded = 0;
  for (const size of [...SIZES].sort((a, b) => a - b)) {
    const seedStarted = performance.now();
    while (seeded < size) {
      const count = Math.min(SEED_CHUNK, size - seeded);
      const rows = await seedAgents(database.url, owner.data.account.id, count, seeded);
      await seedSentenceVectors(database.url, rows, { noise: NOISE, seed: seeded + 1 });
      seeded += count;
      if (seeded % 100_000 === 0 || seeded === size)
        process.stderr.write(`seeded ${seeded} agents (${((performance.now() - seedStarted) / 1000).toFixed(0)} s)\n`);
    }
    try {
      const result = await measureSize(database.url, size, seconds, indexDir, cleanup);
      outcomes.push(result);
      process.stderr.write(
        `${sizeLabel(size)}: first start ${result.firstStartSeconds.toFixed(1)} s, ready after restart ${result.readySeconds.toFixed(1)} s, ${result.rssMb.toFixed(0)} MB, cpu/search ${result.load.processCpuMs.toFixed(1)} ms\n`,
      );
    } catch (error) {
      outcomes.push({ agents: size, failed: error instanceof Error ? error.message : String(error) });
      process.stderr.write(`${sizeLabel(size)}: failed: ${String(error)}\n`);
    }
  }

  const measured = outcomes.filter((o): o is SizeResult => !('failed' in o));
  const table = markdownTable(
    [
      'agents',
      'first start on the grown database (s)',
      'ready after restart (s)',
      'RSS idle (MB)',
      'RSS per agent beyond empty (KB)',
      'CPU/search, whole process (ms)',
      'CPU/search, request thread (ms)',
      `p50 / p99 at ${RATE}/s (ms)`,
      'first search ms (CPU ms)',
      'warm median ms (CPU ms)',
      'first/warm',
    ],
    outcomes.map((o) =>
      'failed' in o
        ? [o.agents.toLocaleString('en'), `failed: ${o.failed}`, '', '', '', '', '', '', '', '', '']
        : [
            o.agents.toLocaleString('en'),
            o.firstStartSeconds.toFixed(1),
            o.readySeconds.toFixed(1),
            o.rssMb.toFixed(0),
            (((o.rssMb - emptyRssMb) * 1024) / o.agents).toFixed(2),
            o.load.processCpuMs.toFixed(1),
            o.load.requestThreadCpuMs.toFixed(1),
            `${o.load.searchP50.toFixed(0)} / ${o.load.searchP99.toFixed(0)}${o.load.failures ? ` (${o.load.failures} failed)` : ''}`,
            `${o.firstMs.toFixed(0)} (${o.firstCpuMs.toFixed(0)})`,
            `${o.warmMedianMs.toFixed(0)} (${o.warmCpuMs.toFixed(1)})`,
            (o.firstMs / o.warmMedianMs).toFixed(1),
          ],
    ),
  );
  const { cores, loadavg } = machine();
  const report = `## Discovery at scale (${cores} cores, load average ${loadavg.join(' ')} at the end)\n\nEmpty node after its first search: ${emptyRssMb.toFixed(0)} MB.\n\n${table}\n`;
  console.log(report);
  writeResult('discovery-scale', { emptyRssMb, outcomes, machine: machine() });

  const at = (agents: number) => measured.find((o) => o.agents === agents);
  const small = at(10_000);
  const large = at(1_000_000);
  const largest = measured.at(-1);
  const fmt = (value: number | undefined, digits = 1) => (value === undefined ? 'n/a' : value.toFixed(digits));
  console.log(
    `discovery-scale: cpu/search 10k=${fmt(small?.load.processCpuMs)} 1m=${fmt(large?.load.processCpuMs)}; ` +
      `rss/agent=${largest ? (((largest.rssMb - emptyRssMb) * 1024) / largest.agents).toFixed(2) : 'n/a'}; ` +
      `ready 1m=${fmt(large?.readySeconds)}; first/warm=${largest ? (largest.firstMs / largest.warmMedianMs).toFixed(1) : 'n/a'}`,
  );
});
