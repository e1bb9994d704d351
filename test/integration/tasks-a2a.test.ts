import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { startA2aAgent, type A2aAgent, type A2aBehaviour } from '../helpers/a2a-agent.ts';
import { registerAgent } from '../helpers/agents.ts';
import { deadUrl } from '../helpers/listening.ts';
import { heartbeat, submitTask, taskOf, waitForTask } from '../helpers/tasks.ts';
import { waitFor } from '../helpers/wait.ts';

const fastDelivery = {
  ALLOW_PRIVATE_ENDPOINTS: 'true',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_MAX_ATTEMPTS: '3',
  WEBHOOK_TIMEOUT_MS: '2000',
  DELIVERY_POLL_INTERVAL_MS: '20',
};

describe('tasks: A2A delivery to an @a2a-js/sdk agent', () => {
  let app: TestApp;
  let requester: { token: string };
  let owner: { token: string };
  const agents: A2aAgent[] = [];
  const a2aAgent = async (behaviour: A2aBehaviour, bearer?: string) => {
    const agent = await startA2aAgent({ behaviour, ...(bearer ? { bearer } : {}) });
    agents.push(agent);
    return agent;
  };
  /** An owned agent with deliveryMode a2a at `endpoint`, heard from, so tasks may be routed to it. */
  const readyA2aAgent = async (endpoint: string, fields: Record<string, unknown> = {}) => {
    const agent = await registerAgent(app, owner.token, { endpoint, protocols: ['a2a'], deliveryMode: 'a2a', capabilities: ['summarize'], ...fields });
    await heartbeat(app, owner.token, agent.id);
    return agent;
  };

  before(async () => {
    app = await startTestApp(fastDelivery);
    requester = await app.signup();
    owner = await app.signup();
  });
  after(async () => {
    await app.close();
    await Promise.all(agents.map((agent) => agent.close()));
  });

  it('a direct Message reply completes the task with its parts; the message carries the task', async () => {
    const remote = await a2aAgent('reply');
    const agent = await readyA2aAgent(remote.url);
    const submitted = await submitTask(app, requester.token, {
      agentId: agent.id,
      title: 'Brief me',
      description: 'Summarise the quarterly report',
      input: { url: 'https://example.com/q3.pdf' },
    });
    const done = await waitForTask(app, requester.token, submitted.id, (task) => task.status === 'completed');
    assert.deepEqual(done.result, {
      messageId: (done.result as { messageId: string }).messageId,
      parts: [
        { text: 'echo: Brief me\n\nSummarise the quarterly report', mediaType: 'text/plain' },
        { data: { input: { url: 'https://example.com/q3.pdf' } }, mediaType: 'application/json' },
      ],
    });
    const [call] = remote.calls;
    assert.equal(call?.method, 'SendMessage');
    assert.equal(call?.headers['a2a-version'], '1.0');
    assert.equal(call?.headers.authorization, undefined);
    const message = (call?.params as { message: { contextId: string; metadata: { agentryTaskId: string }; role: string } }).message;
    assert.equal(message.contextId, submitted.id);
    assert.equal(message.metadata.agentryTaskId, submitted.id);
    assert.equal(message.role, 'ROLE_USER');
  });

  it('a returned Task is followed until it completes; its artifacts are the result', async () => {
    const remote = await a2aAgent('long');
    const agent = await readyA2aAgent(remote.url);
    const submitted = await submitTask(app, requester.token, { agentId: agent.id, description: 'Summarise the annual report' });
    await waitForTask(app, requester.token, submitted.id, (task) => task.status === 'in_progress');
    await waitFor(
      'a status poll at the agent',
      () => remote.calls.filter((call) => call.method === 'GetTask').length,
      (polls) => polls >= 1,
    );
    remote.release();
    const done = await waitForTask(app, requester.token, submitted.id, (task) => task.status === 'completed');
    const result = done.result as { a2aTaskId: string; artifacts: unknown[] };
    assert.equal(typeof result.a2aTaskId, 'string');
    assert.deepEqual(result.artifacts, [
      {
        artifactId: 'summary',
        name: 'summary',
        parts: [
          { text: 'Revenue up 4%', mediaType: 'text/plain' },
          { data: { growth: 0.04 }, mediaType: 'application/json' },
        ],
      },
    ]);
    assert.equal(remote.calls.filter((call) => call.method === 'SendMessage').length, 1);
  });

  it('a task its requester cancels, over /v1 or the A2A front door, is cancelled at the agent; an agent out of reach does not stop the cancel', async () => {
    const remote = await a2aAgent('long');
    const agent = await readyA2aAgent(remote.url);
    const runningTask = async () => {
      const submitted = await submitTask(app, requester.token, { agentId: agent.id, description: 'Summarise the annual report' });
      await waitForTask(app, requester.token, submitted.id, (task) => task.status === 'in_progress');
      return submitted.id;
    };
    const cancelAtAgent = (taskId: string) =>
      waitFor('CancelTask at the agent', () =>
        remote.calls.find(
          (call) => call.method === 'CancelTask' && (call.params as { metadata?: { agentryTaskId?: string } }).metadata?.agentryTaskId === taskId,
        ),
      );

    const overRest = await runningTask();
    const cancelled = await app.request({ method: 'POST', url: `/v1/tasks/${overRest}/cancel`, token: requester.token });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.ok(await cancelAtAgent(overRest));

    const overA2a = await runningTask();
    const answer = await app.request({
      method: 'POST',
      url: '/a2a',
      token: requester.token,
      headers: { 'a2a-version': '1.0' },
      body: { jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: overA2a } },
    });
    assert.equal(answer.json().result?.status?.state, 'TASK_STATE_CANCELED', answer.body);
    const atAgent = await cancelAtAgent(overA2a);
    assert.equal(atAgent?.headers['a2a-version'], '1.0');

    // The agent moves to an address where nothing listens while it works on a task.
    const unreachable = await runningTask();
    const moved = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { endpoint: `${await deadUrl()}/a2a` } });
    assert.equal(moved.statusCode, 200, moved.body);
    const stillCancelled = await app.request({ method: 'POST', url: `/v1/tasks/${unreachable}/cancel`, token: requester.token });
    assert.equal(stillCancelled.statusCode, 200, stillCancelled.body);
    assert.equal((await taskOf(app, requester.token, unreachable)).status, 'cancelled');
  });

  it('a Task that fails at the agent fails ours with its message', async () => {
    const remote = await a2aAgent('fail');
    const agent = await readyA2aAgent(remote.url);
    const submitted = await submitTask(app, requester.token, { agentId: agent.id });
    await waitForTask(app, requester.token, submitted.id, (task) => task.status === 'in_progress');
    remote.release();
    const failed = await waitForTask(app, requester.token, submitted.id, (task) => task.status === 'failed');
    assert.deepEqual(failed.error, { code: 'agent_failed', message: 'The agent reported the task failed: the disk is full' });
  });

  it('sends the stored bearer credential; a wrong or missing one fails the delivery', async () => {
    const remote = await a2aAgent('reply', 's3cret-token');
    const right = await readyA2aAgent(remote.url, { authType: 'bearer', authCredential: 's3cret-token' });
    assert.equal(right.hasAuthCredential, true);
    assert.equal(JSON.stringify(right).includes('s3cret-token'), false);
    const ok = await submitTask(app, requester.token, { agentId: right.id });
    assert.equal((await waitForTask(app, requester.token, ok.id, (task) => task.status !== 'matched' && task.status !== 'in_progress')).status, 'completed');
    assert.equal(remote.calls.at(-1)?.headers.authorization, 'Bearer s3cret-token');

    const wrong = await readyA2aAgent(remote.url, { authType: 'bearer', authCredential: 'not-it' });
    const missing = await readyA2aAgent(remote.url, { authType: 'bearer' });
    for (const agent of [wrong, missing]) {
      const submitted = await submitTask(app, requester.token, { agentId: agent.id });
      const failed = await waitForTask(app, requester.token, submitted.id, (task) => task.status === 'failed');
      assert.equal((failed.error as { code: string }).code, 'delivery_failed');
      assert.match((failed.error as { message: string }).message, /A2A endpoint answered HTTP 401/);
    }
  });

  it('an unreachable agent is retried, then the task fails over to nobody', async () => {
    const agent = await readyA2aAgent(`${await deadUrl()}/a2a`);
    const submitted = await submitTask(app, requester.token, { agentId: agent.id });
    const failed = await waitForTask(app, requester.token, submitted.id, (task) => task.status === 'failed');
    assert.equal((failed.error as { code: string }).code, 'delivery_failed');
    assert.match((failed.error as { message: string }).message, /could not connect to the agent's A2A endpoint/);
  });

  it('with an unreachable first candidate the task goes to the next one', async () => {
    const remote = await a2aAgent('reply');
    const capability = `failover-${process.pid}`;
    // Heard from, the dead agent ranks above the live one, which has sent no heartbeat yet.
    const dead = await readyA2aAgent(`${await deadUrl()}/a2a`, { capabilities: [capability] });
    const alive = await registerAgent(app, owner.token, { endpoint: remote.url, protocols: ['a2a'], deliveryMode: 'a2a', capabilities: [capability] });
    const submitted = await submitTask(app, requester.token, { capabilities: [capability], description: 'Anything at all' });
    assert.equal(submitted.assignedAgent?.id, dead.id);
    const done = await waitForTask(app, requester.token, submitted.id, (task) => task.status === 'completed' || task.status === 'failed');
    assert.equal(done.status, 'completed');
    assert.equal(done.assignedAgent?.id, alive.id);
  });

  it('stores the credential sealed, never returns it, and checks who may set it', async () => {
    const agent = await registerAgent(app, owner.token, {
      endpoint: 'https://agent.example.test/a2a',
      deliveryMode: 'a2a',
      authType: 'api_key',
      authCredential: 'key-123',
      visibility: 'private',
    });
    const row = await app.database.db.selectFrom('agents').select(['auth_credential']).where('id', '=', agent.id).executeTakeFirstOrThrow();
    assert.ok(row.auth_credential && !row.auth_credential.includes('key-123'));
    const shown = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}`, token: owner.token });
    assert.equal(shown.json().data.hasAuthCredential, true);
    assert.equal(shown.body.includes('key-123'), false);

    expectError(
      await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: requester.token, body: { authCredential: 'mine now' } }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { authType: 'none', authCredential: 'x' } }),
      400,
      'BAD_REQUEST',
    );
    expectError(await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { authCredential: '' } }), 400, 'BAD_REQUEST');
    // It goes into a header of every call: a line break (or another control character) is refused, at update and at registration.
    for (const credential of ['key-123\r\nX-Injected: yes', 'key\n123', 'key\r', 'key\u0000', 'key\u2028']) {
      const refused = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { authCredential: credential } });
      expectError(refused, 400, 'BAD_REQUEST');
      assert.equal(refused.json().details[0].path, '/body/authCredential');
    }
    expectError(
      await app.request({
        method: 'POST',
        url: '/v1/agents',
        token: owner.token,
        body: {
          name: 'Header Injection',
          description: 'x',
          protocols: ['a2a'],
          categories: ['productivity'],
          deliveryMode: 'a2a',
          endpoint: 'https://agent.example.test/a2a',
          authType: 'bearer',
          authCredential: 'token\nX-Injected: yes',
        },
      }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await app.request({
        method: 'POST',
        url: '/v1/agents',
        token: owner.token,
        body: { name: 'No Endpoint A2A', description: 'x', protocols: ['a2a'], categories: ['productivity'], deliveryMode: 'a2a' },
      }),
      400,
      'BAD_REQUEST',
    );
    const unchanged = await app.database.db.selectFrom('agents').select(['auth_credential']).where('id', '=', agent.id).executeTakeFirstOrThrow();
    assert.equal(unchanged.auth_credential, row.auth_credential);

    const cleared = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { authCredential: null } });
    assert.equal(cleared.statusCode, 200, cleared.body);
    assert.equal(cleared.json().data.hasAuthCredential, false);
  });

  it('an A2A agent cannot also poll for its tasks', async () => {
    const agent = await registerAgent(app, owner.token, { endpoint: 'https://agent.example.test/a2a', deliveryMode: 'a2a' });
    const polled = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll?wait=0`, token: owner.token });
    expectError(polled, 409, 'CONFLICT');
    assert.match(polled.json().message, /by A2A message/);
  });

  it('the a2a protocol tag alone keeps an agent on webhook delivery', async () => {
    const agent = await registerAgent(app, owner.token, { endpoint: 'https://agent.example.test/a2a', protocols: ['a2a'] });
    assert.equal(agent.deliveryMode, 'webhook');
    assert.equal((await taskOf(app, owner.token, (await submitTask(app, owner.token, { agentId: agent.id })).id)).status, 'matched');
  });
});

describe('tasks: an A2A task still running when ours expires', () => {
  it('is cancelled at the agent', async () => {
    const clock = new TestClock(Date.now());
    const app = await startTestApp(fastDelivery, { clock });
    const remote = await startA2aAgent({ behaviour: 'long' });
    try {
      const requester = await app.signup();
      const owner = await app.signup();
      const agent = await registerAgent(app, owner.token, { endpoint: remote.url, deliveryMode: 'a2a', capabilities: ['summarize'] });
      await heartbeat(app, owner.token, agent.id);
      const submitted = await submitTask(app, requester.token, { agentId: agent.id, expiresInMinutes: 1 });
      await waitForTask(app, requester.token, submitted.id, (task) => task.status === 'in_progress');
      clock.advance(61_000);
      await app.deliveryWorker.settled();
      assert.equal((await taskOf(app, requester.token, submitted.id)).status, 'expired');
      const cancel = await waitFor('CancelTask at the agent', () => remote.calls.find((call) => call.method === 'CancelTask'));
      assert.ok(cancel);
      assert.match((cancel.params as { id: string }).id, /.+/);
      assert.equal((cancel.params as { metadata: { agentryTaskId: string } }).metadata.agentryTaskId, submitted.id);
    } finally {
      await app.close();
      await remote.close();
    }
  });
});
