import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';
import { readyWebhookAgent, submitTask } from '../helpers/tasks.ts';

const env = { ALLOW_PRIVATE_ENDPOINTS: 'true', DELIVERY_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20' };

const invoiceSchema = {
  client: { type: 'string', required: true, description: 'who the invoice is for' },
  amount: { type: 'number', required: true, description: 'amount to invoice' },
  currency: { type: 'string', enum: ['usd', 'eur', 'gbp'], default: 'usd' },
  recurring: { type: 'boolean', default: false },
};

describe('tasks: plain-language submission and the extraction preview', () => {
  let app: TestApp;
  let server: AgentServer;
  let requester: { token: string };
  let owner: { token: string };
  let agent: { id: string; name: string };
  let hidden: { id: string };
  const imageSchema = { style: { type: 'string', enum: ['watercolor', 'pixel art', 'photorealistic'], required: true }, count: { type: 'number', default: 1 } };

  before(async () => {
    app = await startTestApp(env);
    server = await startAgentServer();
    requester = await app.signup();
    owner = await app.signup();
    agent = (await readyWebhookAgent(app, owner.token, server.url, {
      capabilities: ['image-generation'],
      inputSchema: JSON.stringify(imageSchema),
    })) as unknown as { id: string; name: string };
    hidden = await readyWebhookAgent(app, owner.token, server.url, {
      capabilities: ['image-generation'],
      inputSchema: JSON.stringify(imageSchema),
      visibility: 'private',
    });
  });
  after(async () => {
    await app.close();
    await server.close();
  });

  const preview = (body: unknown, token: string | null = requester.token) =>
    app.request({ method: 'POST', url: '/v1/tasks/extract', ...(token ? { token } : {}), body });
  const submit = (body: unknown, headers: Record<string, string> = {}, token = requester.token) =>
    app.request({ method: 'POST', url: '/v1/tasks', token, body, headers });

  it('a submission to a named agent missing a required field is 400 with details per field and found beside them', async () => {
    const response = await submit({ agentId: agent.id, description: 'Make 4 pictures of a lighthouse' });
    const error = expectError(response, 400, 'BAD_REQUEST');
    assert.deepEqual(error.details, [{ path: '/input/style', message: `is required by ${agent.name} and was not found in the description` }]);
    assert.deepEqual(response.json().found, { count: 4 });
    const fixed = await submitTask(app, requester.token, {
      agentId: agent.id,
      capabilities: undefined,
      description: 'Make 4 watercolor pictures of a lighthouse',
    });
    assert.deepEqual(fixed.input, { style: 'watercolor', count: 4 });
  });

  it('a refused submission stores nothing under its Idempotency-Key: the corrected request may use the same key', async () => {
    const fresh = await app.signup();
    const headers = { 'idempotency-key': 'paint-1' };
    const refused = { agentId: agent.id, description: 'Paint a lighthouse' };
    expectError(await submit(refused, headers, fresh.token), 400, 'BAD_REQUEST');
    expectError(await submit(refused, headers, fresh.token), 400, 'BAD_REQUEST');
    const corrected = { agentId: agent.id, description: 'Paint a lighthouse in pixel art' };
    const created = await submit(corrected, headers, fresh.token);
    assert.equal(created.statusCode, 201, created.body);
    const replay = await submit(corrected, headers, fresh.token);
    assert.deepEqual(replay.json().data, created.json().data);
    expectError(await submit(refused, headers, fresh.token), 422, 'UNPROCESSABLE');
    assert.equal((await app.request({ method: 'GET', url: '/v1/tasks', token: fresh.token })).json().pagination.total, 1);
  });

  it('previews the input for an agent: what a submission would carry, and what is missing', async () => {
    const ok = await preview({ agentId: agent.id, title: 'Lighthouse', description: 'Three photorealistic shots of it at dusk, 3 images' });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json(), { data: { input: { style: 'photorealistic', count: 3 }, missing: [] } });
    const short = await preview({ agentId: agent.id, description: 'A lighthouse' });
    assert.deepEqual(short.json(), { data: { input: { count: 1 }, missing: ['style'] } });
  });

  it('previews against an inputSchema given inline, as JSON text or object', async () => {
    const asObject = await preview({ inputSchema: invoiceSchema, description: 'client: Acme Ltd. amount: 300 in eur' });
    assert.equal(asObject.statusCode, 200, asObject.body);
    assert.deepEqual(asObject.json().data, { input: { client: 'Acme Ltd', amount: 300, currency: 'eur', recurring: false }, missing: [] });
    const asText = await preview({ inputSchema: JSON.stringify(imageSchema), description: 'pixel art, 2 of them' });
    assert.deepEqual(asText.json().data, { input: { style: 'pixel art', count: 2 }, missing: [] });
  });

  it('creates nothing', async () => {
    const fresh = await app.signup();
    assert.equal((await preview({ agentId: agent.id, description: 'pixel art' }, fresh.token)).statusCode, 200);
    assert.equal((await app.request({ method: 'GET', url: '/v1/tasks', token: fresh.token })).json().pagination.total, 0);
  });

  it('refuses bad input with a clear 400', async () => {
    expectError(await preview({ description: 'pixel art' }), 400, 'BAD_REQUEST');
    expectError(await preview({ agentId: agent.id, inputSchema: imageSchema, description: 'pixel art' }), 400, 'BAD_REQUEST');
    expectError(await preview({ agentId: agent.id }), 400, 'BAD_REQUEST');
    expectError(await preview({ agentId: agent.id, description: '' }), 400, 'BAD_REQUEST');
    expectError(await preview({ agentId: agent.id, description: 'x', extra: 1 }), 400, 'BAD_REQUEST');
    const badType = expectError(await preview({ inputSchema: { size: { type: 'date' } }, description: 'x' }), 400, 'BAD_REQUEST');
    assert.deepEqual(
      badType.details?.map((d) => d.path),
      ['/body/inputSchema/size/type'],
    );
    expectError(await preview({ inputSchema: '{not json', description: 'x' }), 400, 'BAD_REQUEST');
    expectError(await preview({ inputSchema: { tone: { type: 'string', enum: [] } }, description: 'x' }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'POST', url: '/v1/tasks/extract', token: requester.token, rawBody: '{"description":' }), 400, 'BAD_REQUEST');
  });

  it('needs a credential', async () => {
    expectError(await preview({ agentId: agent.id, description: 'pixel art' }, null), 401, 'UNAUTHORIZED');
    expectError(await preview({ agentId: agent.id, description: 'pixel art' }, 'ags_not-a-session'), 401, 'UNAUTHORIZED');
  });

  it("someone else's private agent is 404, as an unknown one; its owner may preview it", async () => {
    expectError(await preview({ agentId: hidden.id, description: 'pixel art' }), 404, 'NOT_FOUND');
    expectError(await preview({ agentId: 'no-such-agent', description: 'pixel art' }), 404, 'NOT_FOUND');
    assert.equal((await preview({ agentId: hidden.id, description: 'pixel art' }, owner.token)).statusCode, 200);
  });

  it('an agent without an inputSchema receives the description as it is: nothing to extract', async () => {
    const plain = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['summarize'] });
    assert.deepEqual((await preview({ agentId: plain.id, description: 'Summarise this' })).json(), { data: { input: {}, missing: [] } });
  });
});
