/**
 * The MCP Registry read API at /v0.1, checked against the schemas of the published 2025-12-01 OpenAPI
 * (test/fixtures/mcp-registry) and driven as a mirroring client drives it: cursor paging, and syncs
 * with updated_since that must see creations, updates and deletions.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { registerAgent, uniqueName } from '../helpers/agents.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/mcp-registry/server-registry-openapi-2025-12-01.schemas.json', import.meta.url), 'utf8')) as {
  schemas: Record<string, unknown>;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'mcp-registry', components: { schemas: fixture.schemas } });
const schema = (name: string): ValidateFunction => ajv.compile({ $ref: `mcp-registry#/components/schemas/${name}` });
const serverList = schema('ServerList');
const serverResponse = schema('ServerResponse');

function assertValid(validate: ValidateFunction, body: unknown) {
  assert.ok(validate(body), JSON.stringify(validate.errors));
}

const OFFICIAL = 'io.modelcontextprotocol.registry/official';
type Entry = {
  server: { name: string; description: string; version: string; remotes: { url: string }[] };
  _meta: Record<string, { status: string; isLatest: boolean; updatedAt: string }>;
};

describe('MCP Registry read API: /v0.1/servers', () => {
  let app: TestApp;
  let owner: { token: string };
  const clock = new TestClock();
  const mcpAgent = (overrides: Record<string, unknown> = {}) =>
    registerAgent(app, owner.token, { protocols: ['mcp'], endpoint: 'https://tools.example.test/mcp', ...overrides });
  const get = (url: string) => app.request({ method: 'GET', url });
  const nameOf = (slug: string) => `test.example.registry/${slug}`;
  const path = (slug: string) => `/v0.1/servers/${encodeURIComponent(nameOf(slug))}`;

  before(async () => {
    app = await startTestApp({ PUBLIC_URL: 'https://registry.example.test:8443' }, { clock });
    owner = await app.signup();
  });
  after(() => app.close());

  it('lists public agents that speak MCP at an endpoint, as server.json records the published schema accepts', async () => {
    const listedAgent = await mcpAgent({ description: 'x'.repeat(140), version: '1.4.0' });
    const restOnly = await registerAgent(app, owner.token, { protocols: ['rest'] });
    const hidden = await mcpAgent({ visibility: 'private' });
    const response = await get(`/v0.1/servers?search=${listedAgent.slug}`);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assertValid(serverList, body);
    assert.equal(body.servers.length, 1);
    const entry = body.servers[0] as Entry;
    assert.equal(entry.server.name, nameOf(listedAgent.slug));
    assert.equal(entry.server.version, '1.4.0');
    assert.deepEqual(entry.server.remotes, [{ type: 'streamable-http', url: 'https://tools.example.test/mcp' }]);
    assert.equal([...entry.server.description].length, 100, 'cut to the schema’s 100 characters');
    assert.equal(entry._meta[OFFICIAL]!.status, 'active');
    assert.equal(entry._meta[OFFICIAL]!.isLatest, true);
    assert.equal(body.metadata.count, 1);

    for (const other of [restOnly, hidden]) {
      const none = (await get(`/v0.1/servers?search=${other.slug}`)).json();
      assert.equal(none.servers.length, 0, `${other.slug} is not an MCP server anyone may see`);
    }
    expectError(await get(`${path(hidden.slug)}/versions`), 404, 'NOT_FOUND');
  });

  it('keeps each version an agent was listed at; latest is the current one', async () => {
    const agent = await mcpAgent({ version: '1.0.0', description: 'Weather forecasts for any town' });
    clock.advance(1000);
    const patched = await app.request({
      method: 'PATCH',
      url: `/v1/agents/${agent.id}`,
      token: owner.token,
      body: { version: '2.0.0', description: 'Forecasts and alerts' },
    });
    assert.equal(patched.statusCode, 200, patched.body);

    const versions = await get(`${path(agent.slug)}/versions`);
    assert.equal(versions.statusCode, 200, versions.body);
    assertValid(serverList, versions.json());
    const entries = versions.json().servers as Entry[];
    assert.deepEqual(
      entries.map((e) => [e.server.version, e._meta[OFFICIAL]!.isLatest, e.server.description]),
      [
        ['2.0.0', true, 'Forecasts and alerts'],
        ['1.0.0', false, 'Weather forecasts for any town'],
      ],
    );

    const latest = await get(`${path(agent.slug)}/versions/latest`);
    assertValid(serverResponse, latest.json());
    assert.equal(latest.json().server.version, '2.0.0');
    const old = await get(`${path(agent.slug)}/versions/1.0.0`);
    assert.equal(old.json().server.version, '1.0.0');
    expectError(await get(`${path(agent.slug)}/versions/9.9.9`), 404, 'NOT_FOUND');

    const onlyLatest = (await get(`/v0.1/servers?search=${agent.slug}&version=latest`)).json();
    assert.deepEqual(
      onlyLatest.servers.map((e: Entry) => e.server.version),
      ['2.0.0'],
    );
    const exact = (await get(`/v0.1/servers?search=${agent.slug}&version=1.0.0`)).json();
    assert.deepEqual(
      exact.servers.map((e: Entry) => e.server.version),
      ['1.0.0'],
    );
  });

  it('a client paging with cursors sees every server once', async () => {
    const prefix = uniqueName('Paged')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-');
    const made = new Set<string>();
    for (let i = 0; i < 5; i++) made.add(nameOf((await mcpAgent({ name: `${prefix} ${i}` })).slug));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const response = await get(`/v0.1/servers?limit=2&search=${prefix}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assertValid(serverList, body);
      assert.ok(body.servers.length <= 2);
      seen.push(...body.servers.map((e: Entry) => e.server.name));
      cursor = body.metadata.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(new Set(seen), made);
    assert.equal(seen.length, made.size, 'no server twice');
  });

  it('a sync with updated_since sees creations, updates, deletions and losses of visibility', async () => {
    const kept = await mcpAgent();
    const deleted = await mcpAgent();
    const hidden = await mcpAgent();
    clock.advance(60_000);
    const since = clock.now().toISOString();
    clock.advance(1000);

    const created = await mcpAgent();
    await app.request({ method: 'PATCH', url: `/v1/agents/${kept.id}`, token: owner.token, body: { description: 'Now with more tools' } });
    await app.request({ method: 'DELETE', url: `/v1/agents/${deleted.id}`, token: owner.token });
    await app.request({ method: 'PATCH', url: `/v1/agents/${hidden.id}`, token: owner.token, body: { visibility: 'private' } });

    const statuses = new Map<string, string>();
    let cursor: string | undefined;
    do {
      const body = (
        await get(`/v0.1/servers?limit=3&updated_since=${encodeURIComponent(since)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).json();
      assertValid(serverList, body);
      for (const entry of body.servers as Entry[]) statuses.set(entry.server.name, entry._meta[OFFICIAL]!.status);
      cursor = body.metadata.nextCursor;
    } while (cursor);
    assert.deepEqual(
      Object.fromEntries(statuses),
      { [nameOf(created.slug)]: 'active', [nameOf(kept.slug)]: 'active', [nameOf(deleted.slug)]: 'deleted', [nameOf(hidden.slug)]: 'deleted' },
      'exactly what changed since',
    );

    // Without a sync time, deleted servers show only when asked for.
    assert.equal((await get(`/v0.1/servers?search=${deleted.slug}`)).json().servers.length, 0);
    const withDeleted = (await get(`/v0.1/servers?search=${deleted.slug}&include_deleted=true`)).json();
    assert.equal(withDeleted.servers[0]._meta[OFFICIAL].status, 'deleted');
    expectError(await get(`${path(deleted.slug)}/versions/latest`), 404, 'NOT_FOUND');
    assert.equal((await get(`${path(deleted.slug)}/versions/latest?include_deleted=true`)).statusCode, 200);
  });

  it('answers bad input and unknown servers with the MCP API’s error field beside code and message', async () => {
    for (const url of [
      '/v0.1/servers?limit=0',
      '/v0.1/servers?limit=abc',
      '/v0.1/servers?updated_since=yesterday',
      '/v0.1/servers?cursor=bm9wZQ',
      '/v0.1/servers?include_deleted=yes',
    ]) {
      const body = expectError(await get(url), 400, 'BAD_REQUEST') as { error?: string; message: string };
      assert.equal(body.error, body.message, url);
    }
    for (const url of [
      '/v0.1/servers/com.other%2Fthing/versions',
      `/v0.1/servers/${encodeURIComponent(nameOf('no-such-agent'))}/versions/latest`,
      '/v0.1/nothing-here',
    ]) {
      const body = expectError(await get(url), 404, 'NOT_FOUND') as { error?: string };
      assert.equal(typeof body.error, 'string', url);
    }
  });
});

describe('MCP Registry read API: names of agents registered from a server.json', () => {
  let app: TestApp;
  let manifestHost: AgentServer;
  let manifest = '';
  let token: string;
  before(async () => {
    app = await startTestApp({ ALLOW_PRIVATE_ENDPOINTS: 'true', PUBLIC_URL: 'https://registry.example.test' });
    manifestHost = await startAgentServer(() => ({ status: 200, body: manifest }));
    token = (await app.signup()).token;
  });
  after(async () => {
    await manifestHost.close();
    await app.close();
  });

  const registerFrom = async (serverJsonName: string, endpoint: string) => {
    manifest = JSON.stringify({
      name: serverJsonName,
      title: uniqueName('Weather MCP'),
      description: 'Forecasts and observations for any place',
      version: '1.0.0',
      remotes: [{ type: 'streamable-http', url: endpoint }],
    });
    const created = await app.request({ method: 'POST', url: '/v1/agents', token, body: { categories: ['data'], endpoint, manifestUrl: manifestHost.url } });
    assert.equal(created.statusCode, 201, created.body);
    return created.json().data as { id: string; slug: string };
  };

  it('keeps a server.json name whose namespace is the endpoint’s domain reversed, and names every other agent itself', async () => {
    const own = await registerFrom('com.example/weather', 'https://mcp.example.com/mcp');
    const borrowed = await registerFrom('com.github/weather', 'https://weather.example.net/mcp');
    const nameOf = async (slug: string) => (await app.request({ method: 'GET', url: `/v0.1/servers?search=${slug}` })).json().servers[0]?.server.name;
    assert.equal(await nameOf('com.example/weather'), 'com.example/weather');
    assert.equal(await nameOf(borrowed.slug), `test.example.registry/${borrowed.slug}`, 'a namespace the endpoint does not hold is not taken');

    const byOwnName = await app.request({ method: 'GET', url: `/v0.1/servers/${encodeURIComponent('com.example/weather')}/versions/latest` });
    assert.equal(byOwnName.statusCode, 200, byOwnName.body);
    assertValid(serverResponse, byOwnName.json());
    assert.equal(byOwnName.json().server.websiteUrl, `https://registry.example.test/agents/${own.slug}`);
    expectError(await app.request({ method: 'GET', url: `/v0.1/servers/${encodeURIComponent('com.github/weather')}/versions` }), 404, 'NOT_FOUND');

    // Moving to an endpoint outside the namespace gives up the name.
    await app.request({ method: 'PATCH', url: `/v1/agents/${own.id}`, token, body: { endpoint: 'https://elsewhere.example.org/mcp' } });
    assert.equal(await nameOf(own.slug), `test.example.registry/${own.slug}`);
  });

  it('names an agent whose server.json claims this registry’s own namespace by its slug, so every listed name has its versions', async () => {
    const bySlug = await registerFrom('com.github/forecasts', 'https://weather.example.net/mcp');
    // Its endpoint is under the registry's domain, and its name is the one the other agent is listed under.
    const claimer = await registerFrom(`test.example.registry/${bySlug.slug}`, 'https://tools.registry.example.test/mcp');
    const listed = (await app.request({ method: 'GET', url: `/v0.1/servers?search=${bySlug.slug}` })).json().servers as {
      server: { name: string; websiteUrl: string };
    }[];
    assert.deepEqual(listed.map((entry) => entry.server.name).sort(), [`test.example.registry/${bySlug.slug}`, `test.example.registry/${claimer.slug}`].sort());
    for (const { server } of listed) {
      const versions = await app.request({ method: 'GET', url: `/v0.1/servers/${encodeURIComponent(server.name)}/versions` });
      assert.equal(versions.statusCode, 200, versions.body);
      assert.deepEqual(
        versions.json().servers.map((entry: { server: { websiteUrl: string } }) => entry.server.websiteUrl),
        [server.websiteUrl],
        `${server.name} finds the agent it is listed for`,
      );
    }
  });
});

describe('MCP Registry read API: an instance on an IP address', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ PUBLIC_URL: 'http://192.0.2.10:8080' });
  });
  after(() => app.close());

  it('names its agents in the address as written, not reversed', async () => {
    const owner = await app.signup();
    const agent = await registerAgent(app, owner.token, { protocols: ['mcp'], endpoint: 'https://tools.example.test/mcp' });
    const listed = (await app.request({ method: 'GET', url: `/v0.1/servers?search=${agent.slug}` })).json().servers as { server: { name: string } }[];
    assert.deepEqual(
      listed.map((entry) => entry.server.name),
      [`192.0.2.10/${agent.slug}`],
    );
    const latest = await app.request({ method: 'GET', url: `/v0.1/servers/${encodeURIComponent(`192.0.2.10/${agent.slug}`)}/versions/latest` });
    assert.equal(latest.statusCode, 200, latest.body);
  });
});
