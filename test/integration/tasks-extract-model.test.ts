import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadCorpus, type CorpusRequest } from '../../bench/extraction.ts';
import type { InputSchema } from '../../src/modules/registry/index.ts';
import { createBuiltinExtractor } from '../../src/modules/extraction/index.ts';
import { startAgentServer, type AgentServer, type ReceivedWebhook } from '../helpers/agent-server.ts';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { readyWebhookAgent, submitTask } from '../helpers/tasks.ts';

/**
 * Plumbing of the model extractor (EXTRACTOR_URL) through the running service: a stand-in
 * OpenAI-compatible server on loopback answers each corpus request with the corpus' expected
 * values (this measures nothing about a model), then answers garbage or 500, and the service must
 * fall back to exactly what the built-in rules give.
 */
const corpus = loadCorpus();
const chat = (content: string) => ({
  status: 200,
  body: JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  }),
});
const taskTextOf = (webhook: ReceivedWebhook) => {
  const messages = webhook.json.messages as { role: string; content: string }[];
  return messages.find((m) => m.role === 'user')?.content.split('Task description:\n')[1] ?? '';
};
const schemaAskedFor = (webhook: ReceivedWebhook) =>
  Object.keys((webhook.json.response_format as { json_schema: { schema: { properties: Record<string, unknown> } } }).json_schema.schema.properties);

function withDefaults(schema: InputSchema, values: Record<string, unknown>) {
  const input: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const [name, definition] of Object.entries(schema)) {
    const value = values[name] ?? definition.default;
    if (value !== undefined) input[name] = value;
    else if (definition.required) missing.push(name);
  }
  return { input, missing };
}

describe('tasks: the model extractor through the service, on the corpus', () => {
  let app: TestApp;
  let model: AgentServer;
  let agents: AgentServer;
  let requester: { token: string };
  const byText = new Map<string, CorpusRequest>(corpus.requests.map((request) => [request.text, request]));

  before(async () => {
    model = await startAgentServer(() => ({ status: 500 }));
    agents = await startAgentServer();
    app = await startTestApp({ ALLOW_PRIVATE_ENDPOINTS: 'true', EXTRACTOR_URL: model.url, EXTRACTOR_MODEL: 'stand-in', DELIVERY_POLL_INTERVAL_MS: '20' });
    requester = await app.signup();
  });
  after(async () => {
    await app.close();
    await model.close();
    await agents.close();
  });

  const preview = async (request: CorpusRequest) => {
    const response = await app.request({
      method: 'POST',
      url: '/v1/tasks/extract',
      token: requester.token,
      body: { inputSchema: corpus.schemas[request.schema], description: request.text },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data as { input: Record<string, unknown>; missing: string[] };
  };

  it("uses the model's answer: each request gets the values the stand-in gave, defaults filling the rest", async () => {
    model.respond = (webhook) => {
      const request = byText.get(taskTextOf(webhook));
      return request === undefined ? { status: 404 } : chat(JSON.stringify(request.expected));
    };
    const asked = model.received.length;
    for (const request of corpus.requests) {
      const schema = corpus.schemas[request.schema] as InputSchema;
      assert.deepEqual(await preview(request), withDefaults(schema, request.expected), request.id);
    }
    assert.equal(model.received.length - asked, corpus.requests.length);
    const last = model.received.at(-1) as ReceivedWebhook;
    assert.equal(last.json.model, 'stand-in');
    assert.deepEqual(schemaAskedFor(last), Object.keys(corpus.schemas[corpus.requests.at(-1)?.schema ?? ''] ?? {}));
  });

  for (const [kind, answer] of [
    ['garbage', () => chat('Sure! The destination is Porto.')],
    ['a 500', () => ({ status: 500, body: '{"error":"overloaded"}' })],
  ] as const) {
    it(`falls back to the built-in rules when the model answers ${kind}`, async () => {
      model.respond = answer;
      const builtin = createBuiltinExtractor();
      const asked = model.received.length;
      for (const request of corpus.requests) {
        const schema = corpus.schemas[request.schema] as InputSchema;
        assert.deepEqual(await preview(request), await builtin.extract(schema, { description: request.text }), request.id);
      }
      assert.equal(model.received.length - asked, corpus.requests.length, 'the model was asked each time');
    });
  }

  it('routing by capability: the schema the model is asked to fill is that of the agent routing picked', async () => {
    const owner = await app.signup();
    const travel = { destination: { type: 'string', required: true, description: 'City to travel to' }, nights: { type: 'number' } };
    const invoice = { client: { type: 'string', required: true }, amount: { type: 'number', required: true } };
    await readyWebhookAgent(app, owner.token, agents.url, { capabilities: ['trip-booking'], inputSchema: JSON.stringify(travel) });
    await readyWebhookAgent(app, owner.token, agents.url, { capabilities: ['trip-booking'], inputSchema: JSON.stringify(invoice) });
    model.respond = (webhook) =>
      chat(JSON.stringify(schemaAskedFor(webhook).includes('destination') ? { destination: 'Porto', nights: 3 } : { client: 'Acme', amount: 300 }));
    for (let i = 0; i < 4; i++) {
      const asked = model.received.length;
      const task = await submitTask(app, requester.token, { capabilities: ['trip-booking'], description: 'Three nights in Porto' });
      assert.equal(model.received.length - asked, 1, 'one extraction, for the chosen agent');
      const chosen = (await app.request({ method: 'GET', url: `/v1/agents/${task.assignedAgent?.id}`, token: owner.token })).json().data;
      const schema = JSON.parse(chosen.inputSchema) as InputSchema;
      assert.deepEqual(schemaAskedFor(model.received.at(-1) as ReceivedWebhook), Object.keys(schema));
      assert.deepEqual(Object.keys(task.input as object), Object.keys(schema));
    }
  });

  it('a required field the model leaves out refuses the submission, found beside it', async () => {
    const owner = await app.signup();
    const agent = await readyWebhookAgent(app, owner.token, agents.url, {
      capabilities: ['invoicing'],
      inputSchema: JSON.stringify({ client: { type: 'string', required: true }, amount: { type: 'number', required: true } }),
    });
    model.respond = () => chat('{"client": "Acme Ltd"}');
    const response = await app.request({ method: 'POST', url: '/v1/tasks', token: requester.token, body: { agentId: agent.id, description: 'Bill Acme Ltd' } });
    const error = expectError(response, 400, 'BAD_REQUEST');
    assert.deepEqual(
      error.details?.map((d) => d.path),
      ['/input/amount'],
    );
    assert.deepEqual(response.json().found, { client: 'Acme Ltd' });
  });
});
