import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { expectError, otherNode, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { registerAgent, registerProvisional, uniqueName } from '../helpers/agents.ts';
import { WEAK_MATCH_FLOOR } from '../../src/modules/discovery/index.ts';
import { waitFor } from '../helpers/wait.ts';

interface Found {
  id: string;
  slug: string;
  score: number;
  relevance: number;
  trust: number;
  trustReceipts: number;
  availability: string;
  weakMatch: boolean;
}

const discover = async (app: TestApp, query: string, token?: string | null) => {
  const response = await app.request({ method: 'GET', url: `/v1/discover?${query}`, token: token ?? null });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as { data: Found[]; pagination: { limit: number; offset: number; total: number; hasMore: boolean } };
};
const ids = (found: { data: Found[] }) => found.data.map((a) => a.id);
/** Resolves once the node has embedded every agent text it has indexed (its awaiting-meaning gauge is 0). */
const meaningEmbedded = (app: TestApp) =>
  waitFor(
    'every indexed agent text embedded',
    async () => {
      const text = (await app.server.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
      return Number(/^agentry_discovery_agents_awaiting_meaning (\S+)$/m.exec(text)?.[1]);
    },
    (awaiting) => awaiting === 0,
  );

describe('discovery: search and ranking', () => {
  let app: TestApp;
  let token: string;
  const agents: Record<string, string> = {};

  before(async () => {
    app = await startTestApp();
    token = (await app.signup()).token;
    // Fixed names: a name is part of the text the sentence encoder reads, and a random one moved the
    // travel agent's relevance to "email" between 0.025 and 0.057, across the 0.05 floor.
    const make = async (key: string, body: Record<string, unknown>) => (agents[key] = (await registerAgent(app, token, body)).id);
    await make('digest', {
      name: 'Inbox Digest',
      description: 'Condenses unread email into a daily digest of messages that need a reply.',
      capabilities: ['email-digest'],
      categories: ['productivity'],
      protocols: ['rest'],
    });
    await make('flights', {
      name: 'Fare Watcher',
      description: 'Searches airfares across airlines and alerts you when prices drop.',
      capabilities: ['flight-search'],
      categories: ['travel'],
      protocols: ['mcp'],
    });
    await make('reviewer', {
      name: 'Pull Request Reviewer',
      description: 'Reviews pull requests and leaves line comments about bugs and style.',
      capabilities: ['code-review'],
      categories: ['coding'],
      protocols: ['rest', 'a2a'],
    });
    await make('ledger', {
      name: 'Ledger Keeper',
      description: 'Categorises bank transactions and reconciles accounts in the general ledger.',
      tags: ['accounting'],
      categories: ['finance'],
      protocols: ['grpc'],
    });
  });
  after(() => app.close());

  it('finds an agent from words its description does not use', async () => {
    const found = await discover(app, `q=${encodeURIComponent('summarise my inbox every morning')}`);
    assert.equal(found.data[0]?.id, agents.digest);
    const cheapFlight = await discover(app, `q=${encodeURIComponent('cheapest way to fly to lisbon')}`);
    assert.equal(cheapFlight.data[0]?.id, agents.flights);
  });

  it('answers the registry view plus score, relevance, trust and availability, ordered by score', async () => {
    const found = await discover(app, 'q=email');
    const first = found.data[0]!;
    assert.equal(first.id, agents.digest);
    for (const field of ['name', 'slug', 'description', 'capabilities', 'protocols', 'categories', 'status', 'createdAt']) assert.ok(field in first, field);
    assert.equal(first.trust, 0.5);
    assert.equal(first.trustReceipts, 0);
    assert.equal(first.availability, 'unknown', 'registered and never heard from');
    assert.ok(first.relevance > 0 && first.relevance <= 1 && first.score > 0 && first.score <= first.relevance);
    for (let i = 1; i < found.data.length; i++) assert.ok(found.data[i - 1]!.score >= found.data[i]!.score);
    assert.deepEqual(Object.keys(found.pagination).sort(), ['hasMore', 'limit', 'offset', 'total']);
  });

  it('flags weak matches without dropping or moving them: below the floor, or accounting for too few of the words', async () => {
    const close = await discover(app, `q=${encodeURIComponent('summarise my inbox every morning')}`);
    assert.equal(close.data[0]?.weakMatch, false, 'a good answer is a close match');
    let weak = 0;
    for (const q of ['email', 'quantum knitting patterns for cats', 'reconcile my bank account', 'asdf qwer zxcv']) {
      const found = await discover(app, `q=${encodeURIComponent(q)}&limit=50`);
      for (const agent of found.data) {
        if (agent.relevance < WEAK_MATCH_FLOOR) assert.equal(agent.weakMatch, true, `${q}: ${agent.slug} at ${agent.relevance}`);
        if (agent.weakMatch) weak++;
      }
      for (let i = 1; i < found.data.length; i++) assert.ok(found.data[i - 1]!.score >= found.data[i]!.score, 'weak results keep their place');
    }
    assert.ok(weak > 0, 'some loosely related agent is flagged');
    for (const q of ['quantum knitting patterns for cats', 'asdf qwer zxcv']) {
      const found = await discover(app, `q=${encodeURIComponent(q)}&limit=50`);
      assert.deepEqual(
        found.data.filter((agent) => !agent.weakMatch).map((agent) => `${agent.slug} at ${agent.relevance}`),
        [],
        `${q}: nothing is a close match`,
      );
    }
    const ledger = await discover(app, `q=${encodeURIComponent('reconcile my bank account')}`);
    assert.equal(ledger.data[0]?.id, agents.ledger);
    assert.equal(ledger.data[0]?.weakMatch, false, 'an agent using the words of the query is a close match');
  });

  it('browses every visible agent without q, and pages through them without overlap', async () => {
    const all = await discover(app, 'limit=50');
    assert.equal(all.pagination.total, 4);
    assert.ok(all.data.every((a) => a.relevance === 1 && a.weakMatch === false));
    const first = await discover(app, 'limit=2&offset=0');
    const second = await discover(app, 'limit=2&offset=2');
    assert.equal(first.pagination.hasMore, true);
    assert.equal(second.pagination.hasMore, false);
    assert.deepEqual(new Set([...ids(first), ...ids(second)]), new Set(Object.values(agents)));
    assert.equal((await discover(app, 'offset=10')).data.length, 0);
  });

  it('filters by category, protocol and capability (a catalogue alias matches its capability)', async () => {
    assert.deepEqual(ids(await discover(app, 'category=travel')), [agents.flights]);
    assert.deepEqual(ids(await discover(app, 'protocol=grpc')), [agents.ledger]);
    assert.deepEqual(ids(await discover(app, `capability=${encodeURIComponent('inbox summary')}`)), [agents.digest]);
    assert.deepEqual(ids(await discover(app, 'capability=Code_Review')), [agents.reviewer]);
    assert.deepEqual(ids(await discover(app, 'capability=accounting')), [agents.ledger]);
    assert.deepEqual(ids(await discover(app, `q=email&category=travel`)), []);
    assert.equal((await discover(app, 'category=legal')).pagination.total, 0);
  });

  it('ranks an available agent above one never heard from that fits equally', async () => {
    const body = { description: 'Translates legal contracts between German and Japanese.', categories: ['legal'], protocols: ['rest'] };
    const quiet = await registerAgent(app, token, body);
    const busy = await registerAgent(app, token, body);
    const beat = await app.request({ method: 'POST', url: `/v1/agents/${busy.id}/heartbeat`, token, body: { status: 'available' } });
    assert.equal(beat.statusCode, 200, beat.body);
    const found = await discover(app, `q=${encodeURIComponent('german japanese contract translation')}`);
    const order = ids(found).filter((id) => id === quiet.id || id === busy.id);
    assert.deepEqual(order, [busy.id, quiet.id]);
    assert.equal(found.data.find((a) => a.id === busy.id)!.availability, 'available');
    for (const id of [quiet.id, busy.id]) assert.equal((await app.request({ method: 'DELETE', url: `/v1/agents/${id}`, token })).statusCode, 200);
  });

  it('GET /v1/discover/:slug answers one agent with its trust', async () => {
    const all = await discover(app, 'category=coding');
    const response = await app.request({ method: 'GET', url: `/v1/discover/${all.data[0]!.slug}` });
    assert.equal(response.statusCode, 200, response.body);
    const { data } = response.json();
    assert.equal(data.id, agents.reviewer);
    assert.equal(data.trust, 0.5);
    assert.equal(data.trustReceipts, 0);
    expectError(await app.request({ method: 'GET', url: '/v1/discover/no-such-agent' }), 404, 'NOT_FOUND');
  });

  it('refuses bad input with a JSON 400, and a bad credential with 401', async () => {
    for (const query of [
      'limit=0',
      'limit=51',
      'limit=abc',
      'offset=-1',
      'offset=501',
      'protocol=ftp',
      'category=Not%20A%20Slug',
      `q=${'x'.repeat(501)}`,
      'sort=name',
      `capability=${'c'.repeat(61)}`,
      'capability=',
    ]) {
      expectError(await app.request({ method: 'GET', url: `/v1/discover?${query}` }), 400, 'BAD_REQUEST');
    }
    expectError(await app.request({ method: 'GET', url: '/v1/discover?q=email', token: 'ags_not-a-session' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/discover/x', token: 'agk_wrong' }), 401, 'UNAUTHORIZED');
  });

  it('treats a query of only common words as browsing', async () => {
    const found = await discover(app, `q=${encodeURIComponent('what can you do for me')}`);
    assert.equal(found.pagination.total, 4);
  });
});

describe('discovery: visibility', () => {
  let app: TestApp;
  const people: Record<'owner' | 'member' | 'outsider', string> = { owner: '', member: '', outsider: '' };
  const agents: Record<'public' | 'org' | 'private' | 'provisional', { id: string; slug: string }> = {} as never;

  before(async () => {
    app = await startTestApp();
    const owner = await app.signup();
    const member = await app.signup();
    people.owner = owner.token;
    people.member = member.token;
    people.outsider = (await app.signup()).token;
    const org = (await app.request({ method: 'POST', url: '/v1/orgs', token: owner.token, body: { name: 'Acme' } })).json().data;
    await app.request({ method: 'POST', url: `/v1/orgs/${org.id}/members`, token: owner.token, body: { accountId: member.accountId } });
    const body = { description: 'Forecasts warehouse stock levels from sales history.', categories: ['data'], capabilities: ['demand forecasting'] };
    agents.public = await registerAgent(app, owner.token, body);
    agents.org = await registerAgent(app, owner.token, { ...body, visibility: 'org', orgId: org.id });
    agents.private = await registerAgent(app, owner.token, { ...body, visibility: 'private' });
    const provisional = await registerProvisional(app, undefined, {
      description: body.description,
      categories: ['data'],
      capabilities: ['demand forecasting'],
    });
    agents.provisional = { id: provisional.id, slug: '' };
    agents.provisional.slug = (await app.request({ method: 'GET', url: `/v1/agents/${provisional.id}` })).json().data.slug;
  });
  after(() => app.close());

  const sees = {
    owner: ['public', 'org', 'private', 'provisional'],
    member: ['public', 'org', 'provisional'],
    outsider: ['public', 'provisional'],
    anonymous: ['public', 'provisional'],
  } as const;

  for (const viewer of ['owner', 'member', 'outsider', 'anonymous'] as const) {
    it(`${viewer} finds exactly the agents they may see, by query, by browsing and by slug`, async () => {
      const token = viewer === 'anonymous' ? null : people[viewer];
      const expected = new Set(sees[viewer].map((k) => agents[k].id));
      for (const query of [`q=${encodeURIComponent('predict inventory from past sales')}&limit=50`, 'limit=50']) {
        const found = await discover(app, query, token);
        assert.deepEqual(new Set(ids(found)), expected, query);
        assert.equal(found.pagination.total, expected.size);
      }
      for (const key of ['public', 'org', 'private', 'provisional'] as const) {
        const response = await app.request({ method: 'GET', url: `/v1/discover/${agents[key].slug}`, token });
        if (expected.has(agents[key].id)) assert.equal(response.statusCode, 200, `${key}: ${response.body}`);
        else expectError(response, 404, 'NOT_FOUND');
      }
      // The catalogue page's counts are of these same agents: an alias counts for its capability.
      const counts = await app.request({ method: 'GET', url: '/v1/capabilities/agent-counts', token });
      assert.equal(counts.statusCode, 200, counts.body);
      const { capabilities, categories } = counts.json().data as Record<string, { slug: string; agents: number }[]>;
      assert.equal(capabilities!.find((c) => c.slug === 'time-series-forecasting')?.agents, expected.size);
      assert.equal(categories!.find((c) => c.slug === 'data')?.agents, expected.size);
      assert.equal(categories!.find((c) => c.slug === 'analytics')?.agents, expected.size, 'the category of a capability they offer counts them too');
      assert.equal(
        capabilities!.find((c) => c.slug === 'weather-lookup'),
        undefined,
        'a capability no agent offers is left out',
      );
    });
  }

  it('shows provisional agents with their status', async () => {
    const found = await discover(app, 'limit=50');
    assert.equal((found.data.find((a) => a.id === agents.provisional.id) as unknown as { status: string }).status, 'provisional');
  });
});

describe('discovery: freshness', () => {
  let app: TestApp;
  let token: string;

  before(async () => {
    app = await startTestApp();
    token = (await app.signup()).token;
    await registerAgent(app, token, { description: 'Writes haiku about the weather.', categories: ['other'] });
    await discover(app, 'q=haiku');
  });
  after(() => app.close());

  it('finds a new agent, follows its edits and forgets it once deleted, each in the next request', async () => {
    const agent = await registerAgent(app, token, { description: 'Tunes church organs remotely.', categories: ['other'] });
    assert.equal((await discover(app, 'q=organ')).data[0]!.id, agent.id);
    // Relevances compared across an edit are each taken once the text's meaning is embedded (in the
    // background): one taken before and one after would compare word vectors with the encoder's.
    await meaningEmbedded(app);
    const before = (await discover(app, 'q=organ')).data[0]!;
    assert.equal(before.id, agent.id);

    const patched = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token, body: { description: 'Repairs vintage bicycles.' } });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(ids(await discover(app, 'q=bicycle'))[0], agent.id);
    await meaningEmbedded(app);
    const stale = (await discover(app, 'q=organ')).data.find((a) => a.id === agent.id);
    assert.ok(!stale || stale.relevance < before.relevance / 2, 'the old description no longer matches');

    const hidden = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token, body: { visibility: 'private' } });
    assert.equal(hidden.statusCode, 200, hidden.body);
    assert.ok(!ids(await discover(app, 'q=bicycle')).includes(agent.id));
    assert.equal(ids(await discover(app, 'q=bicycle', token))[0], agent.id);

    assert.equal((await app.request({ method: 'DELETE', url: `/v1/agents/${agent.id}`, token })).statusCode, 200);
    assert.ok(!ids(await discover(app, 'q=bicycle', token)).includes(agent.id));
    assert.ok(!ids(await discover(app, 'limit=50', token)).includes(agent.id));
  });

  it('serves the latest endpoint in results even though search does not index it', async () => {
    const agent = await registerAgent(app, token, { description: 'Grades chess games move by move.', categories: ['other'] });
    await discover(app, 'q=chess');
    await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token, body: { endpoint: 'https://moved.example.test/hook' } });
    const found = await discover(app, 'q=chess');
    assert.equal((found.data[0] as unknown as { endpoint: string }).endpoint, 'https://moved.example.test/hook');
  });

  it('sees writes made through another node on the same database in its next request', async () => {
    // On SQLite too a second app on the same file, so nothing in this app's memory hears of the writes.
    const other = await otherNode(app, { sqliteFile: true });
    try {
      const name = uniqueName('Beekeeper');
      const made = await other.request({
        method: 'POST',
        url: '/v1/agents',
        token,
        body: { name, description: 'Monitors beehives for swarming.', categories: ['other'], protocols: ['rest'], endpoint: 'https://bees.example.test' },
      });
      assert.equal(made.statusCode, 201, made.body);
      const id = made.json().data.id;
      assert.equal(ids(await discover(app, 'q=beehive'))[0], id);
      await other.request({ method: 'DELETE', url: `/v1/agents/${id}`, token });
      assert.ok(!ids(await discover(app, 'q=beehive')).includes(id));
    } finally {
      await other.close();
    }
  });

  it('reports availability as of now, not as of indexing', async () => {
    const clock = new TestClock();
    const timed = await startTestApp({}, { clock });
    try {
      const owner = (await timed.signup()).token;
      const agent = await registerAgent(timed, owner, { description: 'Waters houseplants on schedule.', categories: ['other'] });
      assert.equal((await discover(timed, 'q=houseplants')).data[0]!.availability, 'unknown');
      await timed.request({ method: 'POST', url: `/v1/agents/${agent.id}/heartbeat`, token: owner, body: {} });
      assert.equal((await discover(timed, 'q=houseplants')).data[0]!.availability, 'available');
      clock.advance(10 * 60 * 1000);
      assert.equal((await discover(timed, 'q=houseplants')).data[0]!.availability, 'away');
      clock.advance(24 * 3600 * 1000);
      assert.equal((await discover(timed, 'q=houseplants')).data[0]!.availability, 'offline');
    } finally {
      await timed.close();
    }
  });
});

describe('discovery: an OpenAI-compatible embeddings endpoint', () => {
  let server: Server;
  let url: string;
  let app: TestApp;
  const seen: { authorization?: string; model?: string }[] = [];
  let failing = false;

  // A stand-in model: one dimension per topic word family, so "inbox" and "email" land together.
  const families = [/mail|inbox|message/, /flight|fly|airfare|plane/, /code|pull request|review/];
  const vectorOf = (text: string) => families.map((family) => (family.test(text.toLowerCase()) ? 1 : 0));

  before(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const parsed = JSON.parse(body) as { model: string; input: string[] };
        seen.push({ authorization: request.headers.authorization, model: parsed.model });
        if (failing) return void response.writeHead(503).end();
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ data: parsed.input.map((text, index) => ({ index, embedding: vectorOf(text) })) }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    app = await startTestApp({ EMBEDDINGS_URL: url, EMBEDDINGS_MODEL: 'test-embedder', EMBEDDINGS_API_KEY: 'sk-test' });
  });
  after(async () => {
    await app.close();
    server.closeAllConnections();
    server.close();
  });

  it('ranks with the remote vectors, sending the model and key', async () => {
    const token = (await app.signup()).token;
    const mail = await registerAgent(app, token, { description: 'Reads messages and writes a digest.', categories: ['productivity'] });
    await registerAgent(app, token, { description: 'Books aeroplane seats.', categories: ['travel'] });
    const found = await discover(app, `q=${encodeURIComponent('my inbox')}`);
    assert.equal(found.data[0]?.id, mail.id);
    assert.ok(seen.length > 0 && seen.every((s) => s.authorization === 'Bearer sk-test' && s.model === 'test-embedder'));
  });

  it('still answers, from lexical signals, while the endpoint fails', async () => {
    failing = true;
    try {
      const found = await discover(app, 'q=digest');
      assert.ok(found.data.length > 0);
    } finally {
      failing = false;
    }
  });
});
