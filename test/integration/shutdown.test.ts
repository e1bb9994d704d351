/**
 * SIGTERM to the real service (src/main.ts as a child process, on a database of its own): a long
 * poll held at that moment answers at once with no tasks and a retry hint, an open event stream
 * ends, requests on connections already open are still answered (with `Connection: close`) while
 * new connections are refused, a webhook still in flight is handed back to the outbox for another
 * node to send, and the process exits by itself within its grace.
 */
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import type { TestApp } from '../helpers/app.ts';
import { registerAgent } from '../helpers/agents.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';
import { openEvents } from '../helpers/events.ts';
import { freePort, processDatabase, spawnService, untilServing, type ServiceProcess } from '../helpers/processes.ts';
import { readyWebhookAgent, submitTask } from '../helpers/tasks.ts';
import { waitFor } from '../helpers/wait.ts';

/** Just enough of a test app to drive the service over HTTP with the shared helpers. */
function overHttpOnly(base: string): TestApp {
  const request = async ({ method, url, token, body }: { method: string; url: string; token?: string; body?: unknown }) => {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { statusCode: response.status, body: text, headers: Object.fromEntries(response.headers), json: () => JSON.parse(text) };
  };
  return {
    request,
    async signup() {
      const email = `stop${Math.random().toString(36).slice(2, 10)}@example.test`;
      const response = await request({ method: 'POST', url: '/v1/auth/signup', body: { email, password: 'correct horse battery' } });
      if (response.statusCode !== 201) throw new Error(`signup failed: ${response.statusCode} ${response.body}`);
      const { data } = response.json();
      return { token: data.token, accountId: data.account.id, email };
    },
  } as unknown as TestApp;
}

interface Exchange {
  status: number;
  connection: string | undefined;
  /** The client's end of the connection: the same port means the same connection. */
  localPort: number | undefined;
}

/** One kept-alive connection to the service: each request goes over it for as long as it is open. */
function keptAliveConnection(base: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return (method: string, path: string, body?: unknown) =>
    new Promise<Exchange>((resolve, reject) => {
      const sent = httpRequest(`${base}${path}`, { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (response) => {
        // Read now: a kept-alive socket is handed back to the agent, and off the response, at its end.
        const localPort = response.socket.localPort;
        response.resume();
        response.once('end', () => resolve({ status: response.statusCode!, connection: response.headers.connection, localPort }));
      });
      sent.once('error', reject);
      sent.end(body === undefined ? undefined : JSON.stringify(body));
    });
}

const refusesConnections = (port: number) =>
  new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve('accepted')));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });

// Long enough for the requests sent during the shutdown to be answered on a loaded machine.
const SHUTDOWN_GRACE_MS = 8000;

describe('SIGTERM', () => {
  let databaseUrl: string;
  let cleanup: () => Promise<void>;
  let service: ServiceProcess | null = null;
  let agentServer: AgentServer;

  before(async () => {
    ({ databaseUrl, cleanup } = await processDatabase('shutdown'));
    // An agent that takes the webhook and never answers: the delivery is still in flight at SIGTERM.
    agentServer = await startAgentServer(() => 'hang');
  });
  after(async () => {
    service?.child.kill('SIGKILL');
    await agentServer?.close();
    await cleanup();
  });

  /** The service on its own port, started and ready; resolves with its address and its exit. */
  async function startService(env: Record<string, string>) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    service = spawnService(port, databaseUrl, { PUBLIC_URL: base, ALLOW_PRIVATE_ENDPOINTS: 'true', ...env });
    await untilServing(base, '/ready');
    return { port, base, running: service.child, exited: service.exited };
  }

  it('answers a held long poll with a retry hint, ends event streams, answers on open connections, refuses new ones, hands back its webhook and exits', async () => {
    const { port, base, running, exited } = await startService({ SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS), WEBHOOK_TIMEOUT_MS: '60000' });
    const api = overHttpOnly(base);
    const owner = await api.signup();

    const webhookAgent = await readyWebhookAgent(api, owner.token, agentServer.url);
    const task = await submitTask(api, owner.token, { agentId: webhookAgent.id, capabilities: ['text-summarization'] });
    await agentServer.waitFor(1, 30_000);

    const pollAgent = await registerAgent(api, owner.token, { deliveryMode: 'poll', endpoint: undefined });
    const events = await openEvents(base, owner.token);
    assert.equal(events.status, 200);
    const poll = fetch(`${base}/v1/agents/${pollAgent.id}/tasks/poll?wait=30`, { headers: { authorization: `Bearer ${owner.token}` } });
    // Two connections a proxy keeps open to the node, idle at SIGTERM.
    const proxyConnections = [keptAliveConnection(base), keptAliveConnection(base)];
    const opened = await Promise.all(proxyConnections.map((send) => send('GET', '/health')));
    assert.deepEqual(
      opened.map(({ status, connection }) => [status, connection]),
      [
        [200, 'keep-alive'],
        [200, 'keep-alive'],
      ],
    );
    // The poll is being held once the node has had time to take it; it has nothing queued.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const signalled = Date.now();
    running.kill('SIGTERM');
    const answer = await poll;
    assert.equal(answer.status, 200);
    assert.deepEqual(await answer.json(), { data: [] });
    assert.equal(answer.headers.get('retry-after'), '0');

    // Shutting down now: requests still arrive on the open connections. The node answers them as
    // usual, asks the client to close the connection, and says it is not ready for more traffic.
    const [ready, signup] = await Promise.all([
      proxyConnections[0]!('GET', '/ready'),
      proxyConnections[1]!('POST', '/v1/auth/signup', { email: 'late@example.test', password: 'correct horse battery' }),
    ]);
    assert.deepEqual(ready, { status: 503, connection: 'close', localPort: opened[0]!.localPort });
    assert.deepEqual(signup, { status: 201, connection: 'close', localPort: opened[1]!.localPort });
    // A new connection is refused: a proxy sends its request to another node.
    assert.equal(await refusesConnections(port), 'ECONNREFUSED');
    await waitFor(
      'the event stream to end',
      () => events.ended(),
      (ended) => ended,
      { timeoutMs: 15_000 },
    );
    assert.equal(await exited, 0);
    // The grace, plus the time to close the database and end the process (seconds on a loaded machine).
    assert.ok(Date.now() - signalled < SHUTDOWN_GRACE_MS + 5000, `exited ${Date.now() - signalled} ms after SIGTERM`);

    const handle = openDatabase({ url: databaseUrl });
    try {
      const job = await handle.db.selectFrom('task_deliveries').select(['state', 'lease_until']).where('task_id', '=', task.id).executeTakeFirstOrThrow();
      assert.deepEqual(job, { state: 'pending', lease_until: null }, 'the webhook job is due again, for whichever node runs next');
    } finally {
      await handle.close();
    }
  });

  it('does not wait out a long grace for a client that keeps an idle connection open', async () => {
    const graceMs = 120_000;
    const { base, running, exited } = await startService({ SHUTDOWN_GRACE_MS: String(graceMs) });
    // A monitor that keeps its connection between checks, idle at SIGTERM and never closing it.
    const monitor = keptAliveConnection(base);
    assert.equal((await monitor('GET', '/health')).status, 200);
    const signalled = Date.now();
    running.kill('SIGTERM');
    assert.equal(await exited, 0);
    // Waiting for the client to close it would have taken the whole grace.
    assert.ok(Date.now() - signalled < graceMs / 2, `exited ${Date.now() - signalled} ms after SIGTERM`);
  });
});
