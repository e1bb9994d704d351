import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { registerAgent } from '../helpers/agents.ts';
import { builtAgentryBin } from '../helpers/built-packages.ts';
import { heartbeat } from '../helpers/tasks.ts';

let app: TestApp;
let baseUrl: string;

async function connect(token?: string, service = baseUrl): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', service), {
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
    // Over HTTP the client sends a header; the CLI's login is another transport's way.
    assert.doesNotMatch(textOf(submitted), /agentry login|AGENTRY_TOKEN/);
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
    assert.equal(response.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
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

  test('answers carry the security headers every other route sends', async () => {
    const response = await fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(response.status, 200);
    await response.text();
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.ok(response.headers.get('x-request-id'));
  });

  test('tool arguments that break the input rules are a tool error the model can read, not an HTTP 400', async () => {
    const client = await connect();
    let deep: Record<string, unknown> = { query: 'translation' };
    for (let level = 0; level < 70; level++) deep = { nested: deep };
    const tooDeep = await call(client, 'search_agents', deep);
    assert.equal(tooDeep.isError, true);
    assert.match(textOf(tooDeep), /^BAD_REQUEST: The arguments nest too deeply: .* at most 64 levels/);

    const poisoned = await call(client, 'search_agents', JSON.parse('{"query":"translation","__proto__":{"admin":true}}') as Record<string, unknown>);
    assert.equal(poisoned.isError, true);
    assert.match(textOf(poisoned), /"__proto__"/);
    const byConstructor = await call(client, 'search_agents', { query: 'translation', constructor: { prototype: { admin: true } } });
    assert.equal(byConstructor.isError, true);

    // The same client goes on working: the refusal was one tool call's answer.
    assert.equal((await call(client, 'search_agents', { query: 'translate a German contract' })).isError, undefined);
    await client.close();

    // In a batch, only the refused call is answered so; the rest run.
    const batch = await fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_capabilities","arguments":{"__proto__":{}}}},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
    });
    assert.equal(batch.status, 200);
    const answers = (await batch.json()) as { id: number; result: { isError?: boolean; tools?: unknown[] } }[];
    assert.equal(answers.find((answer) => answer.id === 1)?.result.isError, true);
    assert.ok(answers.find((answer) => answer.id === 2)?.result.tools?.length);

    // Outside a tool's arguments the rules answer as on every route: HTTP 400 with the JSON error.
    let deepMeta = '{}';
    for (let level = 0; level < 70; level++) deepMeta = `{"a":${deepMeta}}`;
    const envelope = await app.request({
      method: 'POST',
      url: '/mcp',
      headers: { accept: 'application/json, text/event-stream' },
      rawBody: `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":${deepMeta}}}`,
    });
    assert.equal(envelope.statusCode, 400, envelope.body);
    assert.equal(envelope.json().code, 'BAD_REQUEST');
  });

  test('GET /mcp is 405: the server keeps no sessions', async () => {
    const response = await app.request({ method: 'GET', url: '/mcp' });
    assert.equal(response.statusCode, 405);
  });
});

describe('MCP over stdio: agentry mcp', () => {
  let app: TestApp;
  let baseUrl: string;
  before(async () => {
    app = await startTestApp();
    baseUrl = await app.server.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => app.close());

  /** A config folder of its own, so no login stored on the machine running the tests leaks in. */
  const isolatedHome = () => {
    const home = mkdtempSync(join(tmpdir(), 'agentry-mcp-'));
    return { HOME: home, XDG_CONFIG_HOME: join(home, 'config') };
  };

  const spawnClient = async (env: Record<string, string>, args: string[] = []) => {
    const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [builtAgentryBin(), ...args, 'mcp'],
      env: { PATH: process.env.PATH ?? '', ...isolatedHome(), ...env },
      stderr: 'pipe',
    });
    await client.connect(transport);
    return client;
  };

  test('offers exactly the tools of /mcp, and searches and submits through the configured service and credential', async () => {
    const owner = await app.signup();
    const agent = await registerAgent(app, owner.token, {
      description: 'Writes haiku about the weather',
      capabilities: ['poetry'],
      deliveryMode: 'poll',
      visibility: 'public',
    });
    await heartbeat(app, owner.token, agent.id);
    const overHttp = await connect(owner.token, baseUrl);
    const client = await spawnClient({ AGENTRY_URL: baseUrl, AGENTRY_TOKEN: owner.token });
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools, (await overHttp.listTools()).tools);
      const found = jsonOf(await call(client, 'search_agents', { query: 'a haiku about the weather' }));
      assert.ok(found.data.some((hit: { id: string }) => hit.id === agent.id));
      const shown = jsonOf(await call(client, 'get_agent', { agent: agent.slug }));
      assert.equal(shown.agent.id, agent.id);
      const task = jsonOf(await call(client, 'submit_task', { description: 'A haiku about rain, please', agentId: agent.id }));
      assert.equal(task.assignedAgent.id, agent.id);
      assert.equal(task.status, 'matched');
      assert.equal(jsonOf(await call(client, 'get_task', { taskId: task.id })).id, task.id);
      const stored = await app.request({ method: 'GET', url: `/v1/tasks/${task.id}`, token: owner.token });
      assert.equal(stored.json().data.description, 'A haiku about rain, please');
    } finally {
      await client.close();
      await overHttp.close();
    }
  });

  test("uses the CLI's stored login and URL when no flag or variable names them", async () => {
    const owner = await app.signup();
    const agent = await registerAgent(app, owner.token, { description: 'Summarises news', capabilities: ['summarization'], deliveryMode: 'poll' });
    const env = isolatedHome();
    mkdirSync(join(env.XDG_CONFIG_HOME, 'agentry'), { recursive: true });
    writeFileSync(join(env.XDG_CONFIG_HOME, 'agentry', 'config.json'), JSON.stringify({ url: baseUrl, token: owner.token }), { mode: 0o600 });
    const client = await spawnClient(env);
    try {
      const task = jsonOf(await call(client, 'submit_task', { description: 'Summarise this week in one line', agentId: agent.id }));
      assert.equal(typeof task.id, 'string');
      const mine = await app.request({ method: 'GET', url: `/v1/tasks/${task.id}`, token: owner.token });
      assert.equal(mine.statusCode, 200);
    } finally {
      await client.close();
    }
  });

  test('--url names the service; a wrong token is a tool error that says so', async () => {
    const client = await spawnClient({ AGENTRY_TOKEN: 'agk_not_a_real_key' }, ['--url', baseUrl]);
    try {
      assert.ok(jsonOf(await call(client, 'list_capabilities')).data.length > 0);
      const refused = await call(client, 'get_task', { taskId: 'nope' });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /^UNAUTHORIZED: .*agentry login/s);
    } finally {
      await client.close();
    }
  });

  test('without a token the task tools say to authenticate; an unreachable service is a tool error', async () => {
    const anonymous = await spawnClient({ AGENTRY_URL: baseUrl });
    try {
      const refused = await call(anonymous, 'submit_task', { description: 'anything' });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /credential: run `agentry login`/);
      // `agentry mcp` sends the CLI's credential: a header the MCP client could set is not the way.
      assert.doesNotMatch(textOf(refused), /Authorization/);
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

  test('a URL that is not http(s) is a usage error before any MCP traffic; --help explains the command', async () => {
    const run = promisify(execFile);
    const refused = await run(process.execPath, [builtAgentryBin(), '--url', 'ftp://example.test', 'mcp'], { env: { ...process.env, ...isolatedHome() } }).then(
      () => assert.fail('expected exit code 2'),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    assert.equal(refused.code, 2);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /must be an http\(s\) URL/);
    const help = await run(process.execPath, [builtAgentryBin(), 'mcp', '--help']);
    assert.match(help.stdout, /mcpServers/);
  });
});
