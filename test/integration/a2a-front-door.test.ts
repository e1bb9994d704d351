/**
 * The A2A front door with the official @a2a-js/sdk client, made from the service's own agent card
 * over real HTTP: a message becomes a routed task that a webhook agent on loopback does, and the
 * client reads it back as an A2A task, blocking, streaming, listed and cancelled.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Role, TaskState, type Message, type Part, type StreamResponse, type Task as A2aTask } from '@a2a-js/sdk';
import { ClientFactory, type Client, type RequestOptions } from '@a2a-js/sdk/client';
import {
  JsonRpcTransportError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startAgentServer, type AgentServer, type ReceivedWebhook } from '../helpers/agent-server.ts';
import { freePort } from '../helpers/processes.ts';
import { readyWebhookAgent, taskOf } from '../helpers/tasks.ts';
import { waitFor } from '../helpers/wait.ts';

let messageCounter = 0;
const text = (value: string): Part => ({ content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: undefined });
const data = (value: unknown): Part => ({ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined });
const message = (parts: Part[], metadata?: Record<string, unknown>): Message => ({
  messageId: `msg-${process.pid}-${messageCounter++}`,
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts,
  metadata,
  extensions: [],
  referenceTaskIds: [],
});
const send = (msg: Message, returnImmediately = false) => ({
  tenant: '',
  message: msg,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: undefined,
});
const asTask = (reply: A2aTask | Message): A2aTask => {
  assert.ok('status' in reply, `expected a task, got ${JSON.stringify(reply)}`);
  return reply;
};
const dataOf = (part: Part | undefined) => (part?.content?.$case === 'data' ? part.content.value : undefined);
const textOf = (part: Part | undefined) => (part?.content?.$case === 'text' ? part.content.value : undefined);

/** Answers a webhook's callback as the agent would: the result names what it was given. */
async function callBack(webhook: ReceivedWebhook, result?: unknown) {
  const { callbackUrl, taskToken, description, input } = webhook.json as { callbackUrl: string; taskToken: string; description: string; input: unknown };
  const response = await fetch(callbackUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ taskToken, result: result ?? { summary: `done: ${description}`, input } }),
  });
  assert.equal(response.status, 200, await response.text());
}

describe('A2A front door: the official client gives the registry work', () => {
  let app: TestApp;
  let baseUrl: string;
  let client: Client;
  let requester: { token: string };
  let stranger: { token: string };
  let owner: { token: string };
  /** Does the work at once: calls back right after taking the webhook. */
  let worker: AgentServer;
  /** Takes tasks and keeps them until the test calls back. */
  let holder: AgentServer;
  let workerAgent: { id: string };
  let holderAgent: { id: string };
  const as = (who: { token: string }): RequestOptions => ({ serviceParameters: { Authorization: `Bearer ${who.token}` } });

  before(async () => {
    // The card names PUBLIC_URL, so the service listens where its card says, and callbacks come back to it.
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    app = await startTestApp({
      ALLOW_PRIVATE_ENDPOINTS: 'true',
      WEBHOOK_RETRY_BASE_MS: '20',
      WEBHOOK_TIMEOUT_MS: '2000',
      DELIVERY_POLL_INTERVAL_MS: '20',
      PUBLIC_URL: baseUrl,
      EVENTS_MAX_STREAMS_PER_ACCOUNT: '2',
    });
    await app.server.listen({ host: '127.0.0.1', port });
    requester = await app.signup();
    stranger = await app.signup();
    owner = await app.signup();
    worker = await startAgentServer((webhook) => {
      setImmediate(() => void callBack(webhook));
      return { status: 200, body: '{"ok":true}' };
    });
    holder = await startAgentServer();
    workerAgent = await readyWebhookAgent(app, owner.token, worker.url, {
      name: `Haiku Smith ${process.pid}`,
      description: 'Writes haiku poems about any topic you give it, in three short lines.',
      capabilities: ['haiku-writing'],
    });
    holderAgent = await readyWebhookAgent(app, owner.token, holder.url, { capabilities: ['slow-review'] });
    client = await new ClientFactory().createFromUrl(baseUrl);
  });
  after(async () => {
    await app.close();
    await Promise.all([worker.close(), holder.close()]);
  });

  it('the card names the JSON-RPC interface the client picked', async () => {
    const card = await client.getAgentCard();
    assert.deepEqual(
      card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion]),
      [[`${baseUrl}/a2a`, 'JSONRPC', '1.0']],
    );
    assert.equal(card.capabilities?.streaming, true);
    assert.equal(client.protocolVersion, '1.0');
    // Signed with the instance key (checked in signed-cards.test.ts).
    assert.equal(card.signatures.length, 1);
  });

  it('SendMessage with text and a data part, naming the agent, answers the completed task with the result as its artifact', async () => {
    const reply = asTask(
      await client.sendMessage(send(message([text('Write a haiku'), text('about autumn leaves')], { agentId: workerAgent.id }), false), as(requester)),
    );
    // Blocking (the client's default): the answer comes once the agent has called back.
    assert.equal(reply.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(reply.contextId, reply.id);
    assert.deepEqual(dataOf(reply.artifacts[0]?.parts[0]), { summary: 'done: Write a haiku\n\nabout autumn leaves', input: null });
    assert.equal(reply.metadata?.agentryStatus, 'completed');
    assert.equal(reply.metadata?.assignedAgent.id, workerAgent.id);
    // Who the agent is proven to be comes with it.
    assert.deepEqual([reply.metadata?.assignedAgent.identityLevel, reply.metadata?.assignedAgent.verifiedDomain], ['none', null]);
    // The A2A task is our task: the same id over /v1.
    const ours = await taskOf(app, requester.token, reply.id);
    assert.equal(ours.status, 'completed');
    assert.equal(ours.description, 'Write a haiku\n\nabout autumn leaves');

    const withInput = asTask(
      await client.sendMessage(send(message([text('A haiku on this'), data({ topic: 'rain' })], { capabilities: ['haiku-writing'] })), as(requester)),
    );
    assert.equal(withInput.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(dataOf(withInput.artifacts[0]?.parts[0]), { summary: 'done: A haiku on this', input: { topic: 'rain' } });
    assert.deepEqual((await taskOf(app, requester.token, withInput.id)).input, { topic: 'rain' });

    const again = asTask(await client.getTask({ tenant: '', id: withInput.id }, as(requester)));
    assert.deepEqual(again, withInput);
  });

  it('text only is routed by discovery; words no agent matches are rejected', async () => {
    const routed = asTask(await client.sendMessage(send(message([text('Write me a haiku poem about the sea')])), as(requester)));
    assert.equal(routed.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(routed.status));
    assert.equal(routed.metadata?.assignedAgent.id, workerAgent.id);

    const nobody = asTask(await client.sendMessage(send(message([text('purple elephant dancing on the moon')])), as(requester)));
    // Should this fail, what discovery made of the words says why: the task and its ranking.
    const explain = async () =>
      JSON.stringify({
        task: nobody.metadata,
        discovery: (
          await app.request({
            method: 'GET',
            url: `/v1/discover?q=${encodeURIComponent('purple elephant dancing on the moon')}`,
            token: requester.token,
          })
        ).body,
      });
    if (nobody.status?.state !== TaskState.TASK_STATE_REJECTED) assert.fail(`words no agent offers were routed: ${await explain()}`);
    assert.match(textOf(nobody.status?.message?.parts[0]) ?? '', /close match/);
    assert.equal(nobody.metadata?.agentryStatus, 'unmatched');
  });

  it('streams the task: submitted, working, then the result and completed', async () => {
    const events: StreamResponse[] = [];
    const stream = client.sendMessageStream(send(message([text('Review this slowly')], { agentId: holderAgent.id })), as(requester));
    const next = async () => {
      const { value, done } = await stream.next();
      assert.ok(!done, 'the stream ended early');
      events.push(value);
      return value;
    };
    const first = await next();
    assert.equal(first.payload?.$case, 'task');
    const task = first.payload.value as A2aTask;
    assert.equal(task.status?.state, TaskState.TASK_STATE_SUBMITTED);
    const working = await next();
    assert.equal(working.payload?.$case, 'statusUpdate');
    assert.equal(working.payload.value.status?.state, TaskState.TASK_STATE_WORKING);

    const webhook = (await holder.waitFor(holder.received.length)).find((hook) => (hook.json as { taskId: string }).taskId === task.id);
    assert.ok(webhook);
    await callBack(webhook, 'A slow and careful review');
    const artifact = await next();
    assert.equal(artifact.payload?.$case, 'artifactUpdate');
    assert.equal(textOf(artifact.payload.value.artifact?.parts[0]), 'A slow and careful review');
    const done = await next();
    assert.equal(done.payload?.$case, 'statusUpdate');
    assert.equal(done.payload.value.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal((await stream.next()).done, true);
  });

  it('SubscribeToTask follows a task already under way; CancelTask cancels it and ends the stream', async () => {
    const started = asTask(await client.sendMessage(send(message([text('Review this too')], { agentId: holderAgent.id }), true), as(requester)));
    assert.equal(started.status?.state, TaskState.TASK_STATE_SUBMITTED);
    const stream = client.resubscribeTask({ tenant: '', id: started.id }, as(requester));
    const first = (await stream.next()).value as StreamResponse;
    assert.equal(first.payload?.$case, 'task');

    const cancelled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined }, as(requester));
    assert.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED);
    const events: StreamResponse[] = [];
    for await (const event of stream) events.push(event);
    assert.equal(events.at(-1)?.payload?.$case, 'statusUpdate');
    assert.equal((events.at(-1)?.payload?.value as { status: { state: TaskState } }).status.state, TaskState.TASK_STATE_CANCELED);

    await assert.rejects(client.cancelTask({ tenant: '', id: started.id, metadata: undefined }, as(requester)), TaskNotCancelableError);
    await assert.rejects(async () => {
      for await (const _ of client.resubscribeTask({ tenant: '', id: started.id }, as(requester)));
    }, UnsupportedOperationError);
  });

  it('ListTasks pages through the caller’s own tasks with a cursor', async () => {
    const mine = await app.signup();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(asTask(await client.sendMessage(send(message([text(`Review number ${i}`)], { agentId: holderAgent.id }), true), as(mine))).id);
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await client.listTasks(
        { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 2, pageToken, statusTimestampAfter: undefined },
        as(mine),
      );
      assert.equal(page.totalSize, 3);
      seen.push(...page.tasks.map((task) => task.id));
      pageToken = page.nextPageToken;
      pages++;
    } while (pageToken);
    assert.equal(pages, 2);
    assert.deepEqual(seen, [...ids].reverse());
    const strangers = await client.listTasks(
      { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined },
      as(stranger),
    );
    for (const id of ids) assert.ok(!strangers.tasks.some((task) => task.id === id));
    await assert.rejects(
      client.listTasks(
        { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: 'not-ours', statusTimestampAfter: undefined },
        as(mine),
      ),
      RequestMalformedError,
    );
  });

  it("someone else's task is not found, to read, cancel or follow; the assigned agent's owner included", async () => {
    const theirs = asTask(await client.sendMessage(send(message([text('Private review')], { agentId: holderAgent.id }), true), as(requester)));
    for (const who of [stranger, owner]) {
      await assert.rejects(client.getTask({ tenant: '', id: theirs.id }, as(who)), TaskNotFoundError);
      await assert.rejects(client.cancelTask({ tenant: '', id: theirs.id, metadata: undefined }, as(who)), TaskNotFoundError);
      await assert.rejects(async () => {
        for await (const _ of client.resubscribeTask({ tenant: '', id: theirs.id }, as(who)));
      }, TaskNotFoundError);
    }
    assert.equal((await taskOf(app, requester.token, theirs.id)).status, 'in_progress');
    await assert.rejects(client.getTask({ tenant: '', id: '00000000-0000-4000-8000-000000000000' }, as(requester)), TaskNotFoundError);
  });

  it('without a credential, or with a bad one, the answer is a 401 that is also a JSON-RPC error', async () => {
    await assert.rejects(client.sendMessage(send(message([text('Anything')]))), (error: unknown) => {
      assert.ok(error instanceof JsonRpcTransportError, String(error));
      assert.equal(error.envelopeCode, -32000);
      assert.match(error.message, /Bearer/);
      return true;
    });
    const response = await fetch(`${baseUrl}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-real-token', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'x' } }),
    });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
    const body = await response.json();
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.error.code, -32000);
    assert.equal(body.error.data[0].reason, 'UNAUTHENTICATED');
  });

  it('bad requests are typed JSON-RPC errors, never a 500', async () => {
    const refuse = (parts: Part[], metadata?: Record<string, unknown>) => client.sendMessage(send(message(parts, metadata)), as(requester));
    await assert.rejects(refuse([data({ topic: 'rain' })]), (error: Error) => error instanceof RequestMalformedError && /text part/.test(error.message));
    await assert.rejects(refuse([text('a'), data({ a: 1 }), data({ b: 2 })]), RequestMalformedError);
    await assert.rejects(refuse([text('a'), data([1, 2])]), RequestMalformedError);
    await assert.rejects(
      refuse([text('a')], { capabilities: 'haiku' }),
      (error: Error) => error instanceof RequestMalformedError && /metadata\.capabilities/.test(error.message),
    );
    await assert.rejects(refuse([text('a')], { agentId: '00000000-0000-4000-8000-000000000000' }), RequestMalformedError);
    await assert.rejects(
      refuse([{ content: { $case: 'url', value: 'https://example.com/a.pdf' }, mediaType: 'application/pdf', filename: 'a.pdf', metadata: undefined }]),
      /File parts/,
    );
    await assert.rejects(
      client.sendMessage({ ...send(message([text('a')])), message: { ...message([text('a')]), taskId: 'abc' } }, as(requester)),
      UnsupportedOperationError,
    );
    await assert.rejects(
      client.sendMessage(
        {
          ...send(message([text('a')])),
          configuration: {
            acceptedOutputModes: [],
            returnImmediately: true,
            taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url: 'https://example.com/hook', token: '', authentication: undefined },
          },
        },
        as(requester),
      ),
      PushNotificationNotSupportedError,
    );

    const raw = async (body: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${baseUrl}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${requester.token}`, 'a2a-version': '1.0', ...headers },
        body,
      });
      return { status: response.status, body: await response.json() };
    };
    for (const notARequest of [
      '[]',
      '"GetTask"',
      '{}',
      '{"jsonrpc":"2.0","id":7}',
      '{"jsonrpc":"1.0","id":7,"method":"GetTask"}',
      '{"jsonrpc":"2.0","id":{},"method":"GetTask"}',
    ]) {
      const refused = await raw(notARequest);
      assert.deepEqual([refused.status, refused.body.error?.code], [400, -32600], notARequest);
    }
    const unversioned = await fetch(`${baseUrl}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${requester.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'GetTask', params: { id: 'x' } }),
    });
    assert.deepEqual([unversioned.status, (await unversioned.json()).error.code], [200, -32009], 'a request without A2A-Version is an A2A 0.3 one');
    const unknown = await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: {} }));
    assert.deepEqual([unknown.status, unknown.body.error.code], [200, -32601]);
    const notJson = await raw('{"jsonrpc":');
    assert.deepEqual([notJson.status, notJson.body.error.code], [400, -32700]);
    const oldVersion = await raw(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'x' } }), { 'a2a-version': '0.3' });
    assert.deepEqual([oldVersion.status, oldVersion.body.error.code, oldVersion.body.id], [200, -32009, 2]);
    const nulId = await raw(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'GetTask', params: { id: 'a\u0000b' } }));
    assert.deepEqual([nulId.status, nulId.body.error.code], [200, -32001]);
    const forgedToken = Buffer.from(JSON.stringify({ c: '2026\u0000', i: 'x' })).toString('base64url');
    const forged = await raw(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ListTasks', params: { pageToken: forgedToken } }));
    assert.deepEqual([forged.status, forged.body.error.code], [200, -32602]);
    const noParams = await raw(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: '' } }));
    assert.deepEqual([noParams.status, noParams.body.error.code], [200, -32602]);
    const nul = await raw(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'SendMessage',
        params: { message: { messageId: 'm-nul', role: 'ROLE_USER', parts: [{ text: 'a\u0000b' }] } },
      }),
    );
    assert.deepEqual([nul.status, nul.body.error.code], [200, -32602]);
  });

  it("a person's streams are capped with their /v1/events streams; one over is refused, and a closed one frees its place", async () => {
    const person = await app.signup();
    const held = asTask(await client.sendMessage(send(message([text('Hold this one')], { agentId: holderAgent.id }), true), as(person)));
    const open = (controller: AbortController) => client.resubscribeTask({ tenant: '', id: held.id }, { ...as(person), signal: controller.signal });
    const first = new AbortController();
    const second = new AbortController();
    assert.equal((await open(first).next()).value?.payload?.$case, 'task');
    assert.equal((await open(second).next()).value?.payload?.$case, 'task');
    const overCap = (error: unknown) => error instanceof JsonRpcTransportError && error.envelopeCode === -32000 && /open streams/.test(error.message);
    await assert.rejects(open(new AbortController()).next(), overCap);
    // A streaming submission over the cap is refused before it creates a task.
    const count = async () =>
      (
        await client.listTasks(
          { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined },
          as(person),
        )
      ).totalSize;
    await assert.rejects(client.sendMessageStream(send(message([text('One more')], { agentId: holderAgent.id })), as(person)).next(), overCap);
    assert.equal(await count(), 1);

    first.abort();
    await waitFor(
      'the closed stream to free its place',
      async () => {
        const probe = new AbortController();
        try {
          return (await open(probe).next()).value?.payload?.$case === 'task';
        } catch {
          return false;
        } finally {
          probe.abort();
        }
      },
      (opened) => opened,
    );
    second.abort();
  });

  it('the same messageId sent again answers the same task', async () => {
    const msg = message([text('Write a haiku about retries')], { agentId: workerAgent.id });
    const first = asTask(await client.sendMessage(send(msg), as(requester)));
    const second = asTask(await client.sendMessage(send(msg), as(requester)));
    assert.equal(second.id, first.id);
    await assert.rejects(client.sendMessage(send({ ...msg, parts: [text('Something else')] }), as(requester)), RequestMalformedError);
  });
});
