/**
 * Quality gate for discovery: the relevance set (test/fixtures/discovery) through the real
 * GET /v1/discover on the database under test, with the built-in offline embedders (word vectors
 * and the sentence encoder).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { waitFor } from '../helpers/wait.ts';
import { contentWords, stem } from '../../src/lib/words.ts';
import { fixtureAgents, fixtureQueries, registrationOf, scoreRankings, unrelatedHeldOutQueries, unrelatedQueries } from '../fixtures/discovery/relevance.ts';

describe('discovery relevance (fixture set)', () => {
  let app: TestApp;
  const keyBySlug = new Map<string, string>();

  before(async () => {
    // Measured as a large registry searches: only the candidates (the approximate index's nearest
    // agents, lexical and catalogue matches) are scored, not every agent.
    app = await startTestApp({ DISCOVERY_CANDIDATES_FROM: '0' });
    const { token } = await app.signup();
    for (const agent of fixtureAgents) {
      const response = await app.request({ method: 'POST', url: '/v1/agents', token, body: registrationOf(agent) });
      assert.equal(response.statusCode, 201, response.body);
      keyBySlug.set(response.json().data.slug, agent.key);
    }
  });
  after(() => app.close());

  it('is not ready while search warms (health answers meanwhile), and ready once it is warm', async () => {
    app.discovery.warm();
    const starting = await app.request({ method: 'GET', url: '/ready' });
    assert.equal(starting.statusCode, 503);
    assert.match(starting.json().status, /search is not ready/);
    assert.equal((await app.request({ method: 'GET', url: '/health' })).statusCode, 200);
    await waitFor(
      'search to be warm',
      async () => (await app.request({ method: 'GET', url: '/ready' })).statusCode,
      (status) => status === 200,
      {
        timeoutMs: 120_000,
      },
    );
  });

  it('has at least 60 agents and 40 queries, each naming agents that exist', () => {
    assert.ok(fixtureAgents.length >= 60 && fixtureQueries.length >= 40);
    const keys = new Set(fixtureAgents.map((a) => a.key));
    for (const query of fixtureQueries) for (const key of query.relevant) assert.ok(keys.has(key), `${query.q}: unknown agent ${key}`);
  });

  it('most queries share no word (stemmed) with the description of any agent they expect', () => {
    const byKey = new Map(fixtureAgents.map((a) => [a.key, a]));
    const disjoint = fixtureQueries.filter((query) => {
      const words = new Set(contentWords(query.q).map(stem));
      return query.relevant.every((key) => !contentWords(byKey.get(key)!.description).some((w) => words.has(stem(w))));
    });
    assert.ok(disjoint.length >= 0.85 * fixtureQueries.length, `only ${disjoint.length} of ${fixtureQueries.length} queries avoid the descriptions' words`);
  });

  it('ranks the expected agents high (mean reciprocal rank at or above the gate)', async () => {
    const report = await scoreRankings(async (query) => {
      const response = await app.request({ method: 'GET', url: `/v1/discover?q=${encodeURIComponent(query.q)}&limit=50` });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().data.map((agent: { slug: string }) => keyBySlug.get(agent.slug)!);
    });
    console.log(`discovery relevance: MRR ${report.mrr.toFixed(3)}, recall@5 ${report.recallAt5.toFixed(3)}`);
    assert.ok(
      report.mrr >= MRR_GATE,
      `MRR ${report.mrr.toFixed(3)} below ${MRR_GATE}; misses:\n${report.misses.map((m) => `  ${m.rank} ${m.q} -> ${m.top.join(', ')}`).join('\n')}`,
    );
  });

  const search = async (q: string) =>
    (await app.request({ method: 'GET', url: `/v1/discover?q=${encodeURIComponent(q)}&limit=50` })).json().data as {
      slug: string;
      relevance: number;
      weakMatch: boolean;
    }[];
  /** The results of `queries` that are not flagged weak: none should be, no fixture agent serves them. */
  const closeMatchesOf = async (queries: string[]) => {
    const close: string[] = [];
    for (const q of queries) for (const agent of await search(q)) if (!agent.weakMatch) close.push(`${q} -> ${agent.slug} at ${agent.relevance}`);
    return close;
  };

  it('flags every result of a request no agent serves as a weak match, and keeps the wanted agents close matches', async () => {
    // Every agent a query wants, found or not: one not found (or flagged weak) is a miss.
    let wanted = 0;
    let wantedClose = 0;
    for (const query of fixtureQueries) {
      const found = await search(query.q);
      for (const key of query.relevant) {
        wanted++;
        if (found.some((agent) => keyBySlug.get(agent.slug) === key && !agent.weakMatch)) wantedClose++;
      }
    }
    const close = await closeMatchesOf(unrelatedQueries);
    console.log(`weak matches: ${wantedClose}/${wanted} wanted agents are close matches; close matches of unrelated queries: ${close.length}`);
    assert.deepEqual(close, [], 'results of requests no agent serves flagged as close matches');
    assert.ok(wantedClose >= WANTED_CLOSE_GATE * wanted, `only ${wantedClose} of ${wanted} wanted agents are close matches`);
  });

  it('flags most results of held-out requests no agent serves (not used to choose the rule) as weak matches', async () => {
    const close = await closeMatchesOf(unrelatedHeldOutQueries);
    const queries = new Set(close.map((match) => match.slice(0, match.indexOf(' -> '))));
    console.log(`held out: ${queries.size}/${unrelatedHeldOutQueries.length} requests no agent serves have a close match:\n  ${close.join('\n  ')}`);
    assert.ok(queries.size <= HELD_OUT_CLOSE_GATE * unrelatedHeldOutQueries.length, `close matches of held-out requests:\n  ${close.join('\n  ')}`);
  });
});

/**
 * Share of the fixture queries' wanted agents that must come back as close matches (found, and not
 * flagged weak). Measured: see docs/discovery.md, "Weak matches"; the gate sits just below so that a
 * change flagging good answers fails here.
 */
const WANTED_CLOSE_GATE = 0.6;
/**
 * Share of the held-out requests no agent serves that may have a close match. Measured 5 of 16
 * (docs/discovery.md, "Weak matches"): requests that share a field and a word with an agent ("change
 * the oil in my car" and a price watcher) are the rule's known miss.
 */
const HELD_OUT_CLOSE_GATE = 0.35;

/**
 * The target is 0.8; with the sentence encoder, the query map and the lexical signal scaled by query
 * coverage the method measures 0.698 on this set on SQLite (0.644 without the map; docs/discovery.md
 * gives the figures). The gate sits below what is measured so that a change making relevance worse
 * fails here, and so does a missing or stale query map; raise it with the method, never lower it to pass.
 */
const MRR_GATE = 0.67;
