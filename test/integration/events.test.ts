/**
 * GET /v1/events: a person's task status changes stream to them live, in order, from whichever node
 * made the change; a reconnect with Last-Event-ID replays exactly what it missed, or says `reset`
 * when that is no longer kept.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { agentRow } from '../../bench/lib.ts';
import type { Principal } from '../../src/lib/principal.ts';
import { EVENTS_CHANNEL } from '../../src/modules/events/index.ts';
import { accountsInEventsPayload } from '../../src/modules/tasks/index.ts';
import type { TasksTable } from '../../src/modules/tasks/index.ts';
import { expectError, otherNode, startTestApp, startTestAppAfter, TestClock, type TestApp } from '../helpers/app.ts';
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

/** A stream opened in-process, without a socket or a credential to check again. */
const inProcess = { address: 'in-process', stillValid: () => true, socketBytes: () => 0 };

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

  it('raises the events signal for the requester and the agent owner once each change is stored, several accounts in one', async () => {
    // What the log holds for each account a signal names, read as soon as the signal is heard.
    const heard: Array<Promise<{ account: string; stored: Array<{ taskId: string; status: string }> }>> = [];
    const storedFor = async (account: string) => {
      const rows = await app.database.db.selectFrom('task_status_events').select('data').where('account_id', '=', account).execute();
      return { account, stored: rows.map((row) => JSON.parse(row.data) as { taskId: string; status: string }) };
    };
    const unsubscribe = app.signals.subscribe(EVENTS_CHANNEL, (payload) => {
      for (const account of accountsInEventsPayload(payload)) heard.push(storedFor(account));
    });
    try {
      const { id, token } = await assignedTask(app, requester.token, owner.token, agentId);
      assert.equal((await callback(app, id, { taskToken: token, result: { ok: true } })).statusCode, 200);
      // Each change's signal found the change already stored: read on hearing it, every status is there for both accounts.
      await waitFor(
        'a signal for each account and each change',
        async () => Promise.all(heard),
        (reads) =>
          [requester.accountId, owner.accountId].every((account) =>
            ['matched', 'in_progress', 'completed'].every((status) =>
              reads.some((read) => read.account === account && read.stored.some((event) => event.taskId === id && event.status === status)),
            ),
          ),
      );
    } finally {
      unsubscribe();
    }
  });

  it("takes an agent's callbacks as signs of life, those within a second of the last one written together after it", async () => {
    const first = await assignedTask(app, requester.token, owner.token, agentId);
    const second = await assignedTask(app, requester.token, owner.token, agentId);
    const lastSeen = async () =>
      (await app.database.db.selectFrom('agents').select('last_seen_at').where('id', '=', agentId).executeTakeFirstOrThrow()).last_seen_at;
    clock.advance(60_000);
    assert.equal((await callback(app, first.id, { taskToken: first.token, result: { ok: true } })).statusCode, 200);
    clock.advance(60_000);
    const secondAt = clock.now().toISOString();
    assert.equal((await callback(app, second.id, { taskToken: second.token, result: { ok: true } })).statusCode, 200);
    await waitFor('the later callback written', lastSeen, (at) => at === secondAt);
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
    const kept = (await app.database.db.selectFrom('task_status_events').select(['id', 'data']).execute()).map((row) => ({
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
    for (const lastEventId of ['abc', ' 1', '1 ', '01', '+1', '1e0', '0x1', '\uff11']) {
      expectError(
        await app.request({ method: 'GET', url: '/v1/events', token: requester.token, headers: { 'last-event-id': lastEventId } }),
        400,
        'BAD_REQUEST',
      );
    }
    expectError(await app.request({ method: 'GET', url: '/v1/events?follow=maybe', token: requester.token }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/events?other=1', token: requester.token }), 400, 'BAD_REQUEST');
    const stream = await open(null);
    assert.equal(stream.status, 401);
  });

  it('ends a stream within seconds of its API key being revoked, or its session logged out', async () => {
    const person = await app.signup();
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token: person.token, body: { name: 'stream key' } })).json().data;
    const session = (await app.request({ method: 'POST', url: '/v1/auth/login', body: { email: person.email, password: 'correct horse battery' } })).json().data
      .token as string;
    const byKey = await open(key.key);
    const bySession = await open(session);
    assert.deepEqual([byKey.status, bySession.status], [200, 200]);
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/api-keys/${key.id}`, token: person.token })).statusCode, 200);
    assert.equal((await app.request({ method: 'POST', url: '/v1/auth/logout', token: session })).statusCode, 200);
    await waitFor(
      'both streams to end',
      () => [byKey.ended(), bySession.ended()],
      (ended) => ended.every(Boolean),
      { timeoutMs: 15_000 },
    );
  });

  it("counts the streams of a person's agents' keys under the person", async () => {
    const agent = await pollingAgent(app, owner.token);
    const keyOf = async () =>
      (await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'agent stream', agentId: agent.id } })).json().data
        .key as string;
    const streamsOpen = [await open(owner.token), await open(await keyOf()), await open(await keyOf())];
    assert.deepEqual(
      streamsOpen.map((stream) => stream.status),
      [200, 200, 200],
    );
    expectError(await app.request({ method: 'GET', url: '/v1/events', token: await keyOf() }), 429, 'RATE_LIMITED');
    expectError(await app.request({ method: 'GET', url: '/v1/events', token: owner.token }), 429, 'RATE_LIMITED');
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

  it('holds the caps per person and per address for streams opened at the same moment, and counts every open stream', async () => {
    const person = await app.signup();
    const principalOf = (accountId: string): Principal => ({
      accountId,
      kind: 'person',
      via: 'session',
      credentialId: null,
      agentId: null,
      personId: accountId,
    });
    const openAtOnce = async (count: number, principal: (index: number) => Principal, address: string) => {
      const results = await Promise.allSettled(
        Array.from({ length: count }, (_, index) => app.events.open(principal(index), undefined, true, { ...inProcess, address })),
      );
      const opened = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      for (const result of results) if (result.status === 'rejected') assert.equal((result.reason as { code?: string }).code, 'RATE_LIMITED');
      return opened;
    };
    const totalBefore = app.events.openTotal();

    // One person, one address: the per-person cap (3 here).
    const mine = await openAtOnce(20, () => principalOf(person.accountId), 'one-address');
    assert.equal(mine.length, 3);
    assert.equal(app.events.openCount(person.accountId), 3);

    // Forty people behind one other address (accounts of nobody, whose streams carry nothing): the per-address cap (30).
    const fromOneAddress = await openAtOnce(40, (index) => principalOf(`${person.accountId}-${index}`), 'another-address');
    assert.equal(fromOneAddress.length, 30);
    assert.equal(app.events.openTotal() - totalBefore, 33);

    for (const stream of [...mine, ...fromOneAddress]) stream.close();
    assert.equal(app.events.openTotal(), totalBefore);
  });

  it('ends a stream whose reader stops reading once 256 KiB wait for it, counting what the socket holds; the reader resumes by Last-Event-ID', async () => {
    const person = await app.signup();
    const principal: Principal = { accountId: person.accountId, kind: 'person', via: 'session', credentialId: null, agentId: null, personId: person.accountId };
    const pendingTasks = (from: number, count: number) =>
      Array.from({ length: count }, (_, index) => ({
        id: `stalled-${person.accountId.slice(0, 8)}-${from + index}`,
        requester_id: person.accountId,
        description: 'Summarise this',
        input_extracted: 0 as const,
        capabilities: '[]',
        candidates: '[]',
        candidate_index: 0,
        status: 'pending' as const,
        priority: 'normal' as const,
        created_at: clock.now().toISOString(),
        updated_at: clock.now().toISOString(),
        expires_at: new Date(clock.now().getTime() + 3_600_000).toISOString(),
        currency: 'usd',
      }));

    // A reader that never reads: whatever is written waits in the stream. 3,000 events are about 400 KiB.
    const stalled = await app.events.open(principal, undefined, true, inProcess);
    const total = 3000;
    for (let from = 0; from < total; from += 500) await app.database.db.insertInto('tasks').values(pendingTasks(from, 500)).execute();
    await waitFor(
      'the stalled stream to be ended',
      () => app.events.openCount(person.accountId),
      (count) => count === 0,
    );

    // Reading at last, the client gets part of the events and then the end of the stream.
    let text = '';
    for await (const chunk of stalled.body) text += String(chunk);
    assert.ok(text.length <= 300 * 1024, `about 256 KiB were kept for the reader, not ${text.length} bytes`);
    const first: ServerSentEvent[] = [];
    parseFrames(text, first, []);
    const received = taskStatuses(first).map((event) => event.taskId);
    assert.ok(received.length > 0 && received.length < total, `${received.length} of ${total} events before the end`);

    // It resumes from the last id it saw, as often as it takes, and misses nothing.
    let lastId = first.at(-1)!.id!;
    for (let resumed = 0; resumed < 10 && received.length < total; resumed++) {
      const more = await missedSince(app, person.token, lastId);
      received.push(...taskStatuses(more).map((event) => event.taskId));
      lastId = more.at(-1)!.id!;
    }
    assert.equal(new Set(received).size, total);

    // A stream whose own buffer is read at once, on a socket that holds the bytes (a client that
    // stopped reading, with the kernel's buffers full), is ended just the same.
    let socketHolds = 0;
    const held = await app.events.open(principal, String(lastId), true, { ...inProcess, socketBytes: () => socketHolds });
    held.body.resume();
    assert.equal(app.events.openCount(person.accountId), 1);
    socketHolds = 300 * 1024;
    await app.database.db.insertInto('tasks').values(pendingTasks(total, 1)).execute();
    await waitFor(
      'the stream on a full socket to be ended',
      () => app.events.openCount(person.accountId),
      (count) => count === 0,
    );
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

  it('ends a stream asked for while the node drains at once, with its retry hint and id, so the client resumes on another node', async () => {
    const app = await startTestApp();
    try {
      const person = await app.signup();
      // The node's shutdown has begun (drain); a proxy's kept-alive connection still brings a request.
      await app.events.stop();
      const asked = app.request({ method: 'GET', url: '/v1/events', token: person.token });
      let timer: NodeJS.Timeout | undefined;
      const answer = await Promise.race([asked, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 10_000)))]);
      clearTimeout(timer);
      assert.ok(answer, 'the stream was still open 10 s after it was asked for');
      assert.equal(answer.statusCode, 200);
      assert.match(answer.body, /^retry: \d+\nid: \d+\n\n/);
      assert.equal(app.events.openCount(person.accountId), 0);
    } finally {
      await app.close();
    }
  });
});

describe('migration 0021 on a database that already holds events', () => {
  const requester = 'account-requester';
  const owner = 'account-owner';
  const stranger = 'account-stranger';
  const at = (minute: number) => new Date(Date.parse('2026-11-21T12:00:00.000Z') + minute * 60_000).toISOString();
  const task = (id: string, requesterId: string, status: TasksTable['status'], assignedAgentId: string | null) => ({
    id,
    requester_id: requesterId,
    description: 'Summarise this',
    input_extracted: 0 as const,
    capabilities: '[]',
    assigned_agent_id: assignedAgentId,
    candidates: '[]',
    candidate_index: 0,
    status,
    priority: 'normal' as const,
    created_at: at(0),
    updated_at: at(0),
    expires_at: at(60),
    currency: 'usd',
  });
  const principal = (accountId: string): Principal => ({ accountId, kind: 'person', via: 'session', credentialId: null, agentId: null, personId: accountId });

  it('keeps every event, its id, the pruned horizon and the id sequence, and streams the next status change', async () => {
    type Row = { id: number; account_id: string; data: string };
    let kept: Row[] = [];
    const app = await startTestAppAfter(
      '0019_a2a_delivery',
      async (db) => {
        const person = (id: string) => ({ id, kind: 'person' as const, created_at: at(0) });
        await db
          .insertInto('accounts')
          .values([person(requester), person(owner), person(stranger)])
          .execute();
        const agent = { id: 'agent-1', name: 'Night Owl', slug: 'night-owl', status: 'active' as const, owner_id: owner, registration_pubkey: null };
        await db
          .insertInto('agents')
          .values(agentRow({ ...agent, delivery_mode: 'poll', created_at: at(0), updated_at: at(0) }))
          .execute();
        await db
          .insertInto('tasks')
          .values(task('task-0', requester, 'pending', null))
          .execute();
        await db
          .insertInto('tasks')
          .values(task('task-1', requester, 'matched', 'agent-1'))
          .execute();
        await db
          .updateTable('tasks')
          .set({ status: 'in_progress', updated_at: at(1) })
          .where('id', '=', 'task-1')
          .execute();
        await db
          .insertInto('tasks')
          .values(task('task-2', stranger, 'pending', null))
          .execute();
        const all = async () =>
          (await sql<Row>`SELECT id, account_id, data FROM account_events ORDER BY id`.execute(db)).rows.map((row) => ({ ...row, id: Number(row.id) }));
        assert.deepEqual(
          (await all()).map((row) => row.id),
          [1, 2, 3, 4, 5, 6],
        );
        // The oldest pruned, and the newest gone too (as when every event is pruned): ids must go on
        // from the sequence, not from the rows left.
        await sql`DELETE FROM account_events WHERE id IN (1, 6)`.execute(db);
        await sql`UPDATE account_events_horizon SET pruned_through = 1`.execute(db);
        kept = await all();
      },
      {},
      // The tasks' expiry, an hour after `at(0)`, is never reached.
      { clock: new TestClock(Date.parse(at(0))) },
    );
    try {
      const renamed = await app.database.db.selectFrom('task_status_events').select(['id', 'account_id', 'data']).orderBy('id').execute();
      assert.deepEqual(
        renamed.map((row) => ({ ...row, id: Number(row.id) })),
        kept,
      );

      const missed = async (accountId: string, lastEventId: string) => {
        const stream = await app.events.open(principal(accountId), lastEventId, false, inProcess);
        let text = '';
        for await (const chunk of stream.body) text += String(chunk);
        const events: ServerSentEvent[] = [];
        parseFrames(text, events, []);
        return events;
      };
      const keptFor = (accountId: string, afterId: number) =>
        kept.filter((row) => row.account_id === accountId && row.id > afterId).map((row) => ({ id: row.id, ...(JSON.parse(row.data) as object) }));
      assert.deepEqual(taskStatuses(await missed(requester, '2')), keptFor(requester, 2));
      assert.deepEqual(taskStatuses(await missed(owner, '3')), keptFor(owner, 3));
      assert.deepEqual(keptFor(owner, 3), [{ id: 5, taskId: 'task-1', status: 'in_progress', at: at(1), role: 'agent' }]);
      assert.equal((await missed(requester, '0'))[0]!.event, 'reset', 'an id below the horizon kept from before');

      const live = await app.events.open(principal(requester), '4', true, inProcess);
      const events: ServerSentEvent[] = [];
      let buffer = '';
      live.body.on('data', (chunk) => (buffer = parseFrames(buffer + String(chunk), events, [])));
      try {
        await app.database.db
          .updateTable('tasks')
          .set({ status: 'completed', updated_at: at(2) })
          .where('id', '=', 'task-1')
          .execute();
        // Written past the tasks module, so raised here as its writes raise it after their commit.
        await app.signals.publish(EVENTS_CHANNEL, `${requester},${owner}`);
        const streamed = await waitFor(
          'the completed event',
          () => taskStatuses(events),
          (seen) => seen.length > 0,
        );
        assert.deepEqual(streamed, [{ id: 7, taskId: 'task-1', status: 'completed', at: at(2), role: 'requester' }]);
      } finally {
        live.close();
      }
      assert.deepEqual(taskStatuses(await missed(owner, '5')), [{ id: 8, taskId: 'task-1', status: 'completed', at: at(2), role: 'agent' }]);
    } finally {
      await app.close();
    }
  });
});

describe('GET /v1/events per client address', () => {
  it('caps open streams per address, whoever opens them (EVENTS_MAX_STREAMS_PER_ADDRESS)', async () => {
    const app = await startTestApp({ EVENTS_MAX_STREAMS_PER_ADDRESS: '2' });
    const streams: EventsClient[] = [];
    try {
      const url = await listening(app);
      const people = [await app.signup(), await app.signup(), await app.signup()];
      streams.push(await openEvents(url, people[0]!.token), await openEvents(url, people[1]!.token));
      assert.deepEqual(
        streams.map((stream) => stream.status),
        [200, 200],
      );
      const third = await openEvents(url, people[2]!.token);
      streams.push(third);
      assert.equal(third.status, 429);
    } finally {
      for (const stream of streams) stream.close();
      await app.close();
    }
  });
});
