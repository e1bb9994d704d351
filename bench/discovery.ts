/**
 * Discovery bench (issue 6).
 *
 * 1. Relevance on the fixture set (test/fixtures/discovery): mean reciprocal rank and recall@5 of
 *    lexical search alone (the engine's full-text rank over the query's words) and of the full method
 *    (GET /v1/discover), in process.
 * 2. Latency of GET /v1/discover?q= with 10,000 agents: the real service in a child process, agents
 *    written straight into its database (the triggers index them as for any write), autocannon cycling
 *    through the fixture queries at 1 and at 10 connections; first while the new index's sentence
 *    vectors are filled in the background (minutes of one core), then once that is done (steady state).
 *
 *   npx tsx bench/discovery.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/discovery.ts
 */
import autocannon from 'autocannon';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { newId } from '../src/lib/ids.ts';
import { capabilities } from '../src/modules/catalog/index.ts';
import { createDiscoveryStore } from '../src/modules/discovery/index.ts';
import { contentWords } from '../src/modules/discovery/tokenize.ts';
import { fixtureAgents, fixtureQueries, registrationOf, scoreRankings, type RelevanceReport } from '../test/fixtures/discovery/relevance.ts';
import { agentRow, benchDatabase, benchSeconds, machine, markdownTable, postJson, startService, waitUntilIdle, withCleanup, writeResult } from './lib.ts';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const documentedCategories = new Set(['coding', 'data', 'devops', 'finance', 'health', 'legal', 'marketing', 'productivity', 'research', 'security', 'support', 'other']);

async function relevance(databaseUrl: string): Promise<{ lexical: RelevanceReport; full: RelevanceReport }> {
  const app = await buildApp(loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '10000000' }), { logger: false });
  try {
    const inject = (method: 'GET' | 'POST', url: string, body?: unknown, token?: string) =>
      app.server.inject({ method, url, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, ...(body ? { payload: JSON.stringify(body) } : {}) });
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

/** Agents written in one transaction: fixture agents and catalogue-shaped ones, 5% private. */
async function seedAgents(databaseUrl: string, ownerId: string, count: number): Promise<void> {
  const database = openDatabase({ url: databaseUrl });
  try {
    const now = new Date().toISOString();
    const rows = Array.from({ length: count }, (_, i) => {
      const fixture = fixtureAgents[i % fixtureAgents.length]!;
      const capability = capabilities[(i * 7) % capabilities.length]!;
      const fromFixture = i % 3 === 0;
      const name = `${fromFixture ? fixture.name : capability.name} ${i}`;
      return agentRow({
        id: newId(),
        name,
        slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
        description: fromFixture ? fixture.description : `${capability.description} Also handles ${capability.aliases[i % capability.aliases.length]}.`,
        endpoint: 'https://bench.example.test/hook',
        protocols: JSON.stringify(fromFixture ? fixture.protocols : ['rest']),
        categories: JSON.stringify(fromFixture ? fixture.categories : [documentedCategories.has(capability.category) ? capability.category : 'other']),
        capabilities: JSON.stringify(fromFixture ? fixture.capabilities : [capability.slug]),
        tags: JSON.stringify(fromFixture ? fixture.tags : capability.aliases.slice(0, 2)),
        visibility: i % 20 === 0 ? 'private' : 'public',
        status: 'active',
        owner_id: ownerId,
        registration_pubkey: null,
        delivery_mode: 'webhook',
        last_seen_at: i % 4 === 0 ? now : null,
        created_at: now,
        updated_at: now,
      });
    });
    await database.transaction(async (tx) => {
      for (let start = 0; start < rows.length; start += 500) await tx.insertInto('agents').values(rows.slice(start, start + 500)).execute();
    });
  } finally {
    await database.close();
  }
}

async function latency(service: { url: string }, seconds: number, connections: number) {
  let next = 0;
  const result = await autocannon({
    url: service.url,
    connections,
    duration: seconds,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: `/v1/discover?q=${encodeURIComponent(fixtureQueries[next++ % fixtureQueries.length]!.q)}` }) }],
  });
  return { connections, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds(5);
  const relevanceDb = await benchDatabase(cleanup);
  process.stderr.write(`relevance on ${relevanceDb.dialect} ...\n`);
  const scores = await relevance(relevanceDb.url);

  const database = await benchDatabase(cleanup);
  const service = await startService(database.url, cleanup);
  const signup = await postJson<{ data: { account: { id: string } } }>(`${service.url}/v1/auth/signup`, { email: 'bench@example.test', password: 'correct horse battery' });
  process.stderr.write(`seeding ${AGENTS} agents ...\n`);
  await seedAgents(database.url, signup.data.account.id, AGENTS);
  const firstStart = performance.now();
  const first = await fetch(`${service.url}/v1/discover?q=${encodeURIComponent('summarise my inbox')}`);
  await first.arrayBuffer();
  const firstMs = performance.now() - firstStart;
  // Warm-up, discarded.
  await latency(service, 2, 1);
  const runs = [];
  for (const state of ['filling', 'steady'] as const) {
    if (state === 'steady') {
      process.stderr.write('waiting for the background fill of sentence vectors to finish ...\n');
      process.stderr.write(`  done after ${(await waitUntilIdle(service)).toFixed(0)} s\n`);
      await latency(service, 2, 1);
    }
    for (const connections of [1, 10]) {
      process.stderr.write(`measuring GET /v1/discover?q= (${state}) at ${connections} connection(s) for ${seconds} s ...\n`);
      runs.push({ state, ...(await latency(service, seconds, connections)) });
    }
  }

  const relevanceTable = markdownTable(
    ['method', 'MRR', 'recall@5'],
    [
      ['lexical alone (full-text rank)', scores.lexical.mrr.toFixed(3), scores.lexical.recallAt5.toFixed(3)],
      ['full method (GET /v1/discover)', scores.full.mrr.toFixed(3), scores.full.recallAt5.toFixed(3)],
    ],
  );
  const latencyTable = markdownTable(
    ['sentence vectors', 'connections', 'req/s', 'p50 (ms)', 'p99 (ms)'],
    runs.map((r) => [r.state === 'filling' ? 'being filled in' : 'all in (steady state)', r.connections, Math.round(r.rps), r.p50, r.p99]),
  );
  console.log(`\n## Discovery on ${database.dialect}\n\nRelevance (${fixtureAgents.length} agents, ${fixtureQueries.length} queries):\n\n${relevanceTable}\n`);
  console.log(`GET /v1/discover?q= with ${AGENTS} agents (${seconds} s each; first query, which builds the index: ${firstMs.toFixed(0)} ms):\n\n${latencyTable}\n`);
  const problems = runs.filter((r) => r.non2xx + r.errors > 0).map((r) => `${r.connections} connections: ${r.non2xx} non-2xx, ${r.errors} errors`);
  for (const problem of problems) console.log(`WARNING ${problem}`);
  writeResult(`discovery-${database.dialect}`, { bench: 'discovery', dialect: database.dialect, date: new Date().toISOString(), machine: machine(), seconds, agents: AGENTS, relevance: { lexical: scores.lexical, full: scores.full }, firstQueryMs: firstMs, runs, problems });
  if (problems.length > 0) process.exitCode = 1;
});
