/**
 * kill -9 in the middle of a webhook delivery, then start again: the delivery resumes, the task is
 * neither lost nor delivered as two different tasks. Runs the real service (src/main.ts) as a child
 * process on a database of its own: a SQLite file, or a fresh PostgreSQL database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';
import { freePort, processDatabase, spawnService, untilServing, type ServiceProcess } from '../helpers/processes.ts';

describe('tasks: kill -9 mid-delivery', () => {
  let databaseUrl: string;
  let cleanup: () => Promise<void>;
  let agent: AgentServer;
  let service: ServiceProcess | null = null;
  let port: number;

  before(async () => {
    ({ databaseUrl, cleanup } = await processDatabase('crash'));
    port = await freePort();
    agent = await startAgentServer(() => 'hang');
  });
  after(async () => {
    service?.child.kill('SIGKILL');
    await agent.close();
    await cleanup();
  });

  async function startService(): Promise<string> {
    service = spawnService(port, databaseUrl, {
      ALLOW_PRIVATE_ENDPOINTS: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_BASE_MS: '50',
      DELIVERY_POLL_INTERVAL_MS: '50',
    });
    await untilServing(service.base);
    return service.base;
  }

  const call = async (base: string, method: string, path: string, token?: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: (await response.json()) as { data: Record<string, unknown> & { id: string; token: string; secret: string } } };
  };

  it('the delivery resumes after a restart; the task arrives again as itself, once', async () => {
    let base = await startService();
    const owner = (await call(base, 'POST', '/v1/auth/signup', undefined, { email: 'owner@example.test', password: 'correct horse battery' })).json.data.token;
    const requester = (await call(base, 'POST', '/v1/auth/signup', undefined, { email: 'req@example.test', password: 'correct horse battery' })).json.data
      .token;
    const registered = await call(base, 'POST', '/v1/agents', owner, {
      name: 'Crash Test Agent',
      description: 'Summarises',
      endpoint: agent.url,
      protocols: ['rest'],
      categories: ['productivity'],
      capabilities: ['summarize'],
    });
    assert.equal(registered.status, 201);
    const agentId = registered.json.data.id;
    await call(base, 'POST', `/v1/agents/${agentId}/webhook-secret`, owner);
    await call(base, 'POST', `/v1/agents/${agentId}/heartbeat`, owner, { status: 'available' });
    const submitted = await call(base, 'POST', '/v1/tasks', requester, { description: 'Summarise the crash report', capabilities: ['summarize'] });
    assert.equal(submitted.status, 201);
    const taskId = submitted.json.data.id;

    const [first] = await agent.waitFor(1);
    // The service is sending the webhook and waiting for the answer: kill it there.
    service!.child.kill('SIGKILL');
    await service!.exited;
    agent.respond = () => ({ status: 200, body: '{}' });

    base = await startService();
    const deliveries = await agent.waitFor(2, 60_000);
    const [again] = deliveries.slice(1);
    assert.equal(again!.json.taskId, taskId);
    assert.equal(again!.headers['webhook-id'], first!.headers['webhook-id'], 'the same delivery, so the agent can drop a duplicate');
    assert.equal(again!.json.taskToken, first!.json.taskToken);

    const callback = await call(base, 'POST', `/v1/tasks/${taskId}/callback`, undefined, { taskToken: again!.json.taskToken, result: { summary: 'survived' } });
    assert.equal(callback.status, 200);
    const task = await call(base, 'GET', `/v1/tasks/${taskId}`, requester);
    assert.equal(task.json.data.status, 'completed');
    const all = (await call(base, 'GET', '/v1/tasks', requester)) as unknown as { json: { data: { id: string }[] } };
    assert.deepEqual(
      all.json.data.map((t) => t.id),
      [taskId],
    );

    // A graceful stop waits for every delivery in flight: after it, the agent has all it will ever get.
    service!.child.kill('SIGTERM');
    await service!.exited;
    service = null;
    assert.equal(agent.received.length, 2, 'the task arrived twice in all: once cut off, once resumed');
    const database = openDatabase({ url: databaseUrl });
    try {
      const jobs = await database.db.selectFrom('task_deliveries').select(['task_id', 'state']).execute();
      assert.deepEqual(jobs, [{ task_id: taskId, state: 'done' }], 'one delivery job, finished: nothing is left to send');
    } finally {
      await database.close();
    }
  });
});
