import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAgentServer, type AgentServer } from '../helpers/agent-server.ts';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { callback, pollingAgent } from '../helpers/payments.ts';
import { readyWebhookAgent, submitTask, taskOf, waitForTask } from '../helpers/tasks.ts';

const LEASE_MS = 60_000;

interface Delivered {
  taskId: string;
  taskToken: string;
  leaseUntil?: string;
}

/**
 * A task a long poll hands out is the agent's for POLL_LEASE_MS: renewed, it stays; not answered or
 * renewed in time (the poll's answer lost with its node), it goes back to the queue and a later poll
 * takes it again, the same task with the same token, so the first answer is the one that counts.
 */
describe('tasks: the poll lease', () => {
  let app: TestApp;
  const clock = new TestClock(Date.now());
  let requester: { token: string };
  let owner: { token: string };
  let agent: { id: string };
  let hookServer: AgentServer;

  // The timer's passes stay away: each test runs the pass itself once the clock has moved.
  before(async () => {
    app = await startTestApp({ POLL_LEASE_MS: String(LEASE_MS), DELIVERY_POLL_INTERVAL_MS: '60000', ALLOW_PRIVATE_ENDPOINTS: 'true' }, { clock });
    requester = await app.signup();
    owner = await app.signup();
    agent = await pollingAgent(app, owner.token, { capabilities: ['lease-check'] });
    hookServer = await startAgentServer();
  });
  after(async () => {
    await app.close();
    await hookServer.close();
  });

  const poll = async (agentId = agent.id, token = owner.token): Promise<Delivered[]> => {
    const response = await app.request({ method: 'GET', url: `/v1/agents/${agentId}/tasks/poll?wait=0&limit=5`, token });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data;
  };
  const renew = (taskId: string, body: unknown) => app.request({ method: 'POST', url: `/v1/tasks/${taskId}/lease`, body });
  /** Moves the clock and runs the pass that requeues lapsed leases (and expires tasks). */
  const after_ = async (ms: number) => {
    clock.advance(ms);
    await app.deliveryWorker.settled();
  };
  /** A task delivered by webhook (no lease), with the token its delivery carried. */
  const webhookTask = async () => {
    const hooked = await readyWebhookAgent(app, owner.token, hookServer.url, { capabilities: ['lease-hook'] });
    const task = await submitTask(app, requester.token, { agentId: hooked.id });
    const webhook = (await hookServer.waitFor(hookServer.received.length + 1)).at(-1);
    await waitForTask(app, requester.token, task.id, (view) => view.status === 'in_progress');
    return { taskId: task.id, taskToken: (webhook!.json as { taskToken: string }).taskToken };
  };
  const taken = async () => {
    const task = await submitTask(app, requester.token, { agentId: agent.id });
    const [delivery] = await poll();
    assert.equal(delivery?.taskId, task.id);
    return delivery;
  };

  it('hands a polled task out under a lease, and takes it back to the queue when the lease runs out', async () => {
    const first = await taken();
    assert.equal(first.leaseUntil, new Date(clock.now().getTime() + LEASE_MS).toISOString());
    assert.equal((await taskOf(app, requester.token, first.taskId)).status, 'in_progress');

    // Not yet run out: nothing changes.
    await after_(LEASE_MS - 1000);
    assert.equal((await taskOf(app, requester.token, first.taskId)).status, 'in_progress');
    assert.deepEqual(await poll(), []);

    await after_(2000);
    const back = await taskOf(app, requester.token, first.taskId);
    assert.equal(back.status, 'matched');
    assert.equal(back.deliveredAt, null);

    // Handed out again: the same task, with the same token, under a new lease.
    const [again] = await poll();
    assert.equal(again?.taskId, first.taskId);
    assert.equal(again.taskToken, first.taskToken);
    assert.equal(again.leaseUntil, new Date(clock.now().getTime() + LEASE_MS).toISOString());

    // The first answer finishes it; the other holder is told it is finished, and nothing counts twice.
    const answered = await callback(app, first.taskId, { taskToken: again.taskToken, result: { text: 'from the second hand-out' } });
    assert.equal(answered.statusCode, 200, answered.body);
    const late = expectError(await callback(app, first.taskId, { taskToken: first.taskToken, result: { text: 'from the first' } }), 409, 'CONFLICT');
    assert.match(late.message, /already completed/);
    const done = await taskOf(app, requester.token, first.taskId);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.result, { text: 'from the second hand-out' });
  });

  it('lets the holder whose lease ran out still answer first, before anyone takes the task again', async () => {
    const first = await taken();
    await after_(LEASE_MS + 1000);
    assert.equal((await taskOf(app, requester.token, first.taskId)).status, 'matched');
    const answered = await callback(app, first.taskId, { taskToken: first.taskToken, result: { text: 'late but first' } });
    assert.equal(answered.statusCode, 200, answered.body);
    assert.deepEqual(await poll(), []);
    assert.equal((await taskOf(app, requester.token, first.taskId)).status, 'completed');
  });

  it('keeps the task with the agent while it renews the lease', async () => {
    const delivery = await taken();
    await after_(LEASE_MS * 0.75);
    const renewed = await renew(delivery.taskId, { taskToken: delivery.taskToken });
    assert.equal(renewed.statusCode, 200, renewed.body);
    assert.deepEqual(renewed.json().data, {
      id: delivery.taskId,
      status: 'in_progress',
      leaseUntil: new Date(clock.now().getTime() + LEASE_MS).toISOString(),
    });

    // Past the first lease, inside the renewed one: still the agent's.
    await after_(LEASE_MS * 0.75);
    assert.equal((await taskOf(app, requester.token, delivery.taskId)).status, 'in_progress');
    assert.deepEqual(await poll(), []);

    // Not renewed again: back in the queue.
    await after_(LEASE_MS);
    assert.equal((await taskOf(app, requester.token, delivery.taskId)).status, 'matched');

    const [again] = await poll();
    assert.equal(again?.taskId, delivery.taskId);
    assert.equal((await callback(app, delivery.taskId, { taskToken: again.taskToken, result: {} })).statusCode, 200);
    const finished = expectError(await renew(delivery.taskId, { taskToken: delivery.taskToken }), 409, 'CONFLICT');
    assert.match(finished.message, /already completed/);
  });

  it('gives the task back to a holder whose renewal came after the lease ran out, while no poll has taken it again', async () => {
    const delivery = await taken();
    // The renewal due at half the lease was lost (its node was killed): the next one comes late.
    await after_(LEASE_MS + 1000);
    assert.equal((await taskOf(app, requester.token, delivery.taskId)).status, 'matched');

    const renewed = await renew(delivery.taskId, { taskToken: delivery.taskToken });
    assert.equal(renewed.statusCode, 200, renewed.body);
    assert.deepEqual(renewed.json().data, {
      id: delivery.taskId,
      status: 'in_progress',
      leaseUntil: new Date(clock.now().getTime() + LEASE_MS).toISOString(),
    });
    const back = await taskOf(app, requester.token, delivery.taskId);
    assert.equal(back.status, 'in_progress');
    assert.equal(back.deliveredAt, clock.now().toISOString());
    // The holder has it: no poll hands it out a second time, and the pass leaves it alone inside the new lease.
    assert.deepEqual(await poll(), []);
    await after_(LEASE_MS / 2);
    assert.equal((await taskOf(app, requester.token, delivery.taskId)).status, 'in_progress');

    assert.equal((await callback(app, delivery.taskId, { taskToken: delivery.taskToken, result: { text: 'done' } })).statusCode, 200);
    assert.equal((await taskOf(app, requester.token, delivery.taskId)).status, 'completed');
  });

  it('renews for either holder once a poll took the task again: the same agent holds the same token', async () => {
    const first = await taken();
    await after_(LEASE_MS + 1000);
    const [again] = await poll();
    assert.equal(again?.taskToken, first.taskToken);
    const renewed = await renew(first.taskId, { taskToken: first.taskToken });
    assert.equal(renewed.statusCode, 200, renewed.body);
    assert.equal(renewed.json().data.status, 'in_progress');
    assert.equal((await callback(app, first.taskId, { taskToken: first.taskToken, result: {} })).statusCode, 200);
  });

  it('takes back no lapsed task for a token that is not its own, and renews no task a webhook delivered', async () => {
    const delivery = await taken();
    const other = await pollingAgent(app, owner.token, { capabilities: ['lease-check'] });
    await submitTask(app, requester.token, { agentId: other.id });
    const [othersTask] = await poll(other.id);
    await after_(LEASE_MS + 1000);
    assert.equal((await taskOf(app, requester.token, delivery.taskId)).status, 'matched');

    expectError(await renew(delivery.taskId, { taskToken: othersTask!.taskToken }), 401, 'UNAUTHORIZED');
    expectError(await renew(delivery.taskId, { taskToken: 'tkt_wrong' }), 401, 'UNAUTHORIZED');
    assert.equal((await taskOf(app, requester.token, delivery.taskId)).status, 'matched');
    const [queued] = await poll();
    assert.equal(queued?.taskId, delivery.taskId);
    assert.equal((await callback(app, delivery.taskId, { taskToken: queued.taskToken, result: {} })).statusCode, 200);
    assert.equal((await callback(app, othersTask!.taskId, { taskToken: othersTask!.taskToken, result: {} })).statusCode, 200);

    const hooked = await webhookTask();
    const refused = expectError(await renew(hooked.taskId, { taskToken: hooked.taskToken }), 409, 'CONFLICT');
    assert.match(refused.message, /not handed out by a poll/);
  });

  it('renews only for the holder of the task token, and refuses bad input with 400', async () => {
    const delivery = await taken();
    const other = await pollingAgent(app, owner.token, { capabilities: ['lease-check'] });
    await submitTask(app, requester.token, { agentId: other.id });
    const [othersTask] = await poll(other.id);

    // Another agent's token, a made-up one, an unknown task: the same answer as the callback gives.
    expectError(await renew(delivery.taskId, { taskToken: othersTask!.taskToken }), 401, 'UNAUTHORIZED');
    expectError(await renew(delivery.taskId, { taskToken: 'tkt_wrong' }), 401, 'UNAUTHORIZED');
    expectError(await renew('no-such-task', { taskToken: delivery.taskToken }), 401, 'UNAUTHORIZED');

    for (const body of [undefined, {}, { taskToken: '' }, { taskToken: 7 }, { taskToken: delivery.taskToken, extra: true }])
      expectError(await renew(delivery.taskId, body), 400, 'BAD_REQUEST');

    // None of that touched the lease.
    await after_(LEASE_MS + 1000);
    assert.equal((await taskOf(app, requester.token, delivery.taskId)).status, 'matched');
  });

  it('does not take back a task whose expiry came first: it expires', async () => {
    const task = await submitTask(app, requester.token, { agentId: agent.id, expiresInMinutes: 1 });
    // The task the previous test left in the queue is handed out too.
    const delivery = (await poll()).find((d) => d.taskId === task.id);
    assert.ok(delivery);
    await after_(LEASE_MS + 1000);
    assert.equal((await taskOf(app, requester.token, task.id)).status, 'expired');
    // An expired task's token no longer counts, for a renewal as for a callback.
    expectError(await renew(task.id, { taskToken: delivery.taskToken }), 401, 'UNAUTHORIZED');
  });
});
