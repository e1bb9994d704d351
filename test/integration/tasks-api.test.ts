import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { registerAgent, registerProvisional, signedBy } from '../helpers/agents.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';
import { heartbeat, readyWebhookAgent, submitTask, taskOf, waitForTask } from '../helpers/tasks.ts';
import { waitFor } from '../helpers/wait.ts';
import { createTasksStore } from '../../src/modules/tasks/store.ts';
import { assignedTask, callback, pollingAgent } from '../helpers/payments.ts';
import { deepJsonText } from '../helpers/route-inputs.ts';

const env = { ALLOW_PRIVATE_ENDPOINTS: 'true', DELIVERY_POLL_INTERVAL_MS: '20', WEBHOOK_RETRY_BASE_MS: '20' };

describe('tasks: submission, records and access', () => {
  let app: TestApp;
  let server: AgentServer;
  let requester: { token: string; accountId: string };
  let owner: { token: string };
  let stranger: { token: string };
  let agent: { id: string; secret: string };
  before(async () => {
    app = await startTestApp(env);
    server = await startAgentServer();
    requester = await app.signup();
    owner = await app.signup();
    stranger = await app.signup();
    agent = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['Text Summarization'] });
  });
  after(async () => {
    await app.close();
    await server.close();
  });

  it('answers the DECISIONS record, with the catalogue alias matched to the agent tag', async () => {
    const response = await app.request({
      method: 'POST',
      url: '/v1/tasks',
      token: requester.token,
      body: { title: 'TL;DR', description: 'Summarise it', capabilities: ['tldr'], metadata: { ticket: 42 }, expiresInMinutes: 5 },
    });
    assert.equal(response.statusCode, 201, response.body);
    const task = response.json().data;
    assert.deepEqual(
      Object.keys(task).sort(),
      [
        'agentDeleted',
        'assignedAgent',
        'capabilities',
        'completedAt',
        'createdAt',
        'currency',
        'deliveredAt',
        'description',
        'error',
        'expiresAt',
        'id',
        'input',
        'maxPriceCents',
        'metadata',
        'priceCents',
        'priority',
        'rating',
        'requestedAgent',
        'result',
        'status',
        'taskClass',
        'title',
        'updatedAt',
      ].sort(),
    );
    assert.equal(task.status, 'matched');
    assert.equal(task.assignedAgent.id, agent.id);
    assert.equal(task.priority, 'normal');
    assert.deepEqual(task.metadata, { ticket: 42 });
    assert.equal(Date.parse(task.expiresAt) - Date.parse(task.createdAt), 5 * 60_000);
  });

  it('no fitting agent: unmatched, with a reason', async () => {
    const task = await submitTask(app, requester.token, { capabilities: ['underwater-basket-weaving'] });
    assert.equal(task.status, 'unmatched');
    assert.equal(task.assignedAgent, null);
    assert.equal((task.error as { code: string }).code, 'no_agent');
    assert.equal((task.error as { message: string }).message, 'No agent you can see has the capability "underwater-basket-weaving"');
  });

  it('refuses bad input', async () => {
    const post = (body: unknown, token = requester.token) => app.request({ method: 'POST', url: '/v1/tasks', token, body });
    // A description alone is a task routed by discovery (tasks-by-description.test.ts); without one it is nothing.
    expectError(await post({ capabilities: ['summarize'] }), 400, 'BAD_REQUEST');
    expectError(await post({ description: '', capabilities: ['summarize'] }), 400, 'BAD_REQUEST');
    expectError(await post({ description: 'x', capabilities: 'summarize' }), 400, 'BAD_REQUEST');
    expectError(await post({ description: 'x', capabilities: ['summarize'], priority: 'asap' }), 400, 'BAD_REQUEST');
    expectError(await post({ description: 'x', capabilities: ['summarize'], expiresInMinutes: 0 }), 400, 'BAD_REQUEST');
    expectError(await post({ description: 'x', capabilities: ['summarize'], input: 'text' }), 400, 'BAD_REQUEST');
    expectError(await post({ description: 'x', capabilities: ['summarize'], surprise: true }), 400, 'BAD_REQUEST');
    expectError(await post({ description: 'x'.repeat(10_001), capabilities: ['summarize'] }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'POST', url: '/v1/tasks', token: requester.token, rawBody: '{"description":' }), 400, 'BAD_REQUEST');
    expectError(await post({ description: 'x', agentId: 'no-such-agent' }), 404, 'NOT_FOUND');
    expectError(await post({ description: 'x', capabilities: ['summarize'] }, ''), 401, 'UNAUTHORIZED');
    expectError(await post({ description: 'x', capabilities: ['summarize'] }, 'ags_not-a-session'), 401, 'UNAUTHORIZED');
  });

  it('refuses input, metadata and a callback result nesting 5,000 levels with 400; the agent can still answer', async () => {
    const deep = deepJsonText(5000, 'object');
    for (const field of ['input', 'metadata']) {
      const rawBody = `{"description":"Summarise this report","capabilities":["summarize"],"${field}":${deep}}`;
      const body = expectError(await app.request({ method: 'POST', url: '/v1/tasks', token: requester.token, rawBody }), 400, 'BAD_REQUEST');
      assert.match(body.message, /deeper than 64/);
    }
    // A capability no other test asks for: routing in this file's later tests must not pick this agent.
    const poller = await pollingAgent(app, owner.token, { capabilities: ['nesting-check'] });
    const task = await assignedTask(app, requester.token, owner.token, poller.id);
    const refused = await app.request({ method: 'POST', url: `/v1/tasks/${task.id}/callback`, rawBody: `{"taskToken":"${task.token}","result":${deep}}` });
    expectError(refused, 400, 'BAD_REQUEST');
    assert.equal((await taskOf(app, requester.token, task.id)).status, 'in_progress');
    const done = await callback(app, task.id, { taskToken: task.token, result: { summary: 'short' } });
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual((await taskOf(app, requester.token, task.id)).result, { summary: 'short' });
  });

  it('a private agent cannot be targeted or routed to by others (404), but by its owner', async () => {
    const hidden = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['secret-sauce'], visibility: 'private' });
    expectError(
      await app.request({ method: 'POST', url: '/v1/tasks', token: requester.token, body: { description: 'x', agentId: hidden.id } }),
      404,
      'NOT_FOUND',
    );
    assert.equal((await submitTask(app, requester.token, { capabilities: ['secret-sauce'] })).status, 'unmatched');
    const plan = (
      await app.request({ method: 'POST', url: '/v1/tasks/route', token: requester.token, body: { description: 'x', capabilities: ['secret-sauce'] } })
    ).json().data;
    assert.deepEqual(plan.candidates, []);
    assert.deepEqual(plan.excluded, [], 'hidden agents are not even listed as excluded');
    assert.equal((await submitTask(app, owner.token, { agentId: hidden.id })).status, 'matched');
  });

  it('the requester and the owner of the assigned agent see a task; others get 404', async () => {
    const task = await submitTask(app, requester.token, {});
    assert.equal((await taskOf(app, requester.token, task.id)).id, task.id);
    assert.equal((await taskOf(app, owner.token, task.id)).id, task.id);
    expectError(await app.request({ method: 'GET', url: `/v1/tasks/${task.id}`, token: stranger.token }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: `/v1/tasks/${task.id}` }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/tasks/unknown', token: requester.token }), 404, 'NOT_FOUND');
  });

  it('lists mine, and with role=agent the tasks assigned to my agents, paginated', async () => {
    const fresh = await app.signup();
    const a = await submitTask(app, fresh.token, { title: 'one' });
    const b = await submitTask(app, fresh.token, { title: 'two' });
    const mine = (await app.request({ method: 'GET', url: '/v1/tasks?limit=1', token: fresh.token })).json();
    assert.deepEqual(mine.pagination, { limit: 1, offset: 0, total: 2, hasMore: true });
    assert.equal(mine.data[0].id, b.id);
    const second = (await app.request({ method: 'GET', url: '/v1/tasks?limit=1&offset=1', token: fresh.token })).json();
    assert.equal(second.data[0].id, a.id);
    const assigned = (await app.request({ method: 'GET', url: '/v1/tasks?role=agent&limit=100', token: owner.token })).json();
    assert.ok(assigned.data.some((task: { id: string }) => task.id === a.id));
    assert.equal((await app.request({ method: 'GET', url: '/v1/tasks?role=agent', token: fresh.token })).json().pagination.total, 0);
    expectError(await app.request({ method: 'GET', url: '/v1/tasks?role=boss', token: fresh.token }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/tasks?limit=101', token: fresh.token }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/tasks' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/tasks', token: 'agk_not-a-key' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/tasks?status=done', token: fresh.token }), 400, 'BAD_REQUEST');
    const matched = (await app.request({ method: 'GET', url: '/v1/tasks?status=unmatched', token: fresh.token })).json();
    assert.equal(matched.pagination.total, 0);
  });

  it('Idempotency-Key: a replay returns the first answer; the same key with another body is 422', async () => {
    const headers = { 'idempotency-key': 'order-7' };
    const first = await submitTask(app, requester.token, { title: 'idem' }, headers);
    const replay = await app.request({
      method: 'POST',
      url: '/v1/tasks',
      token: requester.token,
      body: { description: 'Summarise this report', capabilities: ['summarize'], title: 'idem' },
      headers,
    });
    assert.equal(replay.statusCode, 201);
    assert.deepEqual(replay.json().data, first);
    const other = await app.request({
      method: 'POST',
      url: '/v1/tasks',
      token: requester.token,
      body: { description: 'Something else', capabilities: ['summarize'] },
      headers,
    });
    expectError(other, 422, 'UNPROCESSABLE');
    // Keys are per requester.
    const elsewhere = await submitTask(app, stranger.token, { title: 'idem' }, headers);
    assert.notEqual(elsewhere.id, first.id);
    const all = (await app.request({ method: 'GET', url: '/v1/tasks?limit=100', token: requester.token })).json().data;
    assert.equal(all.filter((task: { title: string }) => task.title === 'idem').length, 1);
  });

  it('concurrent submissions with one Idempotency-Key create one task', async () => {
    const headers = { 'idempotency-key': 'burst-1' };
    const body = { description: 'Summarise', capabilities: ['summarize'], title: 'burst' };
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => app.request({ method: 'POST', url: '/v1/tasks', token: requester.token, body, headers })),
    );
    assert.deepEqual(new Set(responses.map((r) => r.statusCode)), new Set([201]));
    assert.equal(new Set(responses.map((r) => r.json().data.id)).size, 1);
  });

  it('cancel: requester only (the agent owner, who sees the task, 403; others 404), open tasks only', async () => {
    const task = await submitTask(app, requester.token, {});
    expectError(await app.request({ method: 'POST', url: `/v1/tasks/${task.id}/cancel`, token: owner.token }), 403, 'FORBIDDEN');
    expectError(await app.request({ method: 'POST', url: `/v1/tasks/${task.id}/cancel`, token: stranger.token }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'POST', url: `/v1/tasks/${task.id}/cancel` }), 401, 'UNAUTHORIZED');
    assert.notEqual((await taskOf(app, requester.token, task.id)).status, 'cancelled', 'the refused cancels left the task open');
    const cancelled = await app.request({ method: 'POST', url: `/v1/tasks/${task.id}/cancel`, token: requester.token });
    assert.equal(cancelled.statusCode, 200);
    assert.equal(cancelled.json().data.status, 'cancelled');
    expectError(await app.request({ method: 'POST', url: `/v1/tasks/${task.id}/cancel`, token: requester.token }), 409, 'CONFLICT');
    expectError(await app.request({ method: 'POST', url: '/v1/tasks/unknown/cancel', token: requester.token }), 404, 'NOT_FOUND');
  });

  it('rating: once, by the requester, after completion, 1..5', async () => {
    const task = await submitTask(app, requester.token, {});
    const rate = (body: unknown, token: string | null = requester.token) => app.request({ method: 'POST', url: `/v1/tasks/${task.id}/rating`, token, body });
    expectError(await rate({ score: 5 }), 409, 'CONFLICT');
    const webhook = await waitForWebhook(server, task.id);
    await app.request({ method: 'POST', url: `/v1/tasks/${task.id}/callback`, body: { taskToken: webhook.json.taskToken, result: 'done' } });
    expectError(await rate({ score: 6 }), 400, 'BAD_REQUEST');
    expectError(await rate({ score: 'good' }), 400, 'BAD_REQUEST');
    expectError(await rate({ score: 4 }, owner.token), 403, 'FORBIDDEN');
    expectError(await rate({ score: 4 }, stranger.token), 404, 'NOT_FOUND');
    expectError(await rate({ score: 4 }, null), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'POST', url: '/v1/tasks/unknown/rating', token: requester.token, body: { score: 4 } }), 404, 'NOT_FOUND');
    assert.equal((await taskOf(app, requester.token, task.id)).rating, null, 'the refused ratings left the task unrated');
    const rated = await rate({ score: 4, comment: 'quick' });
    assert.equal(rated.statusCode, 200, rated.body);
    assert.deepEqual(rated.json().data.rating, { score: 4, comment: 'quick' });
    expectError(await rate({ score: 5 }), 409, 'CONFLICT');
  });

  it('rating: of concurrent ratings exactly one is taken, and it is the one stored', async () => {
    const task = await submitTask(app, requester.token, {});
    const webhook = await waitForWebhook(server, task.id);
    const done = await app.request({ method: 'POST', url: `/v1/tasks/${task.id}/callback`, body: { taskToken: webhook.json.taskToken, result: 'done' } });
    assert.equal(done.statusCode, 200, done.body);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        app.request({ method: 'POST', url: `/v1/tasks/${task.id}/rating`, token: requester.token, body: { score: (i % 5) + 1, comment: `rater ${i}` } }),
      ),
    );
    const taken = responses.filter((response) => response.statusCode === 200);
    assert.equal(taken.length, 1, `statuses: ${responses.map((response) => response.statusCode).join(', ')}`);
    for (const response of responses) if (response.statusCode !== 200) expectError(response, 409, 'CONFLICT');
    assert.deepEqual((await taskOf(app, requester.token, task.id)).rating, taken[0]!.json().data.rating);
  });

  it('rating: a rating that read the task before another one landed does not overwrite it', async () => {
    // The window between the service's read and its update, made certain on both engines: the task
    // is rated, then a second update arrives as if it had read the task unrated a moment before.
    const task = await submitTask(app, requester.token, {});
    const webhook = await waitForWebhook(server, task.id);
    await app.request({ method: 'POST', url: `/v1/tasks/${task.id}/callback`, body: { taskToken: webhook.json.taskToken, result: 'done' } });
    const first = await app.request({ method: 'POST', url: `/v1/tasks/${task.id}/rating`, token: requester.token, body: { score: 2, comment: 'first' } });
    assert.equal(first.statusCode, 200, first.body);
    const store = createTasksStore(app.database.db, app.database.dialect);
    assert.equal(await store.rateOnce(task.id, 5, 'late', new Date().toISOString()), undefined);
    assert.deepEqual((await taskOf(app, requester.token, task.id)).rating, { score: 2, comment: 'first' });
  });

  it('an agent-scoped API key sees only the tasks of its own agent', async () => {
    const mine = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['scoped-one'] });
    const sibling = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['scoped-two'] });
    const created = await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'scoped', agentId: mine.id } });
    assert.equal(created.statusCode, 201, created.body);
    const key = created.json().data.key as string;
    const own = await submitTask(app, requester.token, { capabilities: ['scoped-one'] });
    const other = await submitTask(app, requester.token, { capabilities: ['scoped-two'] });
    assert.equal(own.assignedAgent?.id, mine.id);
    assert.equal(other.assignedAgent?.id, sibling.id);
    // The owner's session sees both; the key only its agent's.
    assert.equal((await taskOf(app, owner.token, other.id)).id, other.id);
    assert.equal((await taskOf(app, key, own.id)).id, own.id);
    expectError(await app.request({ method: 'GET', url: `/v1/tasks/${other.id}`, token: key }), 404, 'NOT_FOUND');
    const listed = await app.request({ method: 'GET', url: '/v1/tasks?role=agent&limit=100', token: key });
    assert.equal(listed.statusCode, 200, listed.body);
    const ids = (listed.json().data as { id: string }[]).map((task) => task.id);
    assert.ok(ids.includes(own.id), "the key lists its own agent's task");
    assert.ok(!ids.includes(other.id), "the key does not list the other agent's task");
  });
});

const waitForWebhook = async (server: AgentServer, taskId: string) =>
  (await waitFor(`the webhook for ${taskId}`, () => server.received.find((w) => w.json.taskId === taskId)))!;

describe('tasks: routing', () => {
  let app: TestApp;
  let server: AgentServer;
  let requester: { token: string };
  let owner: { token: string };
  before(async () => {
    app = await startTestApp(env);
    server = await startAgentServer();
    requester = await app.signup();
    owner = await app.signup();
  });
  after(async () => {
    await app.close();
    await server.close();
  });

  it('the dry run ranks by the documented factors and explains every exclusion; ties are deterministic', async () => {
    const full = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['ocr', 'translation'] });
    const partial = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['ocr'] });
    const loaded = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['ocr'] });
    await app.request({ method: 'POST', url: `/v1/agents/${loaded.id}/heartbeat`, token: owner.token, body: { status: 'busy', load: 0.9 } });
    const twin = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['ocr'] });
    const offline = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['ocr'] });
    // Its last heartbeat was more than 24 hours ago.
    await app.database.db
      .updateTable('agents')
      .set({ last_seen_at: new Date(Date.now() - 25 * 3600_000).toISOString() })
      .where('id', '=', offline.id)
      .execute();
    const unsigned = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['ocr'] });
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/agents/${unsigned.id}/webhook-secret`, token: owner.token })).statusCode, 200);
    const maintenance = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['ocr'] });
    await app.request({ method: 'POST', url: `/v1/agents/${maintenance.id}/heartbeat`, token: owner.token, body: { status: 'maintenance' } });

    const response = await app.request({
      method: 'POST',
      url: '/v1/tasks/route',
      token: requester.token,
      body: { description: 'Read and translate this scan', capabilities: ['ocr', 'translate'] },
    });
    assert.equal(response.statusCode, 200, response.body);
    const plan = response.json().data;
    assert.deepEqual(plan.weights, { capability: 0.35, trust: 0.25, rating: 0.15, responseTime: 0.1, availability: 0.1, load: 0.05 });
    assert.deepEqual(
      plan.candidates.map((c: { agent: { id: string } }) => c.agent.id),
      [full.id, partial.id, twin.id, loaded.id],
    );
    const [top, second, third, last] = plan.candidates;
    assert.deepEqual(top.factors, { capability: 1, trust: 0.5, rating: 0.5, responseTime: 0.5, availability: 1, load: 1 });
    assert.equal(top.score, 0.35 + 0.125 + 0.075 + 0.05 + 0.1 + 0.05);
    assert.equal(second.factors.capability, 0.5);
    assert.equal(second.score, third.score, 'twins tie; the earlier registration wins');
    assert.equal(last.factors.availability, 0.5);
    assert.equal(last.factors.load, 0.1);
    const reasons = Object.fromEntries(plan.excluded.map((e: { agent: { id: string }; reason: string }) => [e.agent.id, e.reason]));
    assert.match(reasons[offline.id], /offline/);
    assert.match(reasons[unsigned.id], /webhook secret/);
    assert.match(reasons[maintenance.id], /maintenance/);
    const codes = Object.fromEntries(plan.excluded.map((e: { agent: { id: string }; code: string }) => [e.agent.id, e.code]));
    assert.deepEqual(codes, { [offline.id]: 'offline', [unsigned.id]: 'no_webhook_secret', [maintenance.id]: 'maintenance' });

    const again = (
      await app.request({ method: 'POST', url: '/v1/tasks/route', token: requester.token, body: { description: 'x', capabilities: ['ocr', 'translate'] } })
    ).json().data;
    assert.deepEqual(again.candidates, plan.candidates);
    expectError(await app.request({ method: 'POST', url: '/v1/tasks/route', body: { description: 'x', capabilities: ['ocr'] } }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'POST', url: '/v1/tasks/route', token: requester.token, body: { capabilities: ['ocr'] } }), 400, 'BAD_REQUEST');
    expectError(
      await app.request({ method: 'POST', url: '/v1/tasks/route', token: requester.token, body: { description: 'x', capabilities: ['ocr'], bogus: 1 } }),
      400,
      'BAD_REQUEST',
    );
  });

  it('ratings and trust move an agent up', async () => {
    const { newAgentKey, proveKey } = await import('../helpers/agents.ts');
    const { makeReceipt } = await import('../helpers/receipts.ts');
    const trustedKey = newAgentKey();
    const plain = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['legal-review'] });
    const trusted = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['legal-review'], pubkey: trustedKey.pubkey });
    await proveKey(app, owner.token, trusted.id, trustedKey);
    const voucherOwner = await app.signup();
    const voucherKey = newAgentKey();
    const voucher = await registerAgent(app, voucherOwner.token, { pubkey: voucherKey.pubkey });
    for (let i = 0; i < 3; i++) {
      const receipt = makeReceipt(
        'outcome',
        { agent: voucher.slug, key: voucherKey },
        { agent: trusted.slug as string, key: trustedKey },
        {
          taskClass: 'legal.review',
          issuedAt: new Date(Date.now() - 60_000).toISOString(),
          payload: { outcome: 'success', latencyMs: 10 },
        },
      );
      assert.equal((await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt })).statusCode, 201);
    }
    const plan = (
      await app.request({
        method: 'POST',
        url: '/v1/tasks/route',
        token: requester.token,
        body: { description: 'x', capabilities: ['legal-review'], taskClass: 'legal.review' },
      })
    ).json().data;
    assert.deepEqual(
      plan.candidates.map((c: { agent: { id: string } }) => c.agent.id),
      [trusted.id, plain.id],
    );
    assert.ok(plan.candidates[0].factors.trust > 0.5);
  });

  it('a named agent is used even without capabilities; an excluded one leaves the task unmatched', async () => {
    const named = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['anything'] });
    assert.equal((await submitTask(app, requester.token, { agentId: named.id, capabilities: undefined })).assignedAgent?.id, named.id);
    const sleeping = await registerAgent(app, owner.token, { endpoint: server.url });
    await app.request({ method: 'POST', url: `/v1/agents/${sleeping.id}/heartbeat`, token: owner.token, body: { status: 'maintenance' } });
    const unmatched = await submitTask(app, requester.token, { agentId: sleeping.id, capabilities: undefined });
    assert.equal(unmatched.status, 'unmatched');
    assert.match((unmatched.error as { message: string }).message, /^The agent you named cannot take it: in maintenance/);
    assert.equal((unmatched.error as { cause: string }).cause, 'maintenance');
    assert.deepEqual(
      unmatched.requestedAgent,
      { id: sleeping.id, name: sleeping.name, slug: sleeping.slug, identityLevel: 'none', verifiedDomain: null },
      'the named agent stays on the task',
    );
    assert.equal(unmatched.assignedAgent, null);
  });

  it('a named agent above the budget says what it asks, so the task can be sent again with that budget', async () => {
    const priced = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['anything'], pricePerTaskCents: 1500 });
    const refused = await submitTask(app, requester.token, { agentId: priced.id, capabilities: undefined, maxPriceCents: 1000 });
    assert.equal(refused.status, 'unmatched');
    assert.deepEqual(refused.error, {
      code: 'no_agent',
      message: 'The agent you named cannot take it: price 1500 cents is above maxPriceCents 1000',
      matching: 1,
      excluded: { price_above_max: 1 },
      cause: 'price_above_max',
      agentPrice: { cents: 1500, currency: 'usd' },
    });
    assert.equal((refused.requestedAgent as { id: string }).id, priced.id);
    const unbudgeted = await submitTask(app, requester.token, { agentId: priced.id, capabilities: undefined });
    assert.deepEqual((unbudgeted.error as { agentPrice: unknown }).agentPrice, { cents: 1500, currency: 'usd' });
    const listed = (await app.request({ method: 'GET', url: '/v1/tasks', token: requester.token })).json().data as {
      id: string;
      requestedAgent: { id: string } | null;
    }[];
    assert.equal(listed.find((task) => task.id === refused.id)?.requestedAgent?.id, priced.id, 'the list names it too');
    const resent = await submitTask(app, requester.token, { agentId: priced.id, capabilities: undefined, maxPriceCents: 1500 });
    assert.equal(resent.status, 'matched');
    assert.equal(resent.priceCents, 1500);
  });
});

describe('tasks: plain-language input', () => {
  let app: TestApp;
  let server: AgentServer;
  let requester: { token: string };
  let owner: { token: string };
  let painter: { id: string };
  const inputSchema = JSON.stringify({
    style: { type: 'string', enum: ['watercolor', 'pixel art', 'photorealistic'], required: true },
    count: { type: 'number', default: 1 },
    transparent: { type: 'boolean', default: false },
  });
  before(async () => {
    app = await startTestApp(env);
    server = await startAgentServer();
    requester = await app.signup();
    owner = await app.signup();
    painter = await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['image-generation'], inputSchema });
  });
  after(async () => {
    await app.close();
    await server.close();
  });

  it('a task without input gets fields extracted from its description and delivered structured', async () => {
    const task = await submitTask(app, requester.token, {
      capabilities: ['image-generation'],
      description: 'Paint 3 watercolor foxes on a transparent background',
    });
    assert.equal(task.status, 'matched');
    assert.deepEqual(task.input, { style: 'watercolor', count: 3, transparent: true });
    const webhook = await waitForWebhook(server, task.id);
    assert.deepEqual(webhook.json.input, { style: 'watercolor', count: 3, transparent: true });
  });

  it('given input is delivered as given', async () => {
    const task = await submitTask(app, requester.token, { capabilities: ['image-generation'], description: 'whatever', input: { style: 'pixel art' } });
    assert.deepEqual((await waitForWebhook(server, task.id)).json.input, { style: 'pixel art' });
  });

  it('input given for a named agent must fit its schema: 400 naming each field, and nothing stored', async () => {
    const fresh = await app.signup();
    const refused = await app.request({
      method: 'POST',
      url: '/v1/tasks',
      token: fresh.token,
      body: { agentId: painter.id, description: 'Paint foxes', input: { style: 'oil', count: 'three', transparent: true, extra: 'kept' } },
    });
    const error = expectError(refused, 400, 'BAD_REQUEST');
    assert.deepEqual(
      error.details?.map((d) => d.path),
      ['/body/input/style', '/body/input/count'],
    );
    assert.match(error.message, /style must be one of "watercolor", "pixel art", "photorealistic"; count must be a number/);
    const missing = expectError(
      await app.request({
        method: 'POST',
        url: '/v1/tasks',
        token: fresh.token,
        body: { agentId: painter.id, description: 'Paint foxes', input: { count: 2 } },
      }),
      400,
      'BAD_REQUEST',
    );
    assert.deepEqual(missing.details, [{ path: '/body/input/style', message: 'is required by the agent' }]);
    assert.equal((await app.request({ method: 'GET', url: '/v1/tasks', token: fresh.token })).json().pagination.total, 0);

    // Fields the schema does not define pass; a field with a default may be left out.
    const accepted = await submitTask(app, fresh.token, {
      agentId: painter.id,
      capabilities: undefined,
      description: 'Paint foxes',
      input: { style: 'watercolor', extra: 'kept' },
    });
    assert.equal(accepted.status, 'matched');
    assert.deepEqual(accepted.input, { style: 'watercolor', extra: 'kept' });
  });

  it('a required field the description does not give refuses the submission: 400 naming it, with what was found, and nothing stored', async () => {
    const fresh = await app.signup();
    const response = await app.request({
      method: 'POST',
      url: '/v1/tasks',
      token: fresh.token,
      body: { capabilities: ['image-generation'], description: 'Draw cats on a transparent background' },
    });
    const error = expectError(response, 400, 'BAD_REQUEST');
    assert.match(error.message, /style/);
    assert.deepEqual(
      error.details?.map((d) => d.path),
      ['/input/style'],
    );
    assert.deepEqual(response.json().found, { count: 1, transparent: true });
    assert.equal((await app.request({ method: 'GET', url: '/v1/tasks', token: fresh.token })).json().pagination.total, 0);
  });
});

describe('tasks: expiry', () => {
  it('an open task past its expiry becomes expired and is no longer handed out', async () => {
    const { TestClock } = await import('../helpers/app.ts');
    const clock = new TestClock(Date.now());
    const app = await startTestApp(env, { clock });
    try {
      const requester = await app.signup();
      const agent = await registerProvisional(app, undefined, { deliveryMode: 'poll', endpoint: undefined, capabilities: ['slow-thing'] });
      await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, headers: signedBy(agent, clock.now()) });
      const task = await submitTask(app, requester.token, { capabilities: ['slow-thing'], expiresInMinutes: 1 });
      assert.equal(task.status, 'matched');
      clock.advance(61_000);
      // The delivery worker expires tasks on each pass; one run now has had its chance.
      await app.deliveryWorker.settled();
      const expired = await taskOf(app, requester.token, task.id);
      assert.equal(expired.status, 'expired');
      assert.equal((expired.error as { code: string }).code, 'expired');
      assert.deepEqual((await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, headers: signedBy(agent, clock.now()) })).json().data, []);
      expectError(await app.request({ method: 'POST', url: `/v1/tasks/${task.id}/cancel`, token: requester.token }), 409, 'CONFLICT');
    } finally {
      await app.close();
    }
  });

  it('past its expiry, before the expiry pass has run, a task takes no result and is not handed out', async () => {
    const { TestClock } = await import('../helpers/app.ts');
    const clock = new TestClock(Date.now());
    // The scheduled pass stays away for the whole test: only the request paths decide.
    const app = await startTestApp({ ...env, DELIVERY_POLL_INTERVAL_MS: '60000' }, { clock });
    try {
      const requester = await app.signup();
      const owner = await app.signup();
      const agent = await pollingAgent(app, owner.token, { capabilities: ['slow-thing'] });
      const taken = await assignedTask(app, requester.token, owner.token, agent.id, { expiresInMinutes: 1 });
      const waiting = await submitTask(app, requester.token, { agentId: agent.id, expiresInMinutes: 1 });
      assert.equal(waiting.status, 'matched');
      clock.advance(61_000);

      const late = expectError(await callback(app, taken.id, { taskToken: taken.token, result: { text: 'too late' } }), 409, 'CONFLICT');
      assert.match(late.message, /expired/);
      const polled = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll?wait=0`, token: owner.token });
      assert.deepEqual(polled.json().data, []);
      assert.equal((await taskOf(app, requester.token, taken.id)).result, null);

      // A wrong token is still told so first.
      expectError(await callback(app, taken.id, { taskToken: 'tkt_wrong', result: {} }), 401, 'UNAUTHORIZED');
    } finally {
      await app.close();
    }
  });

  it('a webhook agent whose next retry would land after the expiry is given up on at once', async () => {
    const app = await startTestApp({ ...env, WEBHOOK_RETRY_BASE_MS: '600000' });
    const server = await startAgentServer(() => ({ status: 500 }));
    try {
      const requester = await app.signup();
      const owner = await app.signup();
      await readyWebhookAgent(app, owner.token, server.url, { capabilities: ['slow-thing'] });
      const task = await submitTask(app, requester.token, { capabilities: ['slow-thing'], expiresInMinutes: 1 });
      const failed = await waitForTask(app, requester.token, task.id, (t) => t.status === 'failed');
      assert.equal((failed.error as { code: string }).code, 'delivery_failed');
      assert.equal(server.received.length, 1);
    } finally {
      await app.close();
      await server.close();
    }
  });
});

describe('tasks: a provisional agent can be routed to', () => {
  it('provisional poll agents take capability-routed tasks', async () => {
    const app = await startTestApp(env);
    try {
      const requester = await app.signup();
      const agent = await registerProvisional(app, undefined, { deliveryMode: 'poll', endpoint: undefined, capabilities: ['sentiment-analysis'] });
      await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, headers: signedBy(agent) });
      const task = await submitTask(app, requester.token, { capabilities: ['sentiment analysis'] });
      assert.equal(task.assignedAgent?.id, agent.id);
    } finally {
      await app.close();
    }
  });
});

describe("tasks: a newcomer's first task", () => {
  let app: TestApp;
  let server: AgentServer;
  before(async () => {
    app = await startTestApp(env);
    server = await startAgentServer();
  });
  after(async () => {
    await app.close();
    await server.close();
  });

  it('goes to a webhook agent registered a moment ago, signed with the secret its registration answered', async () => {
    const { Webhook } = await import('standardwebhooks');
    const owner = await app.signup();
    const registered = await app.request({
      method: 'POST',
      url: '/v1/agents',
      token: owner.token,
      body: {
        name: 'First Agent',
        description: 'Checks facts',
        endpoint: server.url,
        protocols: ['rest'],
        categories: ['research'],
        capabilities: ['newcomer-check'],
      },
    });
    assert.equal(registered.statusCode, 201, registered.body);
    const agent = registered.json().data;
    assert.equal(agent.availability, 'unknown');

    const requester = await app.signup();
    const task = await submitTask(app, requester.token, { capabilities: ['newcomer-check'], description: 'Is the moon made of cheese?' });
    assert.equal(task.status, 'matched', JSON.stringify(task.error));
    assert.equal(task.assignedAgent?.id, agent.id);
    const webhook = await waitForWebhook(server, task.id);
    const payload = new Webhook(agent.webhookSecret).verify(webhook.body, webhook.headers as Record<string, string>) as { taskId: string };
    assert.equal(payload.taskId, task.id);
  });

  it('goes to a poll agent registered without an endpoint, taken by its first signed poll', async () => {
    const agent = await registerProvisional(app, undefined, { endpoint: undefined, capabilities: ['newcomer-poll'] });
    const requester = await app.signup();
    const task = await submitTask(app, requester.token, { capabilities: ['newcomer-poll'] });
    assert.equal(task.status, 'matched', JSON.stringify(task.error));
    const polled = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/tasks/poll`, headers: signedBy(agent) });
    assert.equal(polled.json().data[0].taskId, task.id);
  });

  it('ranks an agent never heard from below one that is away, and both below one available', async () => {
    const { TestClock } = await import('../helpers/app.ts');
    const clock = new TestClock(Date.now());
    const timed = await startTestApp(env, { clock });
    try {
      const owner = await timed.signup();
      const make = () => registerAgent(timed, owner.token, { endpoint: undefined, capabilities: ['ranked-thing'] });
      const away = await make();
      await heartbeat(timed, owner.token, away.id);
      clock.advance(3600_000);
      const available = await make();
      // Poll agents: a heartbeat keeps one away, a poll makes one available (docs/registry.md).
      await heartbeat(timed, owner.token, available.id);
      assert.equal((await timed.request({ method: 'GET', url: `/v1/agents/${available.id}/tasks/poll`, token: owner.token })).statusCode, 200);
      const unknown = await make();
      const plan = (
        await timed.request({ method: 'POST', url: '/v1/tasks/route', token: owner.token, body: { description: 'x', capabilities: ['ranked-thing'] } })
      ).json().data;
      const order = plan.candidates.map((c: { agent: { id: string }; availability: string; factors: { availability: number } }) => [
        c.agent.id,
        c.availability,
        c.factors.availability,
      ]);
      assert.deepEqual(order, [
        [available.id, 'available', 1],
        [away.id, 'away', 0.5],
        [unknown.id, 'unknown', 0.25],
      ]);
    } finally {
      await timed.close();
    }
  });
});

describe('tasks: an unmatched task says why', () => {
  it('counts, per reason, the agents the requester may see that have the capability, and never a hidden one', async () => {
    const { TestClock } = await import('../helpers/app.ts');
    const clock = new TestClock(Date.now());
    const app = await startTestApp(env, { clock });
    try {
      const owner = await app.signup();
      const other = await app.signup();
      const requester = await app.signup();
      const capability = 'fact-checking-deluxe';
      const stale = await registerAgent(app, owner.token, { endpoint: undefined, capabilities: [capability] });
      await heartbeat(app, owner.token, stale.id);
      clock.advance(25 * 3600_000);
      await registerAgent(app, owner.token, { endpoint: undefined, capabilities: [capability], pricePerTaskCents: 500 });
      // Someone else's private and org agents would fit: they must not be used, shown or counted.
      const hidden = await registerAgent(app, other.token, { endpoint: undefined, capabilities: [capability], visibility: 'private' });
      const org = (await app.request({ method: 'POST', url: '/v1/orgs', token: other.token, body: { name: 'Hidden Co' } })).json().data;
      const orgOnly = await registerAgent(app, other.token, { endpoint: undefined, capabilities: [capability], visibility: 'org', orgId: org.id });

      const task = await submitTask(app, requester.token, { capabilities: [capability], maxPriceCents: 100 });
      assert.equal(task.status, 'unmatched');
      assert.deepEqual(task.error, {
        code: 'no_agent',
        message: `2 agents you can see have this capability ("${capability}"): 1 offline, 1 above your maxPriceCents`,
        matching: 2,
        excluded: { offline: 1, price_above_max: 1 },
      });
      assert.deepEqual(await taskOf(app, requester.token, task.id).then((stored) => stored.error), task.error, 'kept in the record');

      const plan = (
        await app.request({
          method: 'POST',
          url: '/v1/tasks/route',
          token: requester.token,
          body: { description: 'x', capabilities: [capability], maxPriceCents: 100 },
        })
      ).json().data;
      assert.deepEqual(plan.excluded.map((e: { code: string }) => e.code).sort(), ['offline', 'price_above_max'], 'the dry run tells the same story');
      // The hidden agents would have fitted: their owner's task goes to one of them.
      const own = await submitTask(app, other.token, { capabilities: [capability], maxPriceCents: 100 });
      assert.ok([hidden.id, orgOnly.id].includes(own.assignedAgent?.id ?? ''), JSON.stringify(own));
    } finally {
      await app.close();
    }
  });
});
