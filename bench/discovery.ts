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
 *    With it, weak matches (docs/discovery.md): how many of the agents people would want come back
 *    as close matches, and how many results of requests no agent serves do, by the rule in use and
 *    by the relevance floor alone.
 *    BENCH_RELEVANCE_ONLY=1 stops there.
 * 3. BENCH_COLD_FILL=1: seconds until a node with no stored vectors has filled them all.
 *
 * Part 1 runs in modes (BENCH_MODES, a comma-separated list; default all four with
 * BENCH_RELEVANCE_ONLY, else `without`), each on a fresh database:
 *  - `without`: the agents as registered, no examples, no completed work;
 *  - `examples`: registered with their examples (test/fixtures/discovery/examples.json);
 *  - `work`: no examples; each agent given its completed tasks (completed-tasks.json) through the
 *    real routes: five requester accounts that own no agent submit them to the agent by id, the
 *    owner polls them (the agents are poll agents), calls back a result, the requester rates 5;
 *  - `work+examples`: both.
 * DISCOVERY_CANDIDATES_FROM=0 scores only the candidates of the approximate index (and the lexical and
 * catalogue matches) as a large registry does; unset, the fixture set is scored in full.
 * BENCH_EXAMPLES=1 is the old spelling of BENCH_MODES=examples. BENCH_RELEVANCE_ONLY=1 runs part 1
 * alone and prints its figures (MRR and recall@5, over all queries and the held-out half).
 *
 *   npx tsx bench/discovery.ts
 *   BENCH_RELEVANCE_ONLY=1 BENCH_EXAMPLES=1 npx tsx bench/discovery.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/discovery.ts
 */
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDiscoveryStore } from '../src/modules/discovery/index.ts';
import { contentWords } from '../src/lib/words.ts';
import { buildServerIfStale } from '../scripts/stale-builds.ts';
import {
  fixtureAgents,
  fixtureCompletedTasks,
  fixtureQueries,
  registrationOf,
  scoreRankings,
  unrelatedHeldOutQueries,
  unrelatedQueries,
  type RelevanceReport,
} from '../test/fixtures/discovery/relevance.ts';
import { WEAK_MATCH_FLOOR } from '../src/modules/discovery/index.ts';
import { seedAgents, seedSentenceVectors } from './discovery-agents.ts';
import { openLoad, type Load } from './discovery-load.ts';
import {
  BENCH_SECRETS_KEY,
  benchDatabase,
  benchSeconds,
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

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SEARCHES_PER_SECOND = 50;
const HEALTH_PER_SECOND = 20;
/** A busy machine can take tens of seconds to start a service. */
const READY_TIMEOUT_MS = 240_000;
const RELEVANCE_ONLY = Boolean(process.env.BENCH_RELEVANCE_ONLY);
const ALL_MODES = ['without', 'examples', 'work', 'work+examples'] as const;
type Mode = (typeof ALL_MODES)[number];
const MODES: Mode[] = process.env.BENCH_MODES
  ? (process.env.BENCH_MODES.split(',').map((m) => m.trim()) as Mode[])
  : process.env.BENCH_EXAMPLES
    ? ['examples']
    : RELEVANCE_ONLY
      ? [...ALL_MODES]
      : ['without'];
for (const mode of MODES) if (!ALL_MODES.includes(mode)) throw new Error(`unknown BENCH_MODES entry ${mode}: one of ${ALL_MODES.join(', ')}`);
/** Requester accounts that give the agents their completed tasks (the i-th task of each agent is account i's). */
const REQUESTERS = 5;

/** A result as the weak-match table needs it. */
interface Judged {
  relevance: number;
  weakMatch: boolean;
}

/**
 * The fixture queries' results split by whether a person asking wants them (and how many agents they
 * want), and the results of requests no fixture agent serves: those the rule was chosen on and the
 * held-out ones.
 */
interface WeakMatchSample {
  wantedAgents: number;
  wanted: Judged[];
  unwanted: Judged[];
  unrelated: Judged[];
  heldOut: Judged[];
}

function weakMatchTable(sample: WeakMatchSample): string {
  const closeBy = (isWeak: (result: Judged) => boolean) => (results: Judged[]) => results.filter((result) => !isWeak(result)).length;
  const rows: [string, (result: Judged) => boolean][] = [
    ['relevance below the floor alone', (result) => result.relevance < WEAK_MATCH_FLOOR],
    ['**the rule used** (`weakMatch`)', (result) => result.weakMatch],
  ];
  return markdownTable(
    [
      'weak when',
      'wanted agents close',
      'unwanted results close',
      `unrelated queries (${unrelatedQueries.length}): results close`,
      `held-out unrelated queries (${unrelatedHeldOutQueries.length}): results close`,
    ],
    rows.map(([name, isWeak]) => {
      const close = closeBy(isWeak);
      return [
        name,
        `${close(sample.wanted)}/${sample.wantedAgents}`,
        `${close(sample.unwanted)}/${sample.unwanted.length}`,
        `${close(sample.unrelated)}/${sample.unrelated.length}`,
        `${close(sample.heldOut)}/${sample.heldOut.length}`,
      ];
    }),
  );
}

async function relevance(databaseUrl: string, mode: Mode): Promise<{ lexical: RelevanceReport; full: RelevanceReport; weak: WeakMatchSample }> {
  const withExamples = mode === 'examples' || mode === 'work+examples';
  const withWork = mode === 'work' || mode === 'work+examples';
  // DISCOVERY_CANDIDATES_FROM=0 measures relevance with the candidate index on (a fixture set is far below the default).
  const candidatesFrom = process.env.DISCOVERY_CANDIDATES_FROM ? { DISCOVERY_CANDIDATES_FROM: process.env.DISCOVERY_CANDIDATES_FROM } : {};
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '10000000', SECRETS_KEY: BENCH_SECRETS_KEY, ...candidatesFrom });
  const app = await buildApp(config, { logger: false });
  try {
    const inject = (method: 'GET' | 'POST', url: string, body?: unknown, token?: string) =>
      app.server.inject({
        method,
        url,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
    const signup = async (email: string) => (await inject('POST', '/v1/auth/signup', { email, password: 'correct horse battery' })).json().data.token as string;
    const token = await signup('relevance@example.test');
    const keyById = new Map<string, string>();
    for (const agent of fixtureAgents) {
      // Poll agents, so that the owner can take their tasks without a webhook server (the text embedded is the same).
      const registered = await inject('POST', '/v1/agents', { ...registrationOf(agent, { withExamples }), deliveryMode: 'poll' }, token);
      if (registered.statusCode !== 201) throw new Error(`registering ${agent.key}: ${registered.statusCode} ${registered.body}`);
      keyById.set(registered.json().data.id, agent.key);
    }
    if (withWork) {
      const requesters = await Promise.all(Array.from({ length: REQUESTERS }, (_, i) => signup(`requester-${i}@example.test`)));
      const expect = <R extends { statusCode: number; body: string }>(response: R, status: number, what: string): R => {
        if (response.statusCode !== status) throw new Error(`${what}: ${response.statusCode} ${response.body}`);
        return response;
      };
      for (const [agentId, key] of keyById) {
        const tasks = fixtureCompletedTasks[key] ?? [];
        const submitted = new Map<string, number>();
        for (const [i, task] of tasks.entries()) {
          const requester = requesters[i % REQUESTERS]!;
          const created = expect(
            await inject('POST', '/v1/tasks', { agentId, title: task.title, description: task.description }, requester),
            201,
            `task for ${key}`,
          );
          submitted.set(created.json().data.id as string, i);
        }
        const polled = expect(await inject('GET', `/v1/agents/${agentId}/tasks/poll?wait=0&limit=20`, undefined, token), 200, `poll ${key}`);
        for (const delivery of polled.json().data as { taskId: string; taskToken: string }[]) {
          expect(await inject('POST', `/v1/tasks/${delivery.taskId}/callback`, { taskToken: delivery.taskToken, result: { done: true } }), 200, 'callback');
          const requester = requesters[submitted.get(delivery.taskId)! % REQUESTERS]!;
          expect(await inject('POST', `/v1/tasks/${delivery.taskId}/rating`, { score: 5 }, requester), 200, 'rating');
        }
      }
    }

    const lexicalSearch = createDiscoveryStore(app.database.db, app.database.dialect).lexical;
    const lexical = await scoreRankings(async (query) => {
      const scores = await lexicalSearch(contentWords(query.q), 50);
      return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => keyById.get(id)!);
    });
    const weak: WeakMatchSample = { wantedAgents: 0, wanted: [], unwanted: [], unrelated: [], heldOut: [] };
    const search = async (q: string) => {
      const found = await inject('GET', `/v1/discover?q=${encodeURIComponent(q)}&limit=50`);
      if (found.statusCode !== 200) throw new Error(`search: ${found.statusCode} ${found.body}`);
      return found.json().data as ({ id: string } & Judged)[];
    };
    const full = await scoreRankings(async (query) => {
      const found = await search(query.q);
      weak.wantedAgents += query.relevant.length;
      for (const agent of found) (query.relevant.includes(keyById.get(agent.id)!) ? weak.wanted : weak.unwanted).push(agent);
      return found.map((agent) => keyById.get(agent.id)!);
    });
    for (const q of unrelatedQueries) weak.unrelated.push(...(await search(q)));
    for (const q of unrelatedHeldOutQueries) weak.heldOut.push(...(await search(q)));
    return { lexical, full, weak };
  } finally {
    await app.close();
  }
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
  const load = await openLoad(service.url, pid, {
    seconds,
    searchesPerSecond: SEARCHES_PER_SECOND,
    healthPerSecond: HEALTH_PER_SECOND,
    queries: fixtureQueries.map((q) => q.q),
  });
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

const relevanceTableOf = (byMode: Map<Mode, { lexical: RelevanceReport; full: RelevanceReport }>) =>
  markdownTable(
    ['mode', 'full MRR', 'full recall@5', 'held-out MRR', 'held-out recall@5', 'lexical alone MRR', 'lexical alone recall@5'],
    [...byMode].map(([mode, scores]) => [
      mode,
      scores.full.mrr.toFixed(3),
      scores.full.recallAt5.toFixed(3),
      scores.full.heldOut.mrr.toFixed(3),
      scores.full.heldOut.recallAt5.toFixed(3),
      scores.lexical.mrr.toFixed(3),
      scores.lexical.recallAt5.toFixed(3),
    ]),
  );
const relevanceHeading = `Relevance (${fixtureAgents.length} agents, ${fixtureQueries.length} queries; held out: the even-indexed half)`;

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds(10);
  if (!RELEVANCE_ONLY) buildServerIfStale();
  const byMode = new Map<Mode, Awaited<ReturnType<typeof relevance>>>();
  let dialect = '';
  for (const mode of MODES) {
    const relevanceDb = await benchDatabase(cleanup);
    dialect = relevanceDb.dialect;
    process.stderr.write(`relevance (${mode}) on ${relevanceDb.dialect} ...\n`);
    byMode.set(mode, await relevance(relevanceDb.url, mode));
    if (process.env.BENCH_MISSES) for (const miss of byMode.get(mode)!.full.misses) process.stderr.write(`  ${mode} miss: ${JSON.stringify(miss)}\n`);
  }
  const scores = byMode.get(MODES[0]!)!;
  if (RELEVANCE_ONLY) {
    console.log(`\n## Discovery on ${dialect}\n\n${relevanceHeading}:\n\n${relevanceTableOf(byMode)}\n`);
    console.log(`Weak matches, ${MODES[0]}:\n\n${weakMatchTable(scores.weak)}\n`);
    return;
  }

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
  console.log(`\n## Discovery on ${database.dialect}\n\n${relevanceHeading}:\n\n${relevanceTableOf(byMode)}\n`);
  console.log(`Weak matches:\n\n${weakMatchTable(scores.weak)}\n`);
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
    relevance: Object.fromEntries([...byMode].map(([mode, report]) => [mode, { lexical: report.lexical, full: report.full }])),
    rounds,
    empty,
    coldFillSeconds: cold,
  });
  if (failures > 0) process.exitCode = 1;
});
