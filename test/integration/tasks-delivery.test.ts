import assert from 'node:assert/strict';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { expectError, otherNode, startTestApp, type TestApp } from '../helpers/app.ts';
import { agentSignature, newAgentKey, registerAgent, registerProvisional, signedBy } from '../helpers/agents.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';
import { pollsHeld, readyWebhookAgent, submitTask, taskOf, waitForTask } from '../helpers/tasks.ts';
import { waitFor } from '../helpers/wait.ts';

const fastDelivery = {
  ALLOW_PRIVATE_ENDPOINTS: 'true',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_MAX_ATTEMPTS: '3',
  // Long enough that a loaded machine's loopback answer is never taken for a timeout (a quiet one
  // answers in milliseconds); the agents that must time out hang for good.
  WEBHOOK_TIMEOUT_MS: '3000',
  DELIVERY_POLL_INTERVAL_MS: '20',
  PUBLIC_URL: 'https://agentry.example.test',
};

describe('tasks: webhook delivery end to end', () => {
  let app: TestApp;
  let requester: { token: string };
  let owner: { token: string };
  const servers: AgentServer[] = [];
  const agentServer = async (...args: Parameters<typeof startAgentServer>) => {
    const server = await startAgentServer(...args);
    servers.push(server);
    return server;
  };
  before(async () => {
    app = await startTestApp(fastDelivery);
    requester = await app.signup();
    owner = await app.signup();
  });
  after(async () => {
    await app.close();
    await Promise.all(servers.map((server) => server.close()));
  });

  it('register, submit, receive the signed webhook, call back, read completed', async () => {
    const server = await agentServer();
    const agent = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['text-summarization'] });
    const submitted = await submitTask(app, requester.token, {
      title: 'Brief me',
      description: 'Summarise the quarterly report',
      input: { url: 'https://example.com/q3.pdf' },
      priority: 'high',
    });
    assert.equal(submitted.status, 'matched');
    assert.equal(submitted.assignedAgent?.id, agent.id);

    const [webhook] = await server.waitFor(1);
    // Verified by the standardwebhooks package, independently of our own signing code.
    const payload = new Webhook(agent.secret).verify(webhook!.body, webhook!.headers as Record<string, string>) as Record<string, unknown>;
    assert.equal(payload.taskId, submitted.id);
    assert.equal(payload.title, 'Brief me');
    assert.equal(payload.description, 'Summarise the quarterly report');
    assert.deepEqual(payload.input, { url: 'https://example.com/q3.pdf' });
    assert.equal(payload.callbackUrl, `https://agentry.example.test/v1/tasks/${submitted.id}/callback`);
    assert.deepEqual(payload.capabilities, ['summarize']);
    assert.equal(payload.priority, 'high');
    assert.match(String(payload.taskToken), /^tkt_/);
    for (const key of ['expiresAt', 'timestamp']) assert.equal(typeof payload[key], 'string');

    await waitForTask(app, requester.token, submitted.id, (task) => task.status === 'in_progress');
    const wrong = await app.request({ method: 'POST', url: `/v1/tasks/${submitted.id}/callback`, body: { taskToken: 'tkt_wrong', result: {} } });
    expectError(wrong, 401, 'UNAUTHORIZED');
    const callback = await app.request({
      method: 'POST',
      url: `/v1/tasks/${submitted.id}/callback`,
      body: { taskToken: payload.taskToken, result: { summary: 'Revenue up 4%' } },
    });
    assert.equal(callback.statusCode, 200, callback.body);
    assert.deepEqual(callback.json().data, { id: submitted.id, status: 'completed' });

    const done = await taskOf(app, requester.token, submitted.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.result, { summary: 'Revenue up 4%' });
    assert.equal(typeof done.completedAt, 'string');
    expectError(
      await app.request({ method: 'POST', url: `/v1/tasks/${submitted.id}/callback`, body: { taskToken: payload.taskToken, result: { again: true } } }),
      409,
      'CONFLICT',
    );
    assert.deepEqual((await taskOf(app, requester.token, submitted.id)).result, { summary: 'Revenue up 4%' });
  });

  it('a callback that comes while the webhook is still unanswered completes the task, recorded as delivered then', async () => {
    const server = await agentServer(() => 'hang');
    await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['early-answers'] });
    const submitted = await submitTask(app, requester.token, { capabilities: ['early-answers'] });
    const [webhook] = await server.waitFor(1);
    const callback = await app.request({
      method: 'POST',
      url: `/v1/tasks/${submitted.id}/callback`,
      body: { taskToken: webhook!.json.taskToken, result: { answer: 'before the 200' } },
    });
    assert.equal(callback.statusCode, 200, callback.body);
    const task = await taskOf(app, requester.token, submitted.id);
    assert.equal(task.status, 'completed');
    assert.deepEqual(task.result, { answer: 'before the 200' });
    assert.equal(typeof task.completedAt, 'string');
    assert.equal(task.deliveredAt, task.completedAt);
  });

  it('an agent that answers with an error is stored as failed with that error', async () => {
    const server = await agentServer();
    await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['proofreading'] });
    const submitted = await submitTask(app, requester.token, { capabilities: ['proofreading'] });
    const [webhook] = await server.waitFor(1);
    const response = await app.request({
      method: 'POST',
      url: `/v1/tasks/${submitted.id}/callback`,
      body: { taskToken: webhook!.json.taskToken, error: { code: 'too_long', message: 'Document over 200 pages' } },
    });
    assert.equal(response.statusCode, 200);
    const task = await taskOf(app, requester.token, submitted.id);
    assert.equal(task.status, 'failed');
    assert.deepEqual(task.error, { code: 'too_long', message: 'Document over 200 pages' });
  });

  it('a callback needs exactly one of result and error', async () => {
    const server = await agentServer();
    await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['translation'] });
    const submitted = await submitTask(app, requester.token, { capabilities: ['translation'] });
    const [webhook] = await server.waitFor(1);
    const token = webhook!.json.taskToken;
    expectError(await app.request({ method: 'POST', url: `/v1/tasks/${submitted.id}/callback`, body: { taskToken: token } }), 400, 'BAD_REQUEST');
    expectError(
      await app.request({ method: 'POST', url: `/v1/tasks/${submitted.id}/callback`, body: { taskToken: token, result: 1, error: 'x' } }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await app.request({ method: 'POST', url: `/v1/tasks/${submitted.id}/callback`, body: { taskToken: token, result: 1, extra: 1 } }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await app.request({ method: 'POST', url: '/v1/tasks/00000000-0000-4000-8000-000000000000/callback', body: { taskToken: token, result: 1 } }),
      401,
      'UNAUTHORIZED',
    );
  });

  for (const failure of ['500', 'timeout', 'redirect', 'connection refused'] as const) {
    it(`a failing agent (${failure}) is retried, then the task moves to the next candidate`, async () => {
      const capability = `failing-${failure.replace(' ', '-')}`;
      const bad =
        failure === 'connection refused'
          ? null
          : await agentServer(() =>
              failure === '500'
                ? { status: 500, body: 'oops' }
                : failure === 'timeout'
                  ? 'hang'
                  : { status: 302, headers: { location: 'http://127.0.0.1:1/' } },
            );
      let badUrl = bad?.url;
      if (!badUrl) {
        const closed = await startAgentServer();
        badUrl = closed.url;
        await closed.close();
      }
      const good = await agentServer();
      // Same factors: the earlier registration ranks first, so the failing agent is tried first.
      const first = await readyWebhookAgent(app, owner.token, badUrl, { capabilities: [capability] });
      const second = await readyWebhookAgent(app, owner.token, good.url, { capabilities: [capability] });
      const submitted = await submitTask(app, requester.token, { capabilities: [capability] });
      assert.equal(submitted.assignedAgent?.id, first.id);

      // A hanging agent holds each of its three attempts for the whole 3 s timeout: about 9 s before
      // the next candidate is tried on a quiet machine, so the wait allows five times that.
      const [webhook] = await good.waitFor(1, failure === 'timeout' ? 50_000 : 10_000);
      if (bad) assert.equal(bad.received.length, 3, 'three attempts at the failing agent');
      const task = await waitForTask(app, requester.token, submitted.id, (t) => t.assignedAgent?.id === second.id);
      assert.equal(webhook!.json.taskId, submitted.id);
      // The first agent's token no longer works; the new one does.
      if (bad) {
        const stale = bad.received[0]!.json.taskToken;
        assert.notEqual(stale, webhook!.json.taskToken);
        expectError(
          await app.request({ method: 'POST', url: `/v1/tasks/${submitted.id}/callback`, body: { taskToken: stale, result: { stale: true } } }),
          401,
          'UNAUTHORIZED',
        );
      }
      const callback = await app.request({
        method: 'POST',
        url: `/v1/tasks/${submitted.id}/callback`,
        body: { taskToken: webhook!.json.taskToken, result: { ok: true } },
      });
      assert.equal(callback.statusCode, 200, callback.body);
      assert.equal((await taskOf(app, requester.token, task.id)).status, 'completed');
    });
  }

  it('when every candidate fails the task fails, naming the last error', async () => {
    const bad = await agentServer(() => ({ status: 503 }));
    await readyWebhookAgent(app, owner.token, bad.url, { capabilities: ['only-failures'] });
    const submitted = await submitTask(app, requester.token, { capabilities: ['only-failures'] });
    const task = await waitForTask(app, requester.token, submitted.id, (t) => t.status === 'failed');
    assert.equal((task.error as { code: string }).code, 'delivery_failed');
    assert.match((task.error as { message: string }).message, /503/);
    assert.equal(bad.received.length, 3);
  });
});

describe('tasks: webhook jobs when every delivery slot is busy', () => {
  it('a task submitted while the only slot is taken waits in the outbox and is sent when the slot frees, without waiting for the timer', async () => {
    // One slot, and a timer that would not look again within the test: only the slot freeing can send
    // the later tasks. The attempt timeout is long so that a slow machine cannot turn a delivery into a retry.
    const app = await startTestApp({ ...fastDelivery, DELIVERY_CONCURRENCY: '1', DELIVERY_POLL_INTERVAL_MS: '60000', WEBHOOK_TIMEOUT_MS: '20000' });
    const server = await startAgentServer();
    try {
      const requester = await app.signup();
      const owner = await app.signup();
      await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['text-summarization'] });
      const submitted = await Promise.all([1, 2, 3].map((n) => submitTask(app, requester.token, { description: `Summarise report ${n}` })));
      const webhooks = await server.waitFor(3);
      assert.deepEqual(webhooks.map((webhook) => webhook.json.taskId).sort(), submitted.map((task) => task.id).sort());
      for (const task of submitted) await waitForTask(app, requester.token, task.id, (t) => t.status === 'in_progress');
      await app.deliveryWorker.settled();
      assert.equal(server.received.length, 3, 'each task sent once');
      const jobs = await app.database.db.selectFrom('task_deliveries').select(['state', 'attempts']).execute();
      assert.deepEqual(
        jobs,
        [1, 2, 3].map(() => ({ state: 'done', attempts: 1 })),
      );
    } finally {
      await app.close();
      await server.close();
    }
  });
});

describe('tasks: long-poll delivery end to end', () => {
  let app: TestApp;
  let requester: { token: string };
  before(async () => {
    app = await startTestApp(fastDelivery);
    requester = await app.signup();
  });
  after(() => app.close());

  it('a provisional polling agent takes its task with a signed poll, calls back, and the requester reads completed', async () => {
    const agent = await registerProvisional(app, undefined, { deliveryMode: 'poll', endpoint: undefined, capabilities: ['data-cleaning'] });
    // Polling with nothing queued answers at once and counts as a heartbeat.
    const empty = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, headers: signedBy(agent) });
    assert.equal(empty.statusCode, 200, empty.body);
    assert.deepEqual(empty.json().data, []);

    const submitted = await submitTask(app, requester.token, { capabilities: ['data-cleaning'], description: 'Clean the CSV' });
    assert.equal(submitted.assignedAgent?.id, agent.id);
    const polled = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll?limit=5`, headers: signedBy(agent) });
    const [payload] = polled.json().data;
    assert.equal(payload.taskId, submitted.id);
    assert.equal(payload.description, 'Clean the CSV');
    assert.equal((await taskOf(app, requester.token, submitted.id)).status, 'in_progress');
    assert.deepEqual(
      (await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, headers: signedBy(agent) })).json().data,
      [],
      'taken tasks are not handed out twice',
    );

    const callback = await app.request({
      method: 'POST',
      url: `/v1/tasks/${submitted.id}/callback`,
      body: { taskToken: payload.taskToken, result: { rows: 120 } },
    });
    assert.equal(callback.statusCode, 200);
    const done = await taskOf(app, requester.token, submitted.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.result, { rows: 120 });
  });

  it('a waiting poll wakes when a task is matched to the agent', async () => {
    const agent = await registerProvisional(app, undefined, { deliveryMode: 'poll', endpoint: undefined, capabilities: ['web-scraping'] });
    await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, headers: signedBy(agent) });
    const polls = pollsHeld(app);
    const idle = polls();
    const started = Date.now();
    const waiting = app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll?wait=20`, headers: signedBy(agent) });
    await waitFor('the poll to hold', polls, (held) => held === idle + 1);
    const submitted = await submitTask(app, requester.token, { capabilities: ['web-scraping'] });
    const response = await waiting;
    assert.equal(response.json().data[0].taskId, submitted.id);
    // Under the 5 s recheck: only the wake-up signal can answer this soon.
    assert.ok(Date.now() - started < 4000, 'answered by the wake-up, not by the periodic recheck');
  });

  it('a poll whose client left takes nothing: the task stays matched for the next poll', async () => {
    const agent = await registerProvisional(app, undefined, { deliveryMode: 'poll', endpoint: undefined, capabilities: ['form-filling'] });
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.server.address();
    assert.ok(address && typeof address === 'object');
    const polls = pollsHeld(app);
    const idle = polls();
    const leaving = new AbortController();
    const abandoned = fetch(`http://127.0.0.1:${address.port}/v1/agents/${agent.id}/tasks/poll?wait=20`, {
      signal: leaving.signal,
      headers: signedBy(agent),
    }).catch(() => 'aborted');
    await waitFor('the poll to hold', polls, (held) => held === idle + 1);
    leaving.abort();
    assert.equal(await abandoned, 'aborted');
    // Under the 5 s recheck (and the 20 s wait): only noticing its client leave ends the poll this soon.
    await waitFor('the abandoned poll to end', polls, (held) => held === idle, { timeoutMs: 4000 });
    const submitted = await submitTask(app, requester.token, { capabilities: ['form-filling'] });
    assert.equal((await taskOf(app, requester.token, submitted.id)).status, 'matched');
    const next = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, headers: signedBy(agent) });
    assert.equal(next.json().data[0].taskId, submitted.id);
  });

  it('a provisional agent polls only with a fresh signature by its registration key; the task stays queued for it', async () => {
    const agent = await registerProvisional(app, undefined, { endpoint: undefined, capabilities: ['invoice-parsing'] });
    const submitted = await submitTask(app, requester.token, { capabilities: ['invoice-parsing'], description: 'Read this invoice' });
    assert.equal(submitted.assignedAgent?.id, agent.id);
    const poll = (headers: Record<string, string> = {}) => app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, headers });
    const now = Math.floor(Date.now() / 1000);

    // Knowing the public id is not enough, nor is a credential of someone else.
    expectError(await poll(), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, token: requester.token }), 401, 'UNAUTHORIZED');
    expectError(await poll(signedBy({ id: agent.id, key: newAgentKey() })), 401, 'UNAUTHORIZED');
    expectError(await poll({ 'x-agent-signature': agentSignature(agent.id, agent.key, now - 400) }), 401, 'UNAUTHORIZED');
    expectError(await poll({ 'x-agent-signature': agentSignature(agent.id, agent.key, now + 400) }), 401, 'UNAUTHORIZED');
    // Signed over another agent's id: a header cannot be carried from one agent to another.
    expectError(await poll({ 'x-agent-signature': agentSignature('another-agent', agent.key, now) }), 401, 'UNAUTHORIZED');
    expectError(await poll({ 'x-agent-signature': 'garbage' }), 401, 'UNAUTHORIZED');
    assert.equal((await taskOf(app, requester.token, submitted.id)).status, 'matched', 'a refused poll takes nothing');

    const polled = await poll(signedBy(agent));
    assert.equal(polled.statusCode, 200, polled.body);
    assert.equal(polled.json().data[0].taskId, submitted.id);
    assert.equal((await taskOf(app, requester.token, submitted.id)).status, 'in_progress');
    const view = (await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` })).json().data;
    assert.equal(view.availability, 'available', 'a signed poll is a heartbeat');
    assert.equal(view.keyVerified, true, 'a signed poll proves the registration key');
  });

  it('claimed agents poll with their owner credential only; webhook agents cannot poll; unknown agents are 404', async () => {
    const owner = await app.signup();
    const stranger = await app.signup();
    const agent = await registerAgent(app, owner.token, { deliveryMode: 'poll', endpoint: undefined, capabilities: ['ocr'] });
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll` }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, token: 'ags_wrong' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, token: stranger.token }), 403, 'FORBIDDEN');
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, token: owner.token })).statusCode, 200);
    const webhookAgent = await registerAgent(app, owner.token, { capabilities: ['ocr'] });
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${webhookAgent.id}/tasks/poll`, token: owner.token }), 409, 'CONFLICT');
    expectError(await app.request({ method: 'GET', url: '/v1/agents/nope/tasks/poll' }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll?wait=31`, token: owner.token }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll?limit=0`, token: owner.token }), 400, 'BAD_REQUEST');
  });
});

describe('tasks: ALLOW_UNSIGNED_PROVISIONAL_POLL (unsafe, for old clients)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ ...fastDelivery, ALLOW_UNSIGNED_PROVISIONAL_POLL: 'true' });
  });
  after(() => app.close());

  it('lets a provisional agent poll with its id alone, still refuses a bad signature, and leaves claimed agents as they were', async () => {
    const requester = await app.signup();
    const agent = await registerProvisional(app, undefined, { endpoint: undefined, capabilities: ['legacy-thing'] });
    const submitted = await submitTask(app, requester.token, { capabilities: ['legacy-thing'] });
    expectError(
      await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, headers: signedBy({ id: agent.id, key: newAgentKey() }) }),
      401,
      'UNAUTHORIZED',
    );
    const polled = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll` });
    assert.equal(polled.statusCode, 200, polled.body);
    assert.equal(polled.json().data[0].taskId, submitted.id);
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` })).json().data.keyVerified, false, 'an unsigned poll proves nothing');

    const owner = await app.signup();
    const owned = await registerAgent(app, owner.token, { endpoint: undefined, capabilities: ['legacy-thing'] });
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${owned.id}/tasks/poll` }), 401, 'UNAUTHORIZED');
  });
});

describe('tasks: a poll held on one node wakes for a task submitted on another', () => {
  let a: TestApp;
  /** On PostgreSQL a second node on the same schema (the wake-up travels by LISTEN/NOTIFY); SQLite has one node. */
  let b: TestApp;
  before(async () => {
    a = await startTestApp(fastDelivery);
    b = await otherNode(a);
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  it('the poll on node B answers with the task submitted on node A before its wait runs out', async () => {
    const requester = await a.signup();
    const agent = await registerProvisional(a, undefined, { deliveryMode: 'poll', endpoint: undefined, capabilities: ['geocoding'] });
    await b.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, headers: signedBy(agent) });
    const polls = pollsHeld(b);
    const idle = polls();
    const started = Date.now();
    const waiting = b.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll?wait=25`, headers: signedBy(agent) });
    await waitFor('the poll to hold on node B', polls, (held) => held === idle + 1);
    // B's LISTEN for the poll is queued on its signal connection; a publish queued behind it returns once it has run.
    await b.signals.publish('test.fence', '');
    const submitted = await submitTask(a, requester.token, { capabilities: ['geocoding'] });
    const response = await waiting;
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().data[0]?.taskId, submitted.id);
    // Well inside the 5 s backstop re-check: only the wake-up signal explains an answer this early.
    assert.ok(Date.now() - started < 4000, 'woken by the signal');
  });
});

describe('tasks: delivery errors shown to people', () => {
  /** A loopback port nothing listens on. */
  const closedPort = async () => {
    const server = createNetServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return port;
  };

  for (const { name, allowPrivate, shown } of [
    {
      name: 'a host that resolves to an internal address',
      allowPrivate: 'false',
      shown: "No agent accepted the task; the last one failed with: the agent's endpoint could not be reached at a public address",
    },
    {
      name: 'a refused connection to a resolved address',
      allowPrivate: 'true',
      shown: "No agent accepted the task; the last one failed with: could not connect to the agent's endpoint",
    },
  ]) {
    it(`say what went wrong without naming where the endpoint resolved: ${name}`, async () => {
      // A refusal comes at once; the long timeout keeps a loaded machine's slow lookup from reading as a timeout.
      const app = await startTestApp({ ...fastDelivery, ALLOW_PRIVATE_ENDPOINTS: allowPrivate, WEBHOOK_MAX_ATTEMPTS: '1', WEBHOOK_TIMEOUT_MS: '30000' });
      try {
        const requester = await app.signup();
        const owner = await app.signup();
        await readyWebhookAgent(app, owner.token, `http://localhost:${await closedPort()}/hook`, { capabilities: ['internal-only'] });
        const submitted = await submitTask(app, requester.token, { capabilities: ['internal-only'] });
        const task = await waitForTask(app, requester.token, submitted.id, (t) => t.status === 'failed');
        assert.deepEqual(task.error, { code: 'delivery_failed', message: shown });
        const stored = await app.database.db.selectFrom('task_deliveries').select('last_error').where('task_id', '=', submitted.id).execute();
        for (const { last_error } of stored) assert.doesNotMatch(String(last_error), /127\.0\.0\.1|::1|resolves|ECONNREFUSED/);
      } finally {
        await app.close();
      }
    });
  }
});
