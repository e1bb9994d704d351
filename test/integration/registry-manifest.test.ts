import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { uniqueName } from '../helpers/agents.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';

/** An A2A v0.3 agent card, as most agents publish it today. */
const legacyCard = (overrides: Record<string, unknown> = {}) => ({
  protocolVersion: '0.3.0',
  name: uniqueName('Contract Translator'),
  description: 'Translates legal contracts between German and English',
  url: 'https://translator.example.test/a2a',
  version: '2.1.0',
  documentationUrl: 'https://translator.example.test/docs',
  capabilities: { streaming: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'translate',
      name: 'Legal translation',
      description: 'German to English',
      tags: ['translation', 'legal'],
      examples: ['Translate this NDA', 'A very long example sentence that is far too long to ever be a capability term'],
    },
  ],
  ...overrides,
});

/** An A2A v1.0 agent card. */
const currentCard = () => ({
  name: uniqueName('Invoice Reader'),
  description: 'Reads invoices and returns their totals',
  supportedInterfaces: [{ url: 'https://invoices.example.test/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  version: '1.0.0',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['application/json'],
  skills: [{ id: 'totals', name: 'Invoice totals', description: 'Sums an invoice', tags: ['invoices', 'ocr'], examples: [] }],
});

const mcpServerJson = () => ({
  $schema: 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json',
  name: 'io.example/weather',
  title: uniqueName('Weather MCP'),
  description: 'Forecasts and observations for any place',
  version: '1.0.0',
  websiteUrl: 'https://weather.example.test',
  remotes: [{ type: 'streamable-http', url: 'https://weather.example.test/mcp' }],
});

describe('registration from a manifest', () => {
  let app: TestApp;
  let manifestHost: AgentServer;
  let manifest: { status: number; body: string };
  let token: string;

  const serve = (body: unknown, status = 200) => {
    manifest = { status, body: typeof body === 'string' ? body : JSON.stringify(body) };
  };
  const register = (body: Record<string, unknown>) =>
    app.request({
      method: 'POST',
      url: '/v1/agents',
      token,
      body: { categories: ['productivity'], deliveryMode: 'poll', manifestUrl: manifestHost.url, ...body },
    });

  before(async () => {
    app = await startTestApp({ ALLOW_PRIVATE_ENDPOINTS: 'true' });
    manifestHost = await startAgentServer(() => manifest);
    token = (await app.signup()).token;
  });
  after(async () => {
    await manifestHost.close();
    await app.close();
  });

  test('an A2A v0.3 card fills the fields the request leaves out, and the agent says what was imported', async () => {
    const card = legacyCard();
    serve(card);
    const created = await register({});
    assert.equal(created.statusCode, 201, created.body);
    const agent = created.json().data;
    assert.equal(agent.name, card.name);
    assert.equal(agent.description, card.description);
    assert.deepEqual(agent.protocols, ['a2a']);
    // The skill's id and its tag "translation" name one catalogue capability; "legal" names none and stays a tag.
    assert.deepEqual(agent.capabilities, ['translation']);
    assert.deepEqual(agent.tags, ['legal']);
    assert.equal(agent.docsUrl, 'https://translator.example.test/docs');
    assert.equal(agent.manifestUrl, manifestHost.url);
    assert.deepEqual(agent.manifest.fields, ['name', 'description', 'capabilities', 'tags', 'protocols', 'docsUrl', 'examples']);
    assert.deepEqual(agent.examples, ['Translate this NDA', 'A very long example sentence that is far too long to ever be a capability term']);

    const shown = (await app.request({ method: 'GET', url: `/v1/agents/${agent.id}`, token })).json().data;
    assert.deepEqual(shown.manifest, agent.manifest);
    assert.equal(typeof shown.manifest.importedAt, 'string');
    assert.equal(manifestHost.received.at(-1)!.headers.accept, 'application/json');
  });

  test('skills become catalogue capabilities and tags, never their example phrases', async () => {
    serve(
      legacyCard({
        skills: [
          {
            id: 'reverse',
            name: 'reverse hello',
            description: 'Reverses text',
            tags: ['strings', 'summarize'],
            examples: ['reverse hello', 'reverse hello world'],
          },
          { id: 'code_review', name: 'Reviewer', description: 'Reviews a diff', tags: ['Strings'], examples: ['review my pull request'] },
        ],
      }),
    );
    const created = await register({});
    assert.equal(created.statusCode, 201, created.body);
    const agent = created.json().data;
    assert.deepEqual(agent.capabilities, ['text-summarization', 'code-review']);
    assert.deepEqual(agent.tags, ['reverse', 'strings']);
    assert.deepEqual(agent.examples, ['reverse hello', 'reverse hello world', 'review my pull request']);
  });

  test('what the request gives wins over the manifest', async () => {
    serve(legacyCard());
    const name = uniqueName('Own name');
    const agent = (await register({ name, protocols: ['rest', 'a2a'] })).json().data;
    assert.equal(agent.name, name);
    assert.deepEqual(agent.protocols, ['rest', 'a2a']);
    assert.deepEqual(agent.manifest.fields, ['description', 'capabilities', 'tags', 'docsUrl', 'examples']);
  });

  test('an A2A v1.0 card and an MCP server.json are read too', async () => {
    const card = currentCard();
    serve(card);
    const fromCard = (await register({})).json().data;
    assert.equal(fromCard.name, card.name);
    assert.deepEqual(fromCard.capabilities, ['invoice-processing', 'optical-character-recognition']);
    assert.deepEqual(fromCard.tags, ['totals']);

    const server = mcpServerJson();
    serve(server);
    const fromServer = await register({});
    assert.equal(fromServer.statusCode, 201, fromServer.body);
    assert.equal(fromServer.json().data.name, server.title);
    assert.deepEqual(fromServer.json().data.protocols, ['mcp']);
    assert.equal(fromServer.json().data.docsUrl, 'https://weather.example.test/');
  });

  test('a required field neither the request nor the manifest gives is a 400 naming it', async () => {
    serve({ ...mcpServerJson(), description: undefined });
    const missing = expectError(await register({}), 400, 'BAD_REQUEST');
    assert.match(missing.message, /MCP server.json without a description/);

    const noManifest = expectError(
      await app.request({
        method: 'POST',
        url: '/v1/agents',
        token,
        body: { description: 'x', protocols: ['rest'], categories: ['productivity'], deliveryMode: 'poll' },
      }),
      400,
      'BAD_REQUEST',
    );
    assert.match(noManifest.message, /name is required/);
    assert.deepEqual(noManifest.details, [{ path: '/body/name', message: 'is required' }]);
  });

  test('a manifest that cannot be fetched or read is a 400 saying why', async () => {
    serve({ code: 'nope' }, 404);
    assert.match(expectError(await register({}), 400, 'BAD_REQUEST').message, /could not be fetched: the manifest URL answered HTTP 404/);
    serve('{"name": "half');
    assert.match(expectError(await register({}), 400, 'BAD_REQUEST').message, /not valid JSON/);
    serve({ name: 'x', description: 'y' });
    assert.match(expectError(await register({}), 400, 'BAD_REQUEST').message, /neither an A2A agent card/);
    serve('['.repeat(100) + ']'.repeat(100));
    assert.match(expectError(await register({}), 400, 'BAD_REQUEST').message, /not valid JSON/);
    serve({ ...legacyCard(), name: 42 });
    assert.equal((await register({})).statusCode, 400);
  });

  test('updating the manifest URL reads it again and replaces what the request does not set', async () => {
    serve(legacyCard());
    const agent = (await register({})).json().data;
    const next = currentCard();
    serve(next);
    const updated = await app.request({
      method: 'PATCH',
      url: `/v1/agents/${agent.id}`,
      token,
      body: { manifestUrl: `${manifestHost.url}?v=2`, description: 'Kept as given' },
    });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.equal(updated.json().data.name, next.name);
    assert.equal(updated.json().data.description, 'Kept as given');
    assert.deepEqual(updated.json().data.manifest.fields, ['name', 'capabilities', 'tags', 'protocols']);

    const cleared = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token, body: { manifestUrl: null } });
    assert.equal(cleared.json().data.manifest, null);
    assert.equal(cleared.json().data.name, next.name);
  });
});

test('a manifest on a private address is refused unless private endpoints are allowed', async () => {
  const app = await startTestApp();
  const host = await startAgentServer(() => ({ status: 200, body: JSON.stringify(legacyCard()) }));
  try {
    const { token } = await app.signup();
    const refused = expectError(
      await app.request({ method: 'POST', url: '/v1/agents', token, body: { categories: ['productivity'], deliveryMode: 'poll', manifestUrl: host.url } }),
      400,
      'BAD_REQUEST',
    );
    assert.match(refused.message, /the manifest URL could not be reached at a public address/);
    assert.equal(host.received.length, 0);
  } finally {
    await host.close();
    await app.close();
  }
});
