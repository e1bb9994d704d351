/**
 * Health the registry measures (docs/registry.md, "Health"): loopback agents that answer, slow
 * down, fail and recover, probed with a manual clock; health from real deliveries, visible at once;
 * a down agent not routed to and ranked last in discovery.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';
import { readyWebhookAgent, submitTask, waitForTask } from '../helpers/tasks.ts';
import { waitFor } from '../helpers/wait.ts';

interface Health {
  status: string;
  uptime24h: number | null;
  uptime7d: number | null;
  p50Ms: number | null;
  lastCheckedAt: string | null;
  lastFailure: { at: string; reason: string } | null;
  hours: (number | null)[];
}

describe('health the registry measures', () => {
  let app: TestApp;
  const clock = new TestClock(Date.now());
  let owner: { token: string };
  const servers: AgentServer[] = [];
  before(async () => {
    // The prober's own schedule is off (0): each test runs its passes, so none races the clock.
    app = await startTestApp(
      {
        ALLOW_PRIVATE_ENDPOINTS: 'true',
        DELIVERY_POLL_INTERVAL_MS: '20',
        WEBHOOK_MAX_ATTEMPTS: '1',
        HEALTH_PROBE_INTERVAL_MS: '0',
        HEALTH_PROBE_HOST_GAP_MS: '0',
        HEALTH_SLOW_MS: '3000',
      },
      { clock },
    );
    owner = await app.signup();
  });
  after(async () => {
    await app.close();
    await Promise.all(servers.map((server) => server.close()));
  });

  const server = async (...args: Parameters<typeof startAgentServer>) => {
    const started = await startAgentServer(...args);
    servers.push(started);
    return started;
  };
  const healthOf = async (id: string) => {
    const response = await app.request({ method: 'GET', url: `/v1/agents/${id}`, token: owner.token });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data.health as Health;
  };
  const probe = () => app.health.prober.pass();

  it('probes a webhook agent with a signed GET: up while it answers, down after three failures, back when it answers again', async () => {
    let status = 200;
    const agentServer = await server(() => ({ status, body: '{}' }));
    const agent = await readyWebhookAgent(app, owner.token, agentServer.url, { capabilities: ['health-probe-flaky'] });
    assert.equal((await healthOf(agent.id)).status, 'unknown', 'never checked');

    await probe();
    const probeRequest = agentServer.probes.at(-1)!;
    assert.equal(probeRequest.body, '', 'a GET, no body');
    const id = String(probeRequest.headers['webhook-id']);
    const timestamp = String(probeRequest.headers['webhook-timestamp']);
    const key = Buffer.from(agent.secret.replace(/^whsec_/, ''), 'base64');
    const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).digest('base64')}`;
    assert.equal(probeRequest.headers['webhook-signature'], expected, 'signed as deliveries are, over the empty body');
    let health = await healthOf(agent.id);
    assert.equal(health.status, 'up');
    assert.equal(health.uptime24h, 1);
    assert.equal(health.lastCheckedAt, clock.now().toISOString());
    assert.equal(typeof health.p50Ms, 'number');
    assert.equal(health.hours.length, 24);
    assert.equal(health.hours.at(-1), 1);

    // A 404 or 405 to a GET on a POST route still answers; a 5xx does not.
    status = 405;
    await probe();
    assert.equal((await healthOf(agent.id)).status, 'up');

    status = 503;
    await probe();
    health = await healthOf(agent.id);
    assert.equal(health.status, 'degraded', 'one failure');
    assert.match(health.lastFailure!.reason, /503/);
    await probe();
    await probe();
    health = await healthOf(agent.id);
    assert.equal(health.status, 'down', 'three failures in a row');
    assert.equal(health.uptime24h, 0.4);

    // Down: not routed to, excluded with the reason.
    const plan = await app.request({
      method: 'POST',
      url: '/v1/tasks/route',
      token: owner.token,
      body: { description: 'work', capabilities: ['health-probe-flaky'] },
    });
    assert.equal(plan.statusCode, 200, plan.body);
    const excluded = plan.json().data.excluded as { agent: { id: string }; code: string; reason: string }[];
    assert.deepEqual(
      excluded.filter((entry) => entry.agent.id === agent.id).map((entry) => entry.code),
      ['down'],
    );
    assert.equal((plan.json().data.candidates as unknown[]).length, 0);

    status = 200;
    clock.advance(60_000);
    await probe();
    health = await healthOf(agent.id);
    assert.notEqual(health.status, 'down', 'a success ends the run of failures');
    const again = await app.request({
      method: 'POST',
      url: '/v1/tasks/route',
      token: owner.token,
      body: { description: 'work', capabilities: ['health-probe-flaky'] },
    });
    assert.deepEqual(
      (again.json().data.candidates as { agent: { id: string } }[]).map((candidate) => candidate.agent.id),
      [agent.id],
      'routed to again',
    );
    // The week's uptime counts the failures; a day later the past day has only the checks made since.
    clock.advance(25 * 3_600_000);
    await probe();
    health = await healthOf(agent.id);
    assert.equal(health.status, 'up');
    assert.equal(health.uptime24h, 1);
    assert.equal(health.uptime7d, 0.5714, '4 of the 7 checks');
  });

  it('a slow agent is degraded; a down agent ranks below the rest in discovery', async () => {
    const failingServer = await server();
    // Answers after 4 s, above HEALTH_SLOW_MS (3 s: a loopback answer takes milliseconds, and a loaded
    // machine's scheduling has stretched one past 1 s).
    const { createServer } = await import('node:http');
    const delayed = createServer((_request, response) => setTimeout(() => response.end('{}'), 4_000));
    await new Promise<void>((resolve) => delayed.listen(0, '127.0.0.1', resolve));
    const delayedUrl = `http://127.0.0.1:${(delayed.address() as { port: number }).port}/hook`;
    try {
      const failing = await readyWebhookAgent(app, owner.token, failingServer.url, { capabilities: ['health-rank'], description: 'Ranks health reports' });
      failingServer.respond = () => ({ status: 500 });
      await probe();
      await probe();
      await probe();
      // Registered after the failing one's probes: probed once, the pass waiting its 4 s.
      const sluggish = await readyWebhookAgent(app, owner.token, delayedUrl, { capabilities: ['health-rank'], description: 'Ranks health reports' });
      await probe();
      const sluggishHealth = await healthOf(sluggish.id);
      assert.equal(sluggishHealth.status, 'degraded');
      assert.ok(sluggishHealth.p50Ms! >= 4_000, `p50 ${sluggishHealth.p50Ms}`);
      assert.equal((await healthOf(failing.id)).status, 'down');

      const found = await app.request({ method: 'GET', url: '/v1/discover?capability=health-rank', token: owner.token });
      assert.equal(found.statusCode, 200, found.body);
      const order = (found.json().data as { id: string; health: Health }[]).map((agent) => [agent.id, agent.health.status]);
      assert.deepEqual(order, [
        [sluggish.id, 'degraded'],
        [failing.id, 'down'],
      ]);
    } finally {
      delayed.closeAllConnections();
      await new Promise((resolve) => delayed.close(resolve));
    }
  });

  it('deliveries count: a delivered task is a success, a failed delivery a failure, in the view at once', async () => {
    let status = 200;
    const agentServer = await server(() => ({ status, body: '{"accepted":true}' }));
    const agent = await readyWebhookAgent(app, owner.token, agentServer.url, { capabilities: ['health-delivery'] });
    const task = await submitTask(app, owner.token, { agentId: agent.id, capabilities: ['health-delivery'] });
    const [delivery] = await agentServer.waitFor(1);
    const health = await waitFor(
      'the delivery in the health',
      () => healthOf(agent.id),
      (value) => value.uptime24h === 1,
      { timeoutMs: 10_000 },
    );
    // Counted in memory at once on this node; a loaded machine may take five times the 2 s bound to show it.
    assert.ok(Date.now() - delivery!.at < 10_000, 'visible within 2 s of the delivery');
    assert.equal(health.status, 'up');
    // Written to the database within a second, where another node (or this one after a restart) reads it.
    await app.health.measurements.flush();
    const rows = await app.database.db.selectFrom('agent_health_hours').selectAll().where('agent_id', '=', agent.id).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.ok, 1);

    status = 500;
    const failing = await submitTask(app, owner.token, { agentId: agent.id, capabilities: ['health-delivery'] });
    await waitForTask(app, owner.token, failing.id, (value) => value.status === 'failed');
    const after = await healthOf(agent.id);
    assert.equal(after.uptime24h, 0.5);
    assert.equal(after.status, 'degraded');
    assert.match(after.lastFailure!.reason, /500/);
    assert.equal((await waitForTask(app, owner.token, task.id, (value) => value.status !== 'matched')).assignedAgent?.id, agent.id);
  });
});
