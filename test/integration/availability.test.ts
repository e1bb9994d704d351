/**
 * One availability rule (docs/registry.md), as every reader shows it: a poll agent is `available`
 * only while it polls (heartbeats alone keep it `away`); a webhook agent is heard from by its
 * heartbeats and by its successful deliveries and callbacks. A claimed agent keeps polling with its
 * registration key's signature.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { agentSignature, claimAgent, newAgentKey, registerAgent, registerProvisional, type AgentKey } from '../helpers/agents.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';
import { heartbeat, submitTask } from '../helpers/tasks.ts';
import { waitFor } from '../helpers/wait.ts';

const INTERVAL_S = 60;

describe('availability: one rule for polls, heartbeats and callbacks', () => {
  let app: TestApp;
  const clock = new TestClock(Date.now());
  let owner: { token: string };
  let requester: { token: string };
  let server: AgentServer;
  before(async () => {
    app = await startTestApp(
      { ALLOW_PRIVATE_ENDPOINTS: 'true', DELIVERY_POLL_INTERVAL_MS: '20', HEARTBEAT_INTERVAL_SECONDS: String(INTERVAL_S), PROVISIONAL_RATE_LIMIT_MAX: '1000' },
      { clock },
    );
    owner = await app.signup();
    requester = await app.signup();
    server = await startAgentServer();
  });
  after(async () => {
    await app.close();
    await server.close();
  });

  const signed = (id: string, key: AgentKey) => ({ 'x-agent-signature': agentSignature(id, key, Math.floor(clock.now().getTime() / 1000)) });
  const poll = (id: string, options: { token?: string; headers?: Record<string, string> } = {}) =>
    app.request({ method: 'GET', url: `/v1/agents/${id}/tasks/poll?wait=0`, token: options.token ?? null, headers: options.headers ?? {} });
  const availabilityOf = async (id: string) =>
    (await app.request({ method: 'GET', url: `/v1/agents/${id}`, token: owner.token })).json().data.availability as string;
  /** What discovery and routing say of the agent: the same rule. */
  const seenElsewhere = async (id: string, capability: string) => {
    const found = (await app.request({ method: 'GET', url: `/v1/discover?capability=${capability}`, token: owner.token })).json().data as {
      id: string;
      availability: string;
    }[];
    const plan = await app.request({ method: 'POST', url: '/v1/tasks/route', token: owner.token, body: { description: 'work', capabilities: [capability] } });
    assert.equal(plan.statusCode, 200, plan.body);
    const candidate = (plan.json().data.candidates as { agent: { id: string }; availability: string }[]).find((c) => c.agent.id === id);
    return { discovery: found.find((a) => a.id === id)?.availability, routing: candidate?.availability };
  };

  it('a claimed agent polls with its registration key, as before its claim (the owner and agent keys still work)', async () => {
    const key = newAgentKey();
    const { id } = await registerProvisional(app, key, { deliveryMode: 'poll', endpoint: undefined });
    assert.equal((await poll(id, { headers: signed(id, key) })).statusCode, 200);
    assert.equal((await claimAgent(app, owner.token, id, key)).statusCode, 200);
    const after = await poll(id, { headers: signed(id, key) });
    assert.equal(after.statusCode, 200, after.body);
    assert.equal((await poll(id, { token: owner.token })).statusCode, 200);
    const agentKey = (await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'runner', agentId: id } })).json().data.key;
    assert.equal((await poll(id, { token: agentKey })).statusCode, 200);
    // A signature by another key, or none and no credential, is still refused.
    expectError(await poll(id, { headers: signed(id, newAgentKey()) }), 401, 'UNAUTHORIZED');
    expectError(await poll(id), 401, 'UNAUTHORIZED');
    const stranger = await app.signup();
    expectError(await poll(id, { token: stranger.token }), 403, 'FORBIDDEN');
  });

  it('a poll agent heard from only by heartbeats is away everywhere; a poll makes it available, for two intervals', async () => {
    const capability = 'contract-redlining';
    const agent = await registerAgent(app, owner.token, { deliveryMode: 'poll', endpoint: undefined, capabilities: [capability] });
    assert.equal(await availabilityOf(agent.id), 'unknown');
    const beat = await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/heartbeat`, token: owner.token, body: { status: 'available' } });
    assert.equal(beat.json().data.availability, 'away', 'the heartbeat answer says so too');
    assert.equal(await availabilityOf(agent.id), 'away');
    assert.deepEqual(await seenElsewhere(agent.id, capability), { discovery: 'away', routing: 'away' });

    assert.equal((await poll(agent.id, { token: owner.token })).statusCode, 200);
    assert.equal(await availabilityOf(agent.id), 'available');
    assert.deepEqual(await seenElsewhere(agent.id, capability), { discovery: 'available', routing: 'available' });

    // Heartbeats keep coming, polls stop: away once two intervals pass since the last poll.
    clock.advance(2 * INTERVAL_S * 1000 + 1000);
    await heartbeat(app, owner.token, agent.id);
    assert.equal(await availabilityOf(agent.id), 'away');
    await waitFor(
      'discovery to see the heartbeat',
      () => seenElsewhere(agent.id, capability),
      (seen) => seen.discovery === 'away',
    );
    assert.equal((await seenElsewhere(agent.id, capability)).routing, 'away');
  });

  it('a webhook agent that never sent a heartbeat is available once a delivery succeeds and after its callback', async () => {
    const capability = 'invoice-extraction';
    const agent = await registerAgent(app, owner.token, { endpoint: server.url, capabilities: [capability] });
    assert.equal(await availabilityOf(agent.id), 'unknown');
    const task = await submitTask(app, requester.token, { description: 'Read this invoice', capabilities: [capability] });
    assert.equal(task.assignedAgent?.id, agent.id);
    const [webhook] = await server.waitFor(server.received.length + 1);
    await waitFor(
      'the delivery to count as a sign of life',
      () => availabilityOf(agent.id),
      (value) => value === 'available',
    );

    // Later, with no heartbeat since, the agent's callback is a sign of life again.
    clock.advance(2 * INTERVAL_S * 1000 + 1000);
    assert.equal(await availabilityOf(agent.id), 'away');
    const token = (server.received.find((w) => w.json.taskId === task.id) ?? webhook!).json.taskToken as string;
    const callback = await app.request({ method: 'POST', url: `/v1/tasks/${task.id}/callback`, body: { taskToken: token, result: { total: 1 } } });
    assert.equal(callback.statusCode, 200, callback.body);
    // A node writes an agent's liveness at most once a second: a sign of life within a second of the
    // last write (the delivery's) is written at that second's end.
    await waitFor(
      'the callback to count as a sign of life',
      () => availabilityOf(agent.id),
      (value) => value === 'available',
    );
  });
});
