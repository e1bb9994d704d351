import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { registerAgent } from '../helpers/agents.ts';
import { heartbeat } from '../helpers/tasks.ts';

let app: TestApp;
let baseUrl: string;

async function connect(token?: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
  await client.connect(transport);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult) => (result.content[0] as { type: 'text'; text: string }).text;
const jsonOf = (result: CallToolResult) => JSON.parse(textOf(result));

describe('MCP server at /mcp', () => {
  let owner: { token: string };
  let agent: { id: string; slug: string };

  before(async () => {
    app = await startTestApp();
    baseUrl = await app.server.listen({ port: 0, host: '127.0.0.1' });
    owner = await app.signup();
    agent = await registerAgent(app, owner.token, {
      description: 'Translates legal contracts from German into English',
      capabilities: ['translation'],
      deliveryMode: 'poll',
      visibility: 'public',
    });
    await heartbeat(app, owner.token, agent.id);
  });
  after(() => app.close());

  test('lists its tools to an SDK client without a credential', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['get_agent', 'get_task', 'list_capabilities', 'search_agents', 'submit_task']);
    await client.close();
  });

  test('public tools answer without a credential: search, show an agent, capabilities', async () => {
    const client = await connect();
    const search = await call(client, 'search_agents', { query: 'translate a German contract' });
    assert.equal(search.isError, undefined);
    assert.ok(jsonOf(search).data.some((found: { id: string }) => found.id === agent.id));

    const byId = jsonOf(await call(client, 'get_agent', { agent: agent.id }));
    assert.equal(byId.agent.id, agent.id);
    assert.equal(typeof byId.trust.score, 'number');
    const bySlug = jsonOf(await call(client, 'get_agent', { agent: agent.slug }));
    assert.equal(bySlug.agent.id, agent.id);

    const missing = await call(client, 'get_agent', { agent: 'no-such-agent' });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /NOT_FOUND/);

    const catalogue = jsonOf(await call(client, 'list_capabilities'));
    assert.ok(catalogue.data.length > 0);
    await client.close();
  });

  test('task tools without a credential answer a tool error saying to authenticate', async () => {
    const client = await connect();
    const submitted = await call(client, 'submit_task', { description: 'Translate this contract' });
    assert.equal(submitted.isError, true);
    assert.match(textOf(submitted), /Authorization: Bearer/);
    const read = await call(client, 'get_task', { taskId: 'task_x' });
    assert.equal(read.isError, true);
    assert.match(textOf(read), /credential/);
    await client.close();
  });

  test('an invalid credential is refused with 401 before any tool runs', async () => {
    const response = await fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(response.status, 401);
    assert.equal((await response.json()).code, 'UNAUTHORIZED');
  });

  test('with a credential a plain-language task is submitted and read back; others cannot read it', async () => {
    const requester = await app.signup();
    const client = await connect(requester.token);
    const submitted = await call(client, 'submit_task', { description: 'Please translate this German contract into English', agentId: agent.id });
    assert.equal(submitted.isError, undefined, textOf(submitted));
    const task = jsonOf(submitted);
    assert.equal(task.assignedAgent.id, agent.id);

    const read = jsonOf(await call(client, 'get_task', { taskId: task.id }));
    assert.equal(read.id, task.id);
    assert.equal(read.description, 'Please translate this German contract into English');
    await client.close();

    const stranger = await app.signup();
    const other = await connect(stranger.token);
    const denied = await call(other, 'get_task', { taskId: task.id });
    assert.equal(denied.isError, true);
    assert.match(textOf(denied), /NOT_FOUND/);
    await other.close();
  });

  test('GET /mcp is 405: the server keeps no sessions', async () => {
    const response = await app.request({ method: 'GET', url: '/mcp' });
    assert.equal(response.statusCode, 405);
  });
});

describe('MCP over stdio', () => {
  let app: TestApp;
  let baseUrl: string;
  before(async () => {
    app = await startTestApp();
    baseUrl = await app.server.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => app.close());

  const spawnClient = async (env: Record<string, string>) => {
    const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', fileURLToPath(new URL('../../src/mcp-stdio.ts', import.meta.url))],
      env: { PATH: process.env.PATH ?? '', ...env },
      stderr: 'pipe',
    });
    await client.connect(transport);
    return client;
  };

  test('a spawned stdio server answers the same tools through the configured service and credential', async () => {
    const owner = await app.signup();
    const agent = await registerAgent(app, owner.token, { description: 'Writes haiku about the weather', capabilities: ['poetry'], deliveryMode: 'poll' });
    await heartbeat(app, owner.token, agent.id);
    const client = await spawnClient({ AGENTRY_URL: baseUrl, AGENTRY_TOKEN: owner.token });
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.length, 5);
      const shown = jsonOf(await call(client, 'get_agent', { agent: agent.slug }));
      assert.equal(shown.agent.id, agent.id);
      const task = jsonOf(await call(client, 'submit_task', { description: 'A haiku about rain, please', agentId: agent.id }));
      assert.equal(task.assignedAgent.id, agent.id);
      assert.equal(jsonOf(await call(client, 'get_task', { taskId: task.id })).id, task.id);
    } finally {
      await client.close();
    }
  });

  test('without a token the task tools say to authenticate; an unreachable service is a tool error', async () => {
    const anonymous = await spawnClient({ AGENTRY_URL: baseUrl });
    try {
      const refused = await call(anonymous, 'submit_task', { description: 'anything' });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /credential/);
    } finally {
      await anonymous.close();
    }
    const nowhere = await spawnClient({ AGENTRY_URL: 'http://127.0.0.1:9' });
    try {
      const failed = await call(nowhere, 'list_capabilities');
      assert.equal(failed.isError, true);
      assert.match(textOf(failed), /Could not reach the Agentry service/);
    } finally {
      await nowhere.close();
    }
  });
});
