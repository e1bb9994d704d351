/**
 * Discovery bench.
 *
 * 1. Relevance on the fixture set (test/fixtures/discovery): mean reciprocal rank and recall@5 of
 *    lexical search alone (the engine's full-text rank over the query's words) and of the full method
 *    (GET /v1/discover), in process.
 * 2. The service at 10,000 agents whose sentence vectors are stored (bench/discovery-agents.ts), in a
 *    child process running the compiled server (dist/main.js, as npm start does), BENCH_ROUNDS times
 *    (default 3):
 *    - start: ms from spawn to the first /health answer, and to the answer of a search sent right
 *      after it (the node is ready to search); RSS once the start-up load is done, and after searches;
 *    - load: GET /v1/discover?q=<fixture query, cycling> offered open loop at a fixed 50 per second
 *      (each request sent at its scheduled time whatever the answers, latency counted from that
 *      time), with GET /health at 20 per second beside it: p50/p99 of both, and the CPU each search
 *      costs, on the request thread and in the whole process (Linux /proc).
 *    BENCH_BASE=<folder of another checkout> runs the same rounds against that checkout's
 *    `src/main.ts` (through tsx, as its npm start did), alternating with this one.
 * 3. BENCH_COLD_FILL=1: seconds until a node with no stored vectors has filled them all.
 *
 *   npx tsx bench/discovery.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/discovery.ts
 */
import { Agent, request } from 'undici';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDiscoveryStore } from '../src/modules/discovery/index.ts';
import { contentWords } from '../src/lib/words.ts';
import { buildServerIfStale } from '../scripts/stale-builds.ts';
import { fixtureAgents, fixtureQueries, registrationOf, scoreRankings, type RelevanceReport } from '../test/fixtures/discovery/relevance.ts';
import { seedAgents, seedSentenceVectors } from './discovery-agents.ts';
import {
  benchDatabase,
  benchSeconds,
  machine,
  markdownTable,
  percentile,
  postJson,
  rssMb,
  startService,
  threadCpuSeconds,
  waitUntilIdle,
  withCleanup,
  writeResult,
  type Cleanup,
} from './lib.ts';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SEARCHES_PER_SECOND = 50;
const HEALTH_PER_SECOND = 20;
/** A busy machine can take tens of seconds to start a service. */
const READY_TIMEOUT_MS = 240_000;

async function relevance(databaseUrl: string): Promise<{ lexical: RelevanceReport; full: RelevanceReport }> {
  const app = await buildApp(loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '10000000' }), { logger: false });
  try {
    const inject = (method: 'GET' | 'POST', url: string, body?: unknown, token?: string) =>
      app.server.inject({
        method,
        url,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
    const token = (await inject('POST', '/v1/auth/signup', { email: 'relevance@example.test', password: 'correct horse battery' })).json().data.token as string;
    const keyById = new Map<string, string>();
    for (const agent of fixtureAgents) keyById.set((await inject('POST', '/v1/agents', registrationOf(agent), token)).json().data.id, agent.key);

    const lexicalSearch = createDiscoveryStore(app.database.db, app.database.dialect).lexical;
    const lexical = await scoreRankings(async (query) => {
      const scores = await lexicalSearch(contentWords(query.q), 50);
      return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => keyById.get(id)!);
    });
    const full = await scoreRankings(async (query) =>
      (await inject('GET', `/v1/discover?q=${encodeURIComponent(query.q)}&limit=50`)).json().data.map((a: { id: string }) => keyById.get(a.id)!),
    );
    return { lexical, full };
  } finally {
    await app.close();
  }
}

interface Load {
  searchP50: number;
  searchP99: number;
  healthP50: number;
  healthP99: number;
  searches: number;
  failures: number;
  /** CPU ms per search: request thread, whole process. */
  requestThreadCpuMs: number;
  processCpuMs: number;
}

/** Open loop: requests sent at fixed times whatever the answers; latency from the scheduled time. */
async function openLoad(url: string, pid: number, seconds: number): Promise<Load> {
  const dispatcher = new Agent({ connections: 256 });
  const searchMs: number[] = [];
  const healthMs: number[] = [];
  let failures = 0;
  const events: { at: number; path: string; into: number[] }[] = [];
  for (let i = 0; i < seconds * SEARCHES_PER_SECOND; i++) {
    events.push({
      at: (i * 1000) / SEARCHES_PER_SECOND,
      path: `/v1/discover?q=${encodeURIComponent(fixtureQueries[i % fixtureQueries.length]!.q)}`,
      into: searchMs,
    });
  }
  for (let i = 0; i < seconds * HEALTH_PER_SECOND; i++) events.push({ at: (i * 1000) / HEALTH_PER_SECOND + 7, path: '/health', into: healthMs });
  events.sort((a, b) => a.at - b.at);
  const cpuBefore = threadCpuSeconds(pid);
  const start = performance.now() + 50;
  const sent: Promise<void>[] = [];
  for (const event of events) {
    const at = start + event.at;
    const wait = at - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    sent.push(
      request(`${url}${event.path}`, { dispatcher }).then(
        async (response) => {
          await response.body.arrayBuffer();
          if (response.statusCode !== 200) failures++;
          event.into.push(performance.now() - at);
        },
        () => void failures++,
      ),
    );
  }
  await Promise.all(sent);
  const cpuAfter = threadCpuSeconds(pid);
  await dispatcher.close();
  const sum = (cpu: Map<string, number>) => [...cpu.values()].reduce((a, b) => a + b, 0);
  const searches = seconds * SEARCHES_PER_SECOND;
  searchMs.sort((a, b) => a - b);
  healthMs.sort((a, b) => a - b);
  return {
    searchP50: percentile(searchMs, 50),
    searchP99: percentile(searchMs, 99),
    healthP50: percentile(healthMs, 50),
    healthP99: percentile(healthMs, 99),
    searches,
    failures,
    requestThreadCpuMs: ((cpuAfter.get('request thread')! - cpuBefore.get('request thread')!) * 1000) / searches,
    processCpuMs: ((sum(cpuAfter) - sum(cpuBefore)) * 1000) / searches,
  };
}

interface Round {
  variant: string;
  healthMs: number;
  readyToSearchMs: number;
  idleRssMb: number;
  rssAfterSearchesMb: number;
  load: Load;
}

async function round(variant: { name: string; entry: string; cwd?: string }, databaseUrl: string, seconds: number, cleanup: Cleanup): Promise<Round> {
  const options = { entry: variant.entry, readyTimeoutMs: READY_TIMEOUT_MS, ...(variant.cwd ? { cwd: variant.cwd } : {}) };
  // Ready to search: a search sent as soon as /health answers, answered once the node has read its
  // agents and their stored vectors (at start, or for this search).
  const starting = await startService(databaseUrl, cleanup, options);
  const spawnedAt = performance.now() - starting.readyMs;
  await (await fetch(`${starting.url}/v1/discover?q=${encodeURIComponent('summarise my inbox')}`)).arrayBuffer();
  const readyToSearchMs = performance.now() - spawnedAt;
  await starting.stop();

  const service = await startService(databaseUrl, cleanup, options);
  const pid = service.child.pid!;
  await waitUntilIdle(service, { windowMs: 1000 });
  const idleRssMb = rssMb(pid);
  // Warm-up, discarded: every fixture query once (their vectors are then remembered, as in steady use).
  for (const query of fixtureQueries) await (await fetch(`${service.url}/v1/discover?q=${encodeURIComponent(query.q)}`)).arrayBuffer();
  const load = await openLoad(service.url, pid, seconds);
  const rssAfterSearchesMb = rssMb(pid);
  await service.stop();
  return { variant: variant.name, healthMs: service.readyMs, readyToSearchMs, idleRssMb, rssAfterSearchesMb, load };
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
/** Median, and the range over the rounds. */
const spread = (values: number[], digits = 0) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds(10);
  buildServerIfStale();
  const relevanceDb = await benchDatabase(cleanup);
  process.stderr.write(`relevance on ${relevanceDb.dialect} ...\n`);
  const scores = await relevance(relevanceDb.url);

  const database = await benchDatabase(cleanup);
  // Migrations and an owner: one start of the service.
  const setup = await startService(database.url, cleanup, { entry: 'dist/main.js', readyTimeoutMs: READY_TIMEOUT_MS });
  const signup = await postJson<{ data: { account: { id: string } } }>(`${setup.url}/v1/auth/signup`, {
    email: 'bench@example.test',
    password: 'correct horse battery',
  });
  await setup.stop();
  process.stderr.write(`seeding ${AGENTS} agents and their sentence vectors ...\n`);
  const rows = await seedAgents(database.url, signup.data.account.id, AGENTS);
  await seedSentenceVectors(database.url, rows);

  // An empty node: start and RSS with nothing to load (the README's first run).
  const emptyDb = await benchDatabase(cleanup);
  const empty: { variant: string; healthMs: number; healthCpuMs: number; idleRssMb: number; rssAfterSearchMb: number }[] = [];
  const variants = [
    { name: 'this commit, dist/main.js', entry: 'dist/main.js' },
    ...(process.env.BENCH_BASE
      ? [{ name: `base (${process.env.BENCH_BASE}), src/main.ts through tsx`, entry: 'src/main.ts', cwd: process.env.BENCH_BASE }]
      : []),
  ];
  const rounds: Round[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    for (const variant of variants) {
      process.stderr.write(`round ${r}/${ROUNDS}: ${variant.name} ...\n`);
      const node = await startService(emptyDb.url, cleanup, {
        entry: variant.entry,
        readyTimeoutMs: READY_TIMEOUT_MS,
        ...(variant.cwd ? { cwd: variant.cwd } : {}),
      });
      await waitUntilIdle(node, { windowMs: 1000 });
      const idleRssMb = rssMb(node.child.pid!);
      await (await fetch(`${node.url}/v1/discover?q=${encodeURIComponent('summarise my inbox')}`)).arrayBuffer();
      const rssAfterSearchMb = rssMb(node.child.pid!);
      await node.stop();
      empty.push({ variant: variant.name, healthMs: node.readyMs, healthCpuMs: node.readyCpuSeconds * 1000, idleRssMb, rssAfterSearchMb });
      rounds.push(await round(variant, database.url, seconds, cleanup));
    }
  }

  let cold: number | null = null;
  if (process.env.BENCH_COLD_FILL) {
    const coldDb = await benchDatabase(cleanup);
    const setupCold = await startService(coldDb.url, cleanup, { entry: 'dist/main.js', readyTimeoutMs: READY_TIMEOUT_MS });
    const owner = await postJson<{ data: { account: { id: string } } }>(`${setupCold.url}/v1/auth/signup`, {
      email: 'cold@example.test',
      password: 'correct horse battery',
    });
    await setupCold.stop();
    await seedAgents(coldDb.url, owner.data.account.id, AGENTS);
    const node = await startService(coldDb.url, cleanup, { entry: 'dist/main.js', readyTimeoutMs: READY_TIMEOUT_MS });
    process.stderr.write('cold fill: waiting until every sentence vector is filled ...\n');
    cold = await waitUntilIdle(node, { windowMs: 3000 });
    await node.stop();
  }

  const relevanceTable = markdownTable(
    ['method', 'MRR', 'recall@5'],
    [
      ['lexical alone (full-text rank)', scores.lexical.mrr.toFixed(3), scores.lexical.recallAt5.toFixed(3)],
      ['full method (GET /v1/discover)', scores.full.mrr.toFixed(3), scores.full.recallAt5.toFixed(3)],
    ],
  );
  const of = (variant: string) => rounds.filter((r) => r.variant === variant);
  const loadTable = markdownTable(
    [
      'server',
      'search p50 (ms)',
      'search p99 (ms)',
      '/health p50 (ms)',
      '/health p99 (ms)',
      'CPU/search, request thread (ms)',
      'CPU/search, process (ms)',
      'failures',
    ],
    variants.map(({ name }) => {
      const loads = of(name).map((r) => r.load);
      return [
        name,
        spread(loads.map((l) => l.searchP50)),
        spread(loads.map((l) => l.searchP99)),
        spread(
          loads.map((l) => l.healthP50),
          1,
        ),
        spread(
          loads.map((l) => l.healthP99),
          1,
        ),
        spread(
          loads.map((l) => l.requestThreadCpuMs),
          1,
        ),
        spread(
          loads.map((l) => l.processCpuMs),
          1,
        ),
        loads.reduce((sum, l) => sum + l.failures, 0),
      ];
    }),
  );
  const startTable = markdownTable(
    [
      'server',
      'empty: /health (ms)',
      'empty: CPU to /health (ms)',
      'empty: idle RSS (MB)',
      'empty: RSS after a search (MB)',
      `${AGENTS} agents: /health (ms)`,
      'ready to search (ms)',
      'idle RSS (MB)',
      'RSS after the load (MB)',
    ],
    variants.map(({ name }) => {
      const e = empty.filter((x) => x.variant === name);
      const r = of(name);
      return [
        name,
        spread(e.map((x) => x.healthMs)),
        spread(e.map((x) => x.healthCpuMs)),
        spread(e.map((x) => x.idleRssMb)),
        spread(e.map((x) => x.rssAfterSearchMb)),
        spread(r.map((x) => x.healthMs)),
        spread(r.map((x) => x.readyToSearchMs)),
        spread(r.map((x) => x.idleRssMb)),
        spread(r.map((x) => x.rssAfterSearchesMb)),
      ];
    }),
  );
  console.log(`\n## Discovery on ${database.dialect}\n\nRelevance (${fixtureAgents.length} agents, ${fixtureQueries.length} queries):\n\n${relevanceTable}\n`);
  console.log(
    `${AGENTS} agents, ${SEARCHES_PER_SECOND} searches/s and ${HEALTH_PER_SECOND} /health/s offered open loop for ${seconds} s; median (min-max) of ${ROUNDS} rounds:\n\n${loadTable}\n`,
  );
  console.log(`Start and memory, median (min-max) of ${ROUNDS} rounds:\n\n${startTable}\n`);
  if (cold !== null) console.log(`Cold fill of ${AGENTS} agents' sentence vectors: ${cold.toFixed(0)} s\n`);
  const failures = rounds.reduce((sum, r) => sum + r.load.failures, 0);
  if (failures > 0) console.log(`WARNING ${failures} searches or /health requests failed`);
  writeResult(`discovery-${database.dialect}`, {
    bench: 'discovery',
    dialect: database.dialect,
    date: new Date().toISOString(),
    machine: machine(),
    seconds,
    agents: AGENTS,
    relevance: { lexical: scores.lexical, full: scores.full },
    rounds,
    empty,
    coldFillSeconds: cold,
  });
  if (failures > 0) process.exitCode = 1;
});
