/**
 * GET /metrics: who may read it (a bearer METRICS_TOKEN, or else only loopback clients as resolved
 * through TRUST_PROXY) and that what the service does shows up in it under the documented names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, dialectUnderTest, type TestApp } from '../helpers/app.ts';
import { newAgentKey, registerAgent } from '../helpers/agents.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';
import { pollingAgent } from '../helpers/payments.ts';
import { makeReceipt } from '../helpers/receipts.ts';
import { readyWebhookAgent, submitTask } from '../helpers/tasks.ts';
import { waitFor } from '../helpers/wait.ts';

const METRICS_TOKEN = 'scrape-token-0123456789abcdef';

function scrape(app: TestApp, from: string, headers: Record<string, string> = {}) {
  return app.server.inject({ method: 'GET', url: '/metrics', remoteAddress: from, headers });
}

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = match[2] ?? '';
    if (Object.entries(labels).every(([key, value]) => present.includes(`${key}="${value}"`))) return Number(match[3]);
  }
  return undefined;
}

describe('metrics without METRICS_TOKEN: loopback clients only, through TRUST_PROXY', () => {
  let app: TestApp;
  let agentServer: AgentServer;
  before(async () => {
    app = await startTestApp({ TRUST_PROXY: '1', ALLOW_PRIVATE_ENDPOINTS: 'true', WEBHOOK_RETRY_BASE_MS: '10' });
    agentServer = await startAgentServer();
  });
  after(async () => {
    await app?.close();
    await agentServer?.close();
  });

  it('answers a client on this host, over IPv4 and IPv6, in Prometheus text format', async () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const response = await scrape(app, address);
      assert.equal(response.statusCode, 200, `${address}: ${response.body}`);
      assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      assert.match(response.body, /^# HELP http_requests_total /m);
      assert.match(response.body, /^# TYPE http_request_duration_seconds histogram$/m);
      // The process's own: memory, GC and event-loop lag.
      assert.ok(sample(response.body, 'process_resident_memory_bytes')! > 0);
      assert.match(response.body, /^nodejs_eventloop_lag_seconds /m);
      assert.match(response.body, /^# TYPE nodejs_gc_duration_seconds histogram$/m);
    }
  });

  it('refuses other clients with 403, also when a proxy on this host forwards them', async () => {
    expectError(await scrape(app, '203.0.113.9'), 403, 'FORBIDDEN');
    expectError(await scrape(app, '2001:db8::1'), 403, 'FORBIDDEN');
    // The proxy connects from loopback; TRUST_PROXY=1 makes the client the address it forwarded.
    expectError(await scrape(app, '127.0.0.1', { 'x-forwarded-for': '203.0.113.9' }), 403, 'FORBIDDEN');
    const refused = await scrape(app, '203.0.113.9');
    assert.doesNotMatch(refused.body, /http_requests_total/);
  });

  it('counts requests by route template and status, never by raw path', async () => {
    const { token } = await app.signup();
    const agent = await registerAgent(app, token);
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${agent.id}`, token })).statusCode, 200);
    assert.equal((await app.request({ method: 'GET', url: '/v1/agents/agt_missing', token })).statusCode, 404);
    const text = (await scrape(app, '127.0.0.1')).body;
    assert.ok(sample(text, 'http_requests_total', { method: 'GET', route: '/v1/agents/:id', status_code: '200' })! >= 1);
    assert.ok(sample(text, 'http_requests_total', { method: 'GET', route: '/v1/agents/:id', status_code: '404' })! >= 1);
    assert.ok(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/v1/agents/:id', status_code: '200' })! >= 1);
    assert.ok(!text.includes(agent.id), 'no raw path in the labels');
    assert.ok(sample(text, 'agentry_db_query_duration_seconds_count', { outcome: 'ok' })! > 0);
    if (dialectUnderTest === 'postgres') assert.ok(sample(text, 'agentry_db_pool_connections', { state: 'idle' }) !== undefined);
    else assert.equal(sample(text, 'agentry_db_pool_connections'), undefined);
  });

  it('shows tasks changing status, long polls held, deliveries and receipts', async () => {
    const { token } = await app.signup();
    const read = async () => (await scrape(app, '127.0.0.1')).body;
    const before = await read();
    const count = (text: string, name: string, labels: Record<string, string> = {}) => sample(text, name, labels) ?? 0;

    // A long poll holds until a task arrives for its agent.
    const poller = await pollingAgent(app, token);
    const polling = app.request({ method: 'GET', url: `/v1/agents/${poller.id}/tasks/poll?wait=20&limit=1`, token });
    await waitFor('the poll to be held', read, (text) => count(text, 'agentry_long_polls_held') === 1);
    await submitTask(app, token, { agentId: poller.id });
    assert.equal((await polling).json().data.length, 1);

    const webhookAgent = await readyWebhookAgent(app, token, agentServer.url);
    await submitTask(app, token, { agentId: webhookAgent.id });
    await agentServer.waitFor(1);
    await app.deliveryWorker.settled();

    const issuer = { agent: 'issuer', key: newAgentKey() };
    const subject = { agent: 'subject', key: newAgentKey() };
    const stored = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: makeReceipt('outcome', issuer, subject) });
    assert.equal(stored.statusCode, 201, stored.body);

    const now = await read();
    const grew = (name: string, labels: Record<string, string> = {}) => count(now, name, labels) - count(before, name, labels);
    assert.equal(count(now, 'agentry_long_polls_held'), 0);
    assert.equal(grew('agentry_task_status_changes_total', { status: 'matched' }), 2);
    assert.equal(grew('agentry_task_status_changes_total', { status: 'in_progress' }), 2);
    assert.equal(grew('agentry_delivery_attempts_total', { mode: 'webhook', outcome: 'delivered' }), 1);
    assert.equal(grew('agentry_receipts_ingested_total', { verified: 'true' }), 1);
    assert.equal(count(now, 'agentry_delivery_queue_depth', { state: 'pending' }), 0);
    assert.equal(count(now, 'agentry_event_streams_open'), 0);
  });
});

describe('metrics with METRICS_TOKEN: the bearer token only', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ METRICS_TOKEN });
  });
  after(() => app?.close());

  it('answers the token from anywhere and refuses anything else with 401, loopback included', async () => {
    assert.equal((await scrape(app, '203.0.113.9', { authorization: `Bearer ${METRICS_TOKEN}` })).statusCode, 200);
    expectError(await scrape(app, '127.0.0.1'), 401, 'UNAUTHORIZED');
    expectError(await scrape(app, '127.0.0.1', { authorization: `Bearer ${METRICS_TOKEN}x` }), 401, 'UNAUTHORIZED');
    expectError(await scrape(app, '127.0.0.1', { authorization: METRICS_TOKEN }), 401, 'UNAUTHORIZED');
    // A person's session is no metrics token.
    const { token } = await app.signup();
    expectError(await scrape(app, '127.0.0.1', { authorization: `Bearer ${token}` }), 401, 'UNAUTHORIZED');
  });

  it('refuses a token too short to be a secret', async () => {
    const { loadConfig, ConfigError } = await import('../../src/config.ts');
    assert.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), ConfigError);
  });
});
