/**
 * GET /v1/events: a person's task status changes stream to them live, in order, from whichever node
 * made the change; a reconnect with Last-Event-ID replays exactly what it missed, or says `reset`
 * when that is no longer kept.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { expectError, otherNode, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { openEvents, parseFrames, taskStatuses, type EventsClient, type ServerSentEvent } from '../helpers/events.ts';
import { assignedTask, callback, pollingAgent } from '../helpers/payments.ts';
import { submitTask } from '../helpers/tasks.ts';
import { waitFor } from '../helpers/wait.ts';

async function listening(app: TestApp): Promise<string> {
  await app.server.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
}

/** Reads the events after `lastEventId` without following (the response ends). */
async function missedSince(app: TestApp, token: string, lastEventId: string | null) {
  const response = await app.request({
    method: 'GET',
    url: '/v1/events?follow=false',
    token,
    headers: lastEventId === null ? {} : { 'last-event-id': lastEventId },
  });
  assert.equal(response.statusCode, 200, response.body);
  const events: ServerSentEvent[] = [];
  parseFrames(response.body, events, []);
  return events;
}

const statusesOf = (events: ServerSentEvent[], taskId: string) =>
  taskStatuses(events)
    .filter((event) => event.taskId === taskId)
    .map((event) => event.status);

describe('GET /v1/events', () => {
  let app: TestApp;
  let url: string;
  const clock = new TestClock();
  const streams: EventsClient[] = [];
  let requester: { token: string; accountId: string };
  let owner: { token: string; accountId: string };
  let agentId: string;

  before(async () => {
    app = await startTestApp({ EVENTS_RETENTION_MINUTES: '30', EVENTS_MAX_STREAMS_PER_ACCOUNT: '3', EVENTS_HEARTBEAT_SECONDS: '1' }, { clock });
    url = await listening(app);
    requester = await app.signup();
    owner = await app.signup();
    agentId = (await pollingAgent(app, owner.token)).id;
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await waitFor(
      'streams of the test to be let go',
      () => app.events.openCount(requester.accountId) + app.events.openCount(owner.accountId),
      (count) => count === 0,
    );
  });
  after(() => app.close());
  const open = async (token: string | null, headers: Record<string, string> = {}, query = '') => {
    const stream = await openEvents(url, token, headers, query);
    streams.push(stream);
    return stream;
  };

  it("streams the requester's task through matched, in_progress and completed, in order, and the agent owner's too", async () => {
    const mine = await open(requester.token);
    const owners = await open(owner.token);
    assert.equal(mine.status, 200);
    assert.match(mine.headers.get('content-type') ?? '', /^text\/event-stream/);
    const { id, token } = await assignedTask(app, requester.token, owner.token, agentId);
    assert.equal((await callback(app, id, { taskToken: token, result: { summary: 'done' } })).statusCode, 200);

    const done = (events: ServerSentEvent[]) => statusesOf(events, id).includes('completed');
    const seen = taskStatuses(await mine.until('the completed event', done)).filter((event) => event.taskId === id);
    assert.deepEqual(
      seen.map((event) => event.status),
      ['matched', 'in_progress', 'completed'],
    );
    assert.ok(seen.every((event) => event.role === 'requester' && typeof event.at === 'string'));
    assert.ok(
      seen.every((event, index) => index === 0 || event.id > seen[index - 1]!.id),
      'ids increase',
    );
    const ownerSeen = taskStatuses(await owners.until("the owner's completed event", done)).filter((event) => event.taskId === id);
    assert.deepEqual(
      ownerSeen.map((event) => [event.status, event.role]),
      [
        ['matched', 'agent'],
        ['in_progress', 'agent'],
        ['completed', 'agent'],
      ],
    );
  });

  it("never shows another account's tasks", async () => {
    const stranger = await app.signup();
    const strangers = await open(stranger.token);
    const { id, token } = await assignedTask(app, requester.token, owner.token, agentId);
    await callback(app, id, { taskToken: token, error: { code: 'nope', message: 'no' } });
    // The stranger's own task, made after the other one, is the marker that the stream has caught up.
    const own = await submitTask(app, stranger.token, { agentId });
    await strangers.until("the stranger's own task", (events) => statusesOf(events, own.id).length > 0);
    assert.deepEqual(statusesOf(strangers.events, id), []);
    assert.deepEqual(statusesOf(await missedSince(app, stranger.token, '0'), id), []);
  });

  it('resumes after Last-Event-ID with exactly the events missed', async () => {
    // An agent of its own, so the poll below takes this test's task and no other.
    const agentId = (await pollingAgent(app, owner.token)).id;
    const first = await open(requester.token);
    const task = await submitTask(app, requester.token, { agentId });
    const [matched] = taskStatuses(await first.until('matched', (events) => statusesOf(events, task.id).length === 1));
    first.close();
    const polled = await app.request({ method: 'GET', url: `/v1/agents/${agentId}/tasks/poll?wait=0&limit=1`, token: owner.token });
    const taskToken = polled.json().data[0].taskToken as string;
    await callback(app, task.id, { taskToken, result: { ok: true } });

    const missed = taskStatuses(await missedSince(app, requester.token, String(matched!.id)));
    assert.deepEqual(
      missed.map((event) => [event.taskId, event.status]),
      [
        [task.id, 'in_progress'],
        [task.id, 'completed'],
      ],
    );
    // A live stream resumes the same way.
    const resumed = await open(requester.token, { 'last-event-id': String(matched!.id) });
    const live = await resumed.until('the missed events', (events) => statusesOf(events, task.id).length === 2);
    assert.deepEqual(statusesOf(live, task.id), ['in_progress', 'completed']);
  });

  it('answers an id older than what is kept with reset, and prunes old events', async () => {
    const task = await submitTask(app, requester.token, { agentId });
    const [event] = taskStatuses(await missedSince(app, requester.token, '0')).filter((e) => e.taskId === task.id);
    clock.advance(31 * 60_000);
    const later = await submitTask(app, requester.token, { agentId });
    await app.events.prune();
    const kept = (await app.database.db.selectFrom('account_events').select(['id', 'data']).execute()).map((row) => ({
      id: Number(row.id),
      ...(JSON.parse(row.data) as { taskId: string }),
    }));
    assert.ok(!kept.some((e) => e.taskId === task.id), 'the old event is gone');
    assert.ok(
      kept.some((e) => e.taskId === later.id),
      'the recent event is kept',
    );

    const answer = await missedSince(app, requester.token, String(event!.id));
    assert.equal(answer.length, 1, JSON.stringify(answer));
    assert.equal(answer[0]!.event, 'reset');
    assert.ok(Number(answer[0]!.id) >= Number(kept.find((e) => e.taskId === later.id)!.id), 'the reset carries an id to go on from');
    const live = await open(requester.token, { 'last-event-id': String(event!.id) });
    await live.until('reset', (events) => events.some((e) => e.event === 'reset'));
    // An id from the future (events cleared since) is a reset too.
    assert.equal((await missedSince(app, requester.token, '999999999'))[0]!.event, 'reset');
  });

  it('starts a fresh stream at the newest event, with its id, and sends keep-alive comments', async () => {
    const stream = await open(requester.token);
    const [start] = await stream.until('the starting id', (events) => events.length > 0);
    assert.equal(start!.event, null);
    assert.match(start!.id ?? '', /^\d+$/);
    await stream.until('a keep-alive comment', () => stream.comments.includes('keep-alive'));
  });

  it('refuses a missing or bad credential and bad input with JSON errors', async () => {
    expectError(await app.request({ method: 'GET', url: '/v1/events' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/events', token: 'ags_not-a-session' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/events', token: requester.token, headers: { 'last-event-id': 'abc' } }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/events?follow=maybe', token: requester.token }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/events?other=1', token: requester.token }), 400, 'BAD_REQUEST');
    const stream = await open(null);
    assert.equal(stream.status, 401);
  });

  it('caps open streams per account and frees a place when one closes', async () => {
    const person = await app.signup();
    const three = [await open(person.token), await open(person.token), await open(person.token)];
    assert.deepEqual(
      three.map((stream) => stream.status),
      [200, 200, 200],
    );
    const refused = await app.request({ method: 'GET', url: '/v1/events', token: person.token });
    expectError(refused, 429, 'RATE_LIMITED');
    // Catching up without following is not a stream that stays open.
    assert.equal((await app.request({ method: 'GET', url: '/v1/events?follow=false', token: person.token })).statusCode, 200);
    three[0]!.close();
    await waitFor(
      'the closed stream to be let go',
      () => app.events.openCount(person.accountId),
      (count) => count === 2,
    );
    assert.equal((await open(person.token)).status, 200);
  });

  it('hears a status change made by another node on the same database', async () => {
    const node = await otherNode(app, { overrides: { clock } });
    try {
      const stream = await open(requester.token);
      await stream.until('the starting id', (events) => events.length > 0);
      const task = await submitTask(node, requester.token, { agentId });
      const cancelled = await node.request({ method: 'POST', url: `/v1/tasks/${task.id}/cancel`, token: requester.token });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      await stream.until('the cancel from the other node', (events) => statusesOf(events, task.id).includes('cancelled'));
      assert.deepEqual(statusesOf(stream.events, task.id), ['matched', 'cancelled']);
    } finally {
      await node.close();
    }
  });
});

describe('GET /v1/events at shutdown', () => {
  it('ends open streams so the server closes without waiting for them', async () => {
    const app = await startTestApp();
    const url = await listening(app);
    const person = await app.signup();
    const stream = await openEvents(url, person.token);
    await stream.until('the starting id', (events) => events.length > 0);
    await app.close();
    await waitFor('the stream to end', () => stream.ended());
    assert.equal(app.events.openCount(person.accountId), 0);
  });
});
