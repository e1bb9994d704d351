/**
 * The AI Catalog (/.well-known/ai-catalog.json) and the ARD registry API (/ard), checked against the
 * ARD specification's own ai-catalog schema (test/fixtures/ard), and agents' `examples`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { agentRow } from '../../bench/lib.ts';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { registerAgent, uniqueName } from '../helpers/agents.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';

const catalogSchema = JSON.parse(readFileSync(new URL('../fixtures/ard/ai-catalog.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(catalogSchema);
const validCatalog = ajv.compile({ $ref: String(catalogSchema.$id) });
const validEntry = ajv.compile({ $ref: `${String(catalogSchema.$id)}#/$defs/catalogEntry` });

const PUBLIC_URL = 'https://agents.example.test';
type Entry = {
  identifier: string;
  type: string;
  url?: string;
  data?: Record<string, unknown>;
  representativeQueries?: string[];
  score?: number;
  source?: string;
};

const translatorCard = () => ({
  protocolVersion: '0.3.0',
  name: uniqueName('Contract Translator'),
  description: 'Translates legal contracts between German and English',
  url: 'https://translator.example.test/a2a',
  version: '2.1.0',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'translate',
      name: 'Legal translation',
      description: 'German to English',
      tags: ['translation'],
      examples: ['Translate this NDA into English', 'Put our German supply contract into plain English', 'x'],
    },
  ],
});

describe('AI Catalog and the ARD registry API', () => {
  let app: TestApp;
  let cardHost: AgentServer;
  const card = translatorCard();
  let token: string;
  let a2a: { id: string; slug: string };
  let mcp: { id: string; slug: string };
  let plain: { id: string; slug: string };
  let hidden: { id: string; slug: string };
  const examples = [
    'Forecast for Oslo tomorrow',
    'Will it rain in Lyon this weekend?',
    'Wind speed at the coast',
    'UV index today',
    'Snow in the Alps?',
    'Sixth example',
  ];

  before(async () => {
    app = await startTestApp({ PUBLIC_URL, ALLOW_PRIVATE_ENDPOINTS: 'true' });
    cardHost = await startAgentServer(() => ({ status: 200, body: JSON.stringify(card) }));
    token = (await app.signup()).token;
    a2a = await registerAgent(app, token, { name: undefined, description: undefined, protocols: undefined, categories: ['legal'], manifestUrl: cardHost.url });
    mcp = await registerAgent(app, token, {
      name: uniqueName('Weather Tools'),
      description: 'Weather forecasts, rain and wind for any town',
      protocols: ['mcp'],
      categories: ['data'],
      endpoint: 'https://weather.example.test/mcp',
      capabilities: ['weather-forecast'],
      examples,
    });
    plain = await registerAgent(app, token, { name: uniqueName('Invoice Reader'), description: 'Reads PDF invoices into rows', categories: ['finance'] });
    hidden = await registerAgent(app, token, { visibility: 'private', description: 'Weather for insiders' });
  });
  after(async () => {
    await cardHost.close();
    await app.close();
  });

  const catalogEntries = async (): Promise<Entry[]> => {
    const response = await app.request({ method: 'GET', url: '/.well-known/ai-catalog.json' });
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(validCatalog(response.json()), JSON.stringify(validCatalog.errors));
    return response.json().entries;
  };
  const entryOf = (entries: Entry[], slug: string) => entries.find((e) => e.identifier === `urn:air:agents.example.test:agent:${slug}`);
  const post = (url: string, body: unknown) => app.request({ method: 'POST', url, body });

  it('lists public agents: A2A by their card, MCP by their server record, others inline; never a private one', async () => {
    const entries = await catalogEntries();
    assert.deepEqual(entryOf(entries, a2a.slug)!.url, cardHost.url);
    assert.equal(entryOf(entries, a2a.slug)!.type, 'application/a2a-agent-card+json');
    assert.deepEqual(entryOf(entries, a2a.slug)!.representativeQueries, [
      'Translate this NDA into English',
      'Put our German supply contract into plain English',
    ]);

    const weather = entryOf(entries, mcp.slug)!;
    assert.equal(weather.type, 'application/mcp-server-card+json');
    assert.deepEqual(weather.representativeQueries, examples.slice(0, 5), 'the first five examples');
    const record = await app.request({ method: 'GET', url: weather.url!.slice(PUBLIC_URL.length) });
    assert.equal(record.statusCode, 200, 'the MCP entry points at its record in this registry’s MCP Registry API');
    assert.equal(record.json().server.remotes[0].url, 'https://weather.example.test/mcp');

    const inline = entryOf(entries, plain.slug)!;
    assert.equal(inline.url, undefined);
    assert.equal(inline.data!.page, `${PUBLIC_URL}/agents/${plain.slug}`);
    assert.equal(entryOf(entries, hidden.slug), undefined);
  });

  it('nests the next page as a catalog entry when the registry is large', async () => {
    const rows = Array.from({ length: 201 }, (_, i) =>
      agentRow({
        id: `bulk-${i}`,
        name: `Bulk ${i}`,
        slug: `zz-bulk-${String(i).padStart(3, '0')}`,
        description: 'One of many',
        status: 'active',
        owner_id: null,
        registration_pubkey: null,
        delivery_mode: 'poll',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      }),
    );
    await app.database.db.insertInto('agents').values(rows).execute();
    const first = await catalogEntries();
    const nested = first.at(-1)!;
    assert.equal(nested.type, 'application/ai-catalog+json');
    assert.equal(nested.url, `${PUBLIC_URL}/ard/catalog/2`);
    const second = await app.request({ method: 'GET', url: '/ard/catalog/2' });
    assert.ok(validCatalog(second.json()), JSON.stringify(validCatalog.errors));
    const seen = new Set([...first.slice(0, -1), ...second.json().entries].map((e: Entry) => e.identifier));
    assert.equal(seen.size, 4 + 201 - 1, 'every public agent once across the pages');
    expectError(await app.request({ method: 'GET', url: '/ard/catalog/99' }), 404, 'NOT_FOUND');
    await app.database.db.deleteFrom('agents').where('id', 'like', 'bulk-%').execute();
  });

  it('search ranks by relevance (an integer 0-100, never trust), carries trust and availability beside it, filters and pages', async () => {
    const response = await post('/ard/search', { query: { text: 'will it rain tomorrow' }, federation: 'auto', pageSize: 2 });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { results: (Entry & { trust: number; availability: string })[]; pageToken?: string; referrals?: unknown };
    assert.equal(body.referrals, undefined, 'federation is answered as none');
    const top = body.results[0]!;
    assert.equal(top.identifier, `urn:air:agents.example.test:agent:${mcp.slug}`);
    assert.ok(Number.isInteger(top.score) && top.score! >= 0 && top.score! <= 100);
    assert.equal(top.source, `${PUBLIC_URL}/ard`);
    assert.equal(typeof top.trust, 'number');
    assert.equal(top.availability, 'unknown');
    for (const result of body.results) assert.ok(validEntry(result), JSON.stringify(validEntry.errors));
    assert.ok(!body.results.some((r) => r.identifier.endsWith(hidden.slug)));

    const filtered = await post('/ard/search', { query: { text: 'weather', filter: { type: ['application/mcp-server-card+json'], category: 'data' } } });
    assert.deepEqual(
      filtered.json().results.map((r: Entry) => r.identifier),
      [`urn:air:agents.example.test:agent:${mcp.slug}`],
    );
    const none = await post('/ard/search', { query: { text: 'weather', filter: { 'metadata.protocols': 'grpc' } } });
    assert.deepEqual(none.json().results, []);

    const everything: string[] = [];
    let pageToken: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = (await post('/ard/search', { query: { text: 'contracts invoices weather' }, pageSize: 1, ...(pageToken ? { pageToken } : {}) })).json();
      everything.push(...page.results.map((r: Entry) => r.identifier));
      pageToken = page.pageToken;
      if (!pageToken) break;
    }
    assert.equal(new Set(everything).size, everything.length, 'pages never repeat a result');
  });

  it('explore counts any field, ARD’s type and this registry’s facets; an unknown field is an empty facet', async () => {
    const response = await post('/ard/explore', {
      resultType: {
        facets: [
          { field: 'type' },
          { field: 'category' },
          { field: 'protocol' },
          { field: 'availability' },
          { field: 'capability', limit: 1 },
          { field: 'no.such.field' },
        ],
      },
    });
    assert.equal(response.statusCode, 200, response.body);
    const { resultType, facets } = response.json();
    assert.equal(resultType, 'facets');
    const count = (field: string, value: string) => facets[field].buckets.find((b: { value: string }) => b.value === value)?.count;
    assert.equal(count('type', 'application/mcp-server-card+json'), 1);
    assert.equal(count('type', 'application/a2a-agent-card+json'), 1);
    assert.equal(count('category', 'finance'), 1);
    assert.equal(count('protocol', 'mcp'), 1);
    assert.ok(count('availability', 'unknown')! >= 3);
    assert.equal(facets.capability.buckets.length, 1);
    assert.deepEqual(facets['no.such.field'], { buckets: [] });

    const narrowed = (await post('/ard/explore', { query: { text: 'weather forecast' }, resultType: { facets: [{ field: 'type', minCount: 1 }] } })).json();
    assert.ok(narrowed.facets.type.buckets.length >= 1);
  });

  it('lists deterministically, with filters, order and pages', async () => {
    const list = async (query: string) => {
      const response = await app.request({ method: 'GET', url: `/ard/agents?${query}` });
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as { items: Entry[]; total: number; pageToken?: string };
    };
    const all = await list('pageSize=100');
    assert.equal(all.total, 3);
    assert.deepEqual(
      all.items.map((e) => e.identifier),
      [...all.items.map((e) => e.identifier)].sort(),
    );
    const firstTwo = await list('pageSize=2');
    const rest = await list(`pageSize=2&pageToken=${firstTwo.pageToken}`);
    assert.deepEqual([...firstTwo.items, ...rest.items], all.items);
    assert.equal(rest.pageToken, undefined);
    const mcpOnly = await list(`filter=${encodeURIComponent("type = 'application/mcp-server-card+json' AND category = 'data'")}`);
    assert.deepEqual(
      mcpOnly.items.map((e) => e.identifier),
      [`urn:air:agents.example.test:agent:${mcp.slug}`],
    );
    const byName = await list('orderBy=displayName%20DESC');
    assert.equal(byName.items.length, 3);
  });

  it('answers bad requests with ARD’s errorCode beside code and message', async () => {
    const bad = [
      () => post('/ard/search', { query: {} }),
      () => post('/ard/search', { query: { text: 'x' }, extra: true }),
      () => post('/ard/search', { query: { text: 'x' }, pageSize: 101 }),
      () => post('/ard/search', { query: { text: 'x' }, pageToken: 'nope' }),
      () => post('/ard/search', { query: { text: 'x' }, federation: 'everywhere' }),
      () => post('/ard/explore', { resultType: { facets: [] } }),
      () => app.request({ method: 'GET', url: `/ard/agents?filter=${encodeURIComponent('type ~ mcp')}` }),
      () => app.request({ method: 'GET', url: '/ard/agents?orderBy=score' }),
      () => app.request({ method: 'GET', url: '/ard/agents?pageSize=0' }),
    ];
    for (const send of bad) {
      const body = expectError(await send(), 400, 'BAD_REQUEST') as { errorCode?: string };
      assert.equal(body.errorCode, 'INVALID_ARGUMENT');
    }
    const missing = expectError(await app.request({ method: 'GET', url: '/ard/nothing' }), 404, 'NOT_FOUND') as { errorCode?: string };
    assert.equal(missing.errorCode, 'NOT_FOUND');
  });
});

describe('agents: examples', () => {
  let app: TestApp;
  let token: string;
  before(async () => {
    app = await startTestApp();
    token = (await app.signup()).token;
  });
  after(() => app.close());

  it('are written at registration and by PATCH, shown on the agent, and checked', async () => {
    const agent = await registerAgent(app, token, { examples: ['Summarise this report', 'Give me the gist of https://example.test/a.pdf'] });
    const shown = (await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` })).json().data;
    assert.deepEqual(shown.examples, ['Summarise this report', 'Give me the gist of https://example.test/a.pdf']);

    for (const examples of [
      ['only one'],
      Array.from({ length: 11 }, (_, i) => `example number ${i}`),
      ['ok example', 'no'],
      ['ok example', 'bell\u0007 here'],
      ['ok example', 'x'.repeat(201)],
    ]) {
      const refused = await app.request({
        method: 'POST',
        url: '/v1/agents',
        token,
        body: { name: uniqueName(), description: 'd', protocols: ['rest'], categories: ['data'], examples },
      });
      const error = expectError(refused, 400, 'BAD_REQUEST');
      assert.ok(
        error.details!.some((d) => d.path.startsWith('/body/examples')),
        JSON.stringify(error),
      );
    }

    const patched = await app.request({
      method: 'PATCH',
      url: `/v1/agents/${agent.id}`,
      token,
      body: { examples: ['Shorten my notes', 'Three bullet points from this memo', 'TL;DR of a thread'] },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().data.examples.length, 3);
    const cleared = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token, body: { examples: null } });
    assert.deepEqual(cleared.json().data.examples, []);
  });

  it('lead discovery to the agent they describe', async () => {
    const vague = await registerAgent(app, token, {
      name: uniqueName('Community Desk'),
      description: 'Answers questions our members send in',
      examples: ['my monstera leaves are turning yellow', 'how often should I water a fern'],
    });
    await registerAgent(app, token, { name: uniqueName('Home Helper'), description: 'Helps with things at home' });
    const found = (await app.request({ method: 'GET', url: '/v1/discover?q=monstera%20turning%20yellow' })).json().data;
    assert.equal(found[0].id, vague.id);
    assert.deepEqual(found[0].examples.length, 2);
  });
});
