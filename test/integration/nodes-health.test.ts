/**
 * Two nodes on one PostgreSQL database share the probing of the agents' health: each agent is
 * probed by one node at a time, both nodes take part, the survivor probes everything once the other
 * stops, and an outcome seen on one node (a probe, a delivery) shows on the other within 2 s.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { asTestApp, dropTestSchema, TEST_SECRETS_KEY, testDatabaseUrl, withSchemaLock, type TestApp } from '../helpers/app.ts';
import { readyWebhookAgent, submitTask } from '../helpers/tasks.ts';
import { waitFor } from '../helpers/wait.ts';

const AGENTS = 12;

/** An agent endpoint that notes its probes, how many overlap, and answers each after a moment. */
async function probedEndpoint() {
  const state = { url: '', probes: 0, inFlight: 0, mostInFlight: 0, deliveries: [] as number[] };
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.method === 'POST') {
        state.deliveries.push(Date.now());
        response.writeHead(500).end('{}');
        return;
      }
      state.probes++;
      state.inFlight++;
      state.mostInFlight = Math.max(state.mostInFlight, state.inFlight);
      setTimeout(() => {
        state.inFlight--;
        response.end('{}');
      }, 30);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    state,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('health probing on two nodes', () => {
  const oneNode = testDatabaseUrl ? false : 'SQLite is one node per database file; the PostgreSQL run starts two nodes';
  it('shares the agents, one node at a time per agent, and survives the loss of a node', { skip: oneNode }, async () => {
    const url = testDatabaseUrl!;
    const schema = `t_health_${process.pid}_${Date.now().toString(36)}`;
    const config = loadConfig({
      DATABASE_URL: url,
      SECRETS_KEY: TEST_SECRETS_KEY,
      LOG_LEVEL: 'silent',
      ALLOW_PRIVATE_ENDPOINTS: 'true',
      DELIVERY_POLL_INTERVAL_MS: '50',
      HEALTH_PROBE_INTERVAL_MS: '400',
      HEALTH_PROBE_HOST_GAP_MS: '100',
    });
    const overrides = { logger: false, webRoot: null, databaseSchema: schema };
    const built = await withSchemaLock(url, () => Promise.all([buildApp(config, overrides), buildApp(config, overrides)]));
    const nodes: TestApp[] = built.map((app) => asTestApp(app, schema, () => app.server.close()));
    const endpoints = await Promise.all(Array.from({ length: AGENTS }, probedEndpoint));
    let first: TestApp | null = nodes[0]!;
    try {
      const [a, b] = nodes as [TestApp, TestApp];
      const owner = await a.signup();
      const agents: { id: string }[] = [];
      for (const endpoint of endpoints) agents.push(await readyWebhookAgent(a, owner.token, endpoint.state.url, { capabilities: ['two-node-health'] }));

      await waitFor(
        'every agent probed three times, by both nodes together',
        () => endpoints.map((endpoint) => endpoint.state.probes),
        (probes) => probes.every((count) => count >= 3),
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      assert.ok(
        a.health.prober.probesMade() > 0 && b.health.prober.probesMade() > 0,
        `both nodes probe: ${a.health.prober.probesMade()} and ${b.health.prober.probesMade()}`,
      );
      assert.deepEqual(
        endpoints.map((endpoint) => endpoint.state.mostInFlight),
        endpoints.map(() => 1),
        'no agent was ever probed by two nodes at once',
      );
      // What either node probed shows on both.
      for (const node of nodes) {
        const health: { status: string } = (await node.request({ method: 'GET', url: `/v1/agents/${agents[0]!.id}`, token: owner.token })).json().data.health;
        assert.equal(health.status, 'up');
      }

      // A delivery made by either node shows on both within 2 s: a failed one, told apart from the probes by its failure.
      const task = await submitTask(a, owner.token, { agentId: agents[1]!.id, capabilities: ['two-node-health'] });
      assert.ok(task.id);
      await waitFor(
        'the delivery',
        () => endpoints[1]!.state.deliveries.length,
        (count) => count >= 1,
      );
      const deliveredAt = endpoints[1]!.state.deliveries[0]!;
      for (const node of nodes) {
        const failure = await waitFor(
          'the failed delivery in the health on this node',
          async () => (await node.request({ method: 'GET', url: `/v1/agents/${agents[1]!.id}`, token: owner.token })).json().data.health.lastFailure,
          (value) => value !== null,
          { timeoutMs: 10_000 },
        );
        assert.match(failure.reason, /500/);
      }
      // The product's bound is 2 s (a write a second, a read every half second); a loaded machine may
      // take longer to schedule it, so the test allows five times that.
      assert.ok(Date.now() - deliveredAt < 10_000, `visible on both nodes ${Date.now() - deliveredAt} ms after the delivery`);

      // One node stops: the other probes every agent from then on. Counted once the stopped node's
      // last probes have ended: it starts none after its stop, so every probe counted after is the survivor's.
      await a.close();
      first = null;
      const stoppedNodeProbes = a.health.prober.probesMade();
      const probesAtLoss = endpoints.map((endpoint) => endpoint.state.probes);
      await waitFor(
        'every agent probed again after the loss of a node',
        () => endpoints.map((endpoint, index) => endpoint.state.probes - probesAtLoss[index]!),
        (more) => more.every((count) => count >= 2),
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      assert.equal(a.health.prober.probesMade(), stoppedNodeProbes, 'the stopped node probed nothing more: the survivor did');
    } finally {
      await first?.close().catch(() => {});
      await nodes[1]!.close().catch(() => {});
      await Promise.all(endpoints.map((endpoint) => endpoint.close()));
      await dropTestSchema(url, schema);
    }
  });
});
