import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import {
  AgentRunner,
  AgentRunnerError,
  AgentryClient,
  AgentryError,
  AgentryNetworkError,
  AgentryTimeoutError,
  KeyFileError,
  agentSignatureHeader,
  buildReceipt,
  canonicalReceiptBytes,
  generateKey,
  inputSchema,
  keyFromSeed,
  loadKey,
  publicKeyString,
  readWebhookRequest,
  saveKey,
  signChallenge,
  signReceipt,
  verifyReceipt,
  verifyWebhook,
  type TaskDelivery,
  WebhookVerificationError,
} from '@agentry/sdk';
import type { TestApp } from '../helpers/app.ts';
import { builtAgentryBin } from '../helpers/built-packages.ts';
import { runAgentry, startAgentry } from '../helpers/cli.ts';
import { deadUrl, startListeningApp } from '../helpers/listening.ts';
import { waitFor } from '../helpers/wait.ts';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors/receipts.json', import.meta.url), 'utf8'));
const seed = (name: 'A' | 'B') => Buffer.from(vectors.keys[name].seedHex, 'hex');
const dir = mkdtempSync(join(tmpdir(), 'agentry-sdk-'));

/**
 * A long-polling runner whose handler holds each task until `release()` and counts its runs, with the
 * outcomes the runner reports; room for a second task, so it polls while the first is in hand.
 */
function heldHandler() {
  let runs = 0;
  const outcomes: string[] = [];
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    outcomes,
    release: () => release(),
    runs: () => runs,
    runner: (client: AgentryClient, agentId: string) =>
      new AgentRunner({
        client,
        agentId,
        pollWaitSeconds: 5,
        concurrency: 2,
        onError: () => {},
        onTask: (event) => outcomes.push(`${event.taskId} ${event.outcome}`),
        handler: async () => {
          runs++;
          await released;
          return { once: true };
        },
      }),
  };
}

describe('keys', () => {
  test('a saved key is PKCS#8 PEM with mode 0600 and loads back to the same public key', () => {
    const key = generateKey();
    const path = join(dir, 'roundtrip.key');
    saveKey(path, key);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.match(readFileSync(path, 'utf8'), /^-----BEGIN PRIVATE KEY-----/);
    assert.equal(publicKeyString(loadKey(path)), publicKeyString(key));
    assert.throws(() => saveKey(path, generateKey()), KeyFileError, 'an existing key is not overwritten');
  });

  test('a key file others can read, a missing file and a non-key file are refused', () => {
    const path = join(dir, 'open.key');
    saveKey(path, generateKey());
    chmodSync(path, 0o644);
    assert.throws(() => loadKey(path), /readable by others.*chmod 600/);
    assert.ok(loadKey(path, { allowInsecureMode: true }));
    assert.throws(() => loadKey(join(dir, 'absent.key')), /agentry keygen/);
    const junk = join(dir, 'junk.key');
    writeFileSync(junk, 'not a key', { mode: 0o600 });
    assert.throws(() => loadKey(junk), /not a PEM private key/);
  });

  test('public key spelling and the claim signature match the vectors', () => {
    assert.equal(publicKeyString(keyFromSeed(seed('A'))), vectors.keys.A.pubkey);
    assert.equal(signChallenge(keyFromSeed(seed('A')), vectors.claim.nonce), vectors.claim.signatureBase64url);
  });
});

describe('receipts', () => {
  for (const vector of vectors.receipts) {
    if (vector.expect.status !== 201) continue;
    test(`verifyReceipt agrees with the service on ${vector.name}`, () => {
      assert.equal(verifyReceipt(vector.receipt), vector.expect.signatureVerified);
    });
  }

  test('signing the valid offer with key A gives the vector signature (same canonical bytes)', () => {
    const vector = vectors.receipts.find((entry: { name: string }) => entry.name === 'valid-offer');
    const { signature, ...unsigned } = vector.receipt;
    const signed = signReceipt(unsigned, keyFromSeed(seed('A')), signature.keyId);
    assert.equal(signed.signature.value, signature.value);
    assert.deepEqual(canonicalReceiptBytes(signed), canonicalReceiptBytes(vector.receipt));
  });

  test('signReceipt refuses a key that is not the issuer key', () => {
    const receipt = buildReceipt({
      kind: 'decision',
      taskClass: 'code.review',
      issuer: { agent: 'a', pubkey: vectors.keys.A.pubkey },
      subject: { agent: 'b', pubkey: vectors.keys.B.pubkey },
      payload: { decision: 'accept' },
    });
    assert.throws(() => signReceipt(receipt, keyFromSeed(seed('B'))), /issuer.pubkey/);
  });
});

describe('webhooks', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const body = JSON.stringify({ taskId: 't1', taskToken: 'tok', input: { a: 1 } });
  const signed = (id: string, at: Date) => new Webhook(secret).sign(id, at, body);

  test('a Standard Webhooks signature verifies; a changed body, another secret or an old timestamp do not', () => {
    const now = new Date();
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signed('msg_1', now) };
    const delivery: TaskDelivery = verifyWebhook({ secret, headers, body });
    assert.deepEqual(delivery, JSON.parse(body));
    const notATask = JSON.stringify({ hello: 'world' });
    const notATaskHeaders = { ...headers, 'webhook-signature': new Webhook(secret).sign('msg_1', now, notATask) };
    assert.throws(() => verifyWebhook({ secret, headers: notATaskHeaders, body: notATask }), /not a task delivery/);
    assert.throws(() => verifyWebhook({ secret, headers, body: body.replace('t1', 't2') }), WebhookVerificationError);
    assert.throws(() => verifyWebhook({ secret: `whsec_${Buffer.alloc(32, 8).toString('base64')}`, headers, body }), WebhookVerificationError);
    const old = new Date(now.getTime() - 600_000);
    const oldHeaders = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(old.getTime() / 1000)), 'webhook-signature': signed('msg_1', old) };
    assert.throws(() => verifyWebhook({ secret, headers: oldHeaders, body }), /tolerance/);
    assert.throws(() => verifyWebhook({ secret, headers: { 'webhook-id': 'msg_1' }, body }), /missing/);
  });

  test('readWebhookRequest reads a Node request and answers what to send back', async () => {
    const results: unknown[] = [];
    const server = createServer((request, response) => {
      void readWebhookRequest(request, secret).then((result) => {
        results.push(result);
        response.writeHead(result.status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const now = new Date();
    const good = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'webhook-id': 'msg_2', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signed('msg_2', now) },
    });
    const bad = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'webhook-id': 'msg_2', 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': 'v1,AAAA' },
    });
    server.close();
    assert.equal(good.status, 204);
    assert.equal(bad.status, 401);
    assert.deepEqual((results[0] as { delivery: unknown }).delivery, JSON.parse(body));
  });
});

describe('client and runner against the service', () => {
  let app: TestApp;
  let url: string;
  let owner: AgentryClient;
  let ownerToken: string;

  before(async () => {
    // A short poll lease, so a runner renewing it is seen within a test's time.
    ({ app, url } = await startListeningApp({ ALLOW_PRIVATE_ENDPOINTS: 'true', POLL_LEASE_MS: '2000' }));
    owner = new AgentryClient({ baseUrl: url });
    const session = await owner.signup(`sdk-${process.pid}-${Date.now()}@example.test`, 'correct horse battery');
    ownerToken = session.token;
    owner.setToken(session.token);
  });
  after(() => app.close());

  test('error answers throw AgentryError with status, code and details', async () => {
    const anonymous = new AgentryClient({ baseUrl: url });
    await assert.rejects(anonymous.listAgents(), (error: unknown) => error instanceof AgentryError && error.status === 401 && error.code === 'UNAUTHORIZED');
    await assert.rejects(
      owner.getAgent('no-such-agent'),
      (error: unknown) => error instanceof AgentryError && error.status === 404 && error.code === 'NOT_FOUND',
    );
    await assert.rejects(
      owner.registerAgent({ name: '', description: 'x' } as never),
      (error: unknown) => error instanceof AgentryError && error.status === 400 && (error.details?.length ?? 0) > 0,
    );
  });

  test('a list call is the first page when awaited and every item, page after page, with for await', async () => {
    const names = ['one', 'two', 'three'].map((word) => `Paged ${word} ${process.pid} ${Date.now()}`);
    const registered = [];
    for (const name of names)
      registered.push(
        (await owner.registerAgent({ name, description: 'paged', deliveryMode: 'poll', protocols: ['rest'], categories: ['productivity'] } as never)).agent,
      );
    const first = await owner.listAgents({ limit: 2 });
    assert.equal(first.data.length, 2);
    assert.equal(first.pagination.hasMore, true);
    const seen: string[] = [];
    for await (const agent of owner.listAgents({ limit: 2 })) seen.push(agent.id);
    assert.equal(seen.length, first.pagination.total, 'every agent of the account, each once');
    assert.equal(new Set(seen).size, seen.length);
    for (const agent of registered) assert.ok(seen.includes(agent.id), `${agent.name} is listed`);
    const tasks = [];
    for (const word of ['a', 'b', 'c']) tasks.push((await owner.submitTask({ description: `paged ${word}`, agentId: registered[0]!.id } as never)).id);
    const listedTasks: string[] = [];
    for await (const task of owner.listTasks({ limit: 1, role: 'requester' })) listedTasks.push(task.id);
    assert.equal(listedTasks.length, (await owner.listTasks({ limit: 1, role: 'requester' })).pagination.total);
    assert.equal(new Set(listedTasks).size, listedTasks.length);
    for (const id of tasks) assert.ok(listedTasks.includes(id));
  });

  test('an unreachable service is an AgentryNetworkError', async () => {
    const down = new AgentryClient({ baseUrl: await deadUrl() });
    await assert.rejects(down.getAgent('x'), AgentryNetworkError);
  });

  test('task submission carries an idempotency key: the same key gives the same task', async () => {
    const agent = (
      await owner.registerAgent({
        name: `Idem ${process.pid} ${Date.now()}`,
        description: 'poll agent',
        deliveryMode: 'poll',
        protocols: ['rest'],
        categories: ['productivity'],
      } as never)
    ).agent;
    const first = await owner.submitTask({ description: 'once', agentId: agent.id } as never, { idempotencyKey: 'sdk-idem-1' });
    const again = await owner.submitTask({ description: 'once', agentId: agent.id } as never, { idempotencyKey: 'sdk-idem-1' });
    const other = await owner.submitTask({ description: 'once', agentId: agent.id } as never);
    assert.equal(again.id, first.id);
    assert.notEqual(other.id, first.id);
  });

  test('a provisional agent served by AgentRunner over long poll completes a task, signing with its key only', async () => {
    const key = generateKey();
    const anonymous = new AgentryClient({ baseUrl: url });
    const agent = (
      await anonymous.registerProvisional({
        name: `Poller ${process.pid} ${Date.now()}`,
        description: 'echo',
        pubkey: publicKeyString(key),
        deliveryMode: 'poll',
      } as never)
    ).agent;
    const runner = new AgentRunner({ client: anonymous, agentId: agent.id, key, pollWaitSeconds: 5, handler: async (input) => ({ echoed: input }) });
    await runner.start();
    try {
      const task = await owner.submitTask({ description: 'echo this', agentId: agent.id, input: { text: 'hi' } } as never);
      const done = await waitFor(
        'the task to complete',
        () => owner.getTask(task.id),
        (value) => value.status === 'completed',
      );
      assert.deepEqual(done.result, { echoed: { text: 'hi' } });
      assert.equal((await owner.getAgent(agent.id)).keyVerified, true, 'the signed heartbeat proved the key');
    } finally {
      await runner.stop();
    }
  });

  test('a handler that throws fails the task with its message', async () => {
    const agent = (
      await owner.registerAgent({
        name: `Thrower ${process.pid} ${Date.now()}`,
        description: 'fails',
        deliveryMode: 'poll',
        protocols: ['rest'],
        categories: ['productivity'],
      } as never)
    ).agent;
    const runner = new AgentRunner({
      client: owner,
      agentId: agent.id,
      pollWaitSeconds: 5,
      handler: async () => {
        throw new Error('cannot do that');
      },
    });
    await runner.start();
    try {
      const task = await owner.submitTask({ description: 'fail please', agentId: agent.id } as never);
      const done = await waitFor(
        'the task to fail',
        () => owner.getTask(task.id),
        (value) => value.status === 'failed',
      );
      assert.match(JSON.stringify(done.error), /cannot do that/);
    } finally {
      await runner.stop();
    }
  });

  test('over long poll the runner renews the lease of a task its handler still works on, so the task stays its own', async () => {
    const agent = (
      await owner.registerAgent({
        name: `Slow ${process.pid} ${Date.now()}`,
        description: 'slow',
        deliveryMode: 'poll',
        protocols: ['rest'],
        categories: ['productivity'],
      } as never)
    ).agent;
    const renewals: string[] = [];
    class CountingClient extends AgentryClient {
      override async renewTaskLease(taskId: string, taskToken: string) {
        const renewed = await super.renewTaskLease(taskId, taskToken);
        renewals.push(renewed.leaseUntil);
        return renewed;
      }
    }
    const client = new CountingClient({ baseUrl: url });
    client.setToken(ownerToken);
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const runner = new AgentRunner({
      client,
      agentId: agent.id,
      pollWaitSeconds: 5,
      handler: async () => {
        await released;
        return { slow: true };
      },
    });
    await runner.start();
    try {
      const task = await owner.submitTask({ description: 'take your time', agentId: agent.id } as never);
      // A renewal each half lease (1 s): by the third, the first lease (2 s) is long over.
      await waitFor(
        'three lease renewals',
        () => renewals.length,
        (count) => count >= 3,
        { timeoutMs: 30_000 },
      );
      assert.equal((await owner.getTask(task.id)).status, 'in_progress');
      assert.ok(
        renewals.every((until, i) => i === 0 || until > renewals[i - 1]!),
        renewals.join(' '),
      );
      release();
      const done = await waitFor(
        'the task to complete',
        () => owner.getTask(task.id),
        (value) => value.status === 'completed',
      );
      assert.deepEqual(done.result, { slow: true });
    } finally {
      release();
      await runner.stop();
    }
  });

  test('over long poll a task handed out again while its handler runs (its renewals lost) runs once, and its one answer counts', async () => {
    const agent = (
      await owner.registerAgent({
        name: `Unrenewed ${process.pid} ${Date.now()}`,
        description: 'loses its renewals',
        deliveryMode: 'poll',
        protocols: ['rest'],
        categories: ['productivity'],
      } as never)
    ).agent;
    // Every renewal is lost on its way (its node killed): the lease runs out and the task goes back to the queue.
    const handOuts = new Map<string, number>();
    class LosingClient extends AgentryClient {
      override async renewTaskLease(): Promise<never> {
        throw new AgentryNetworkError(`${url}/v1/tasks/lease`, new Error('socket hang up'));
      }
      override async pollTasks(...args: Parameters<AgentryClient['pollTasks']>) {
        const deliveries = await super.pollTasks(...args);
        for (const delivery of deliveries) handOuts.set(delivery.taskId, (handOuts.get(delivery.taskId) ?? 0) + 1);
        return deliveries;
      }
    }
    const client = new LosingClient({ baseUrl: url });
    client.setToken(ownerToken);
    const held = heldHandler();
    const { outcomes, release } = held;
    const runner = held.runner(client, agent.id);
    await runner.start();
    try {
      const task = await owner.submitTask({ description: 'run me once', agentId: agent.id } as never);
      // A third hand-out comes from a poll the runner sent after it had the second in hand.
      await waitFor(
        'the task handed out a third time, or run twice',
        () => ({ handOuts: handOuts.get(task.id) ?? 0, handlerRuns: held.runs() }),
        (seen) => seen.handOuts >= 3 || seen.handlerRuns > 1,
        { timeoutMs: 30_000 },
      );
      assert.equal(held.runs(), 1);
      release();
      const done = await waitFor(
        'the task to complete',
        () => owner.getTask(task.id),
        (value) => value.status === 'completed',
      );
      assert.deepEqual(done.result, { once: true });
      await waitFor(
        'the runner to report the task',
        () => outcomes.length,
        (count) => count > 0,
      );
      assert.deepEqual(outcomes, [`${task.id} completed`]);
      assert.equal(held.runs(), 1);
    } finally {
      release();
      await runner.stop();
    }
  });

  test('over long poll a task handed out again just before its answer arrived is not run again', async () => {
    const agent = (
      await owner.registerAgent({
        name: `Answered ${process.pid} ${Date.now()}`,
        description: 'answers as its task is handed out again',
        deliveryMode: 'poll',
        protocols: ['rest'],
        categories: ['productivity'],
      } as never)
    ).agent;
    const held = heldHandler();
    const { outcomes, release } = held;
    const handOuts = new Map<string, number>();
    let heldAnswerGiven = false;
    // What the runner held when it polled next, after it had been given the held answer.
    let inHandAtNextPoll: number | undefined;
    // Renewals lost, so the lease runs out and a poll takes the task again while the handler works; that
    // poll's answer is slow on its way: it reaches the runner only after the runner has answered the task.
    class LateAnswerClient extends AgentryClient {
      override async renewTaskLease(): Promise<never> {
        throw new AgentryNetworkError(`${url}/v1/tasks/lease`, new Error('socket hang up'));
      }
      override async pollTasks(...args: Parameters<AgentryClient['pollTasks']>) {
        if (heldAnswerGiven) inHandAtNextPoll ??= runner.tasksInHand;
        const deliveries = await super.pollTasks(...args);
        for (const delivery of deliveries) handOuts.set(delivery.taskId, (handOuts.get(delivery.taskId) ?? 0) + 1);
        if (!heldAnswerGiven && deliveries.some((delivery) => handOuts.get(delivery.taskId)! > 1)) {
          release();
          await waitFor(
            'the runner to answer the task',
            () => outcomes.length,
            (count) => count > 0,
          );
          heldAnswerGiven = true;
        }
        return deliveries;
      }
    }
    const client = new LateAnswerClient({ baseUrl: url });
    client.setToken(ownerToken);
    const runner = held.runner(client, agent.id);
    await runner.start();
    try {
      const task = await owner.submitTask({ description: 'answer me once', agentId: agent.id } as never);
      await waitFor(
        'the runner to poll after the late answer',
        () => inHandAtNextPoll,
        (held) => held !== undefined,
        { timeoutMs: 30_000 },
      );
      assert.equal(handOuts.get(task.id), 2);
      assert.equal(inHandAtNextPoll, 0);
      assert.equal(held.runs(), 1);
      assert.deepEqual(outcomes, [`${task.id} completed`]);
      const done = await owner.getTask(task.id);
      assert.equal(done.status, 'completed');
      assert.deepEqual(done.result, { once: true });
    } finally {
      release();
      await runner.stop();
    }
  });

  test('webhook mode: the runner verifies the signed delivery and calls back', async () => {
    const agent = (
      await owner.registerAgent({
        name: `Hooked ${process.pid} ${Date.now()}`,
        description: 'webhook',
        endpoint: 'http://127.0.0.1:9/',
        deliveryMode: 'webhook',
        protocols: ['webhook'],
        categories: ['productivity'],
      } as never)
    ).agent;
    const { secret } = await owner.rotateWebhookSecret(agent.id);
    const runner = new AgentRunner({
      client: owner,
      agentId: agent.id,
      mode: 'webhook',
      webhook: { secret },
      handler: async (input) => ({ upper: String((input as { text: string }).text).toUpperCase() }),
    });
    await runner.start();
    try {
      await owner.updateAgent(agent.id, { endpoint: runner.webhookUrl! } as never);
      const task = await owner.submitTask({ description: 'shout', agentId: agent.id, input: { text: 'hey' } } as never);
      const done = await waitFor(
        'the task to complete',
        () => owner.getTask(task.id),
        (value) => value.status === 'completed',
      );
      assert.deepEqual(done.result, { upper: 'HEY' });
    } finally {
      await runner.stop();
    }
  });

  test("agentry listen takes a webhook agent's deliveries while it runs and forwards them signed; trigger task and logs show them", async () => {
    // The agent's real endpoint, which must get nothing while the session runs and the deliveries after.
    const endpointHits: string[] = [];
    const endpoint = createServer((request, response) => {
      endpointHits.push(request.url ?? '');
      response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', () => resolve()));
    const registered = await owner.registerAgent({
      name: `Listened ${process.pid} ${Date.now()}`,
      description: 'webhook under development',
      endpoint: `http://127.0.0.1:${(endpoint.address() as { port: number }).port}/hook`,
      deliveryMode: 'webhook',
      protocols: ['webhook'],
      categories: ['productivity'],
    } as never);
    const agent = registered.agent;
    const secret = registered.webhookSecret!;
    // The author's local handler, written for real webhooks: it verifies the signature, answers 204, then calls back.
    const verified: unknown[] = [];
    const handler = createServer((request, response) => {
      void readWebhookRequest(request, secret).then(async (read) => {
        response.writeHead(read.status).end();
        if (!read.ok) return;
        verified.push(read.delivery);
        await owner.callback(read.delivery.taskId, { taskToken: read.delivery.taskToken, result: { heard: read.delivery.input } });
      });
    });
    await new Promise<void>((resolve) => handler.listen(0, '127.0.0.1', () => resolve()));
    const env = { XDG_CONFIG_HOME: join(dir, `listen-${Date.now()}`), AGENTRY_URL: url, AGENTRY_TOKEN: ownerToken };
    const hook = `http://127.0.0.1:${(handler.address() as { port: number }).port}/hook`;
    const listening = startAgentry(['listen', '--agent', agent.id, '--forward-to', hook], env);
    const logs = startAgentry(['logs', '--agent', agent.id], env);
    try {
      await waitFor(
        'the listen session to start',
        () => listening.output.stderr,
        (text) => /listening for agent/.test(text),
      );
      await waitFor(
        'logs to follow',
        () => logs.output.stderr,
        (text) => /following/.test(text),
      );
      const triggered = await runAgentry(['trigger', 'task', '--agent', agent.id, '--input', '{"text":"hi"}'], env);
      assert.equal(triggered.code, 0, triggered.stderr);
      const taskId = /submitted task (\S+)/.exec(triggered.stdout)?.[1];
      assert.match(triggered.stdout, /completed: \{"heard":\{"text":"hi"\}\}/);
      assert.equal(verified.length, 1, "the handler verified one delivery with the agent's own secret");
      assert.equal((verified[0] as { taskId: string }).taskId, taskId);
      assert.deepEqual(endpointHits, [], 'the endpoint got nothing while the session ran');
      await waitFor(
        'listen to print the answer',
        () => listening.output.stdout,
        (text) => text.includes(`<-- 204 No Content for task ${taskId}`),
      );
      assert.match(listening.output.stdout, new RegExp(`--> task ${taskId} \\(\\S+\\) \\{"text":"hi"\\}`));
      await waitFor(
        'logs to show the outcome',
        () => logs.output.stdout,
        (text) => text.includes(`task ${taskId} completed: {"heard":{"text":"hi"}}`),
      );
    } finally {
      const stopped = await listening.stop();
      await logs.stop();
      handler.close();
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.match(stopped.stderr, /stopped listening/);
    }
    // Session over: the endpoint gets the agent's deliveries again.
    await owner.submitTask({ description: 'after the session', agentId: agent.id } as never);
    await waitFor(
      'the endpoint to be sent the delivery',
      () => endpointHits.length,
      (hits) => hits > 0,
      { timeoutMs: 20_000 },
    );
    endpoint.close();
  });

  test('listen is for the owner of a webhook agent only', async () => {
    const registered = await owner.registerAgent({
      name: `Guarded ${process.pid} ${Date.now()}`,
      description: 'webhook',
      endpoint: 'http://127.0.0.1:9/',
      deliveryMode: 'webhook',
      protocols: ['webhook'],
      categories: ['productivity'],
    } as never);
    const stranger = new AgentryClient({ baseUrl: url });
    stranger.setToken((await stranger.signup(`stranger-${process.pid}-${Date.now()}@example.test`, 'correct horse battery')).token);
    await assert.rejects(
      new AgentryClient({ baseUrl: url }).listenWebhooks(registered.agent.id, { wait: 0 }),
      (error: unknown) => (error as AgentryError).status === 401,
    );
    await assert.rejects(stranger.listenWebhooks(registered.agent.id, { wait: 0 }), (error: unknown) => (error as AgentryError).status === 403);
    await assert.rejects(stranger.stopListening(registered.agent.id), (error: unknown) => (error as AgentryError).status === 403);
    const polled = (
      await owner.registerAgent({
        name: `Polled ${process.pid} ${Date.now()}`,
        description: 'poll',
        deliveryMode: 'poll',
        protocols: ['rest'],
        categories: ['productivity'],
      } as never)
    ).agent;
    await assert.rejects(owner.listenWebhooks(polled.id, { wait: 0 }), (error: unknown) => (error as AgentryError).status === 409);
    assert.deepEqual(await owner.listenWebhooks(registered.agent.id, { wait: 0 }), []);
    assert.deepEqual(await owner.stopListening(registered.agent.id), { agentId: registered.agent.id, listening: false });
  });

  test('stop() gives tasks in hand the grace period, then fails them with agent_shutdown', async () => {
    const agent = (
      await owner.registerAgent({
        name: `Slow ${process.pid} ${Date.now()}`,
        description: 'slow',
        deliveryMode: 'poll',
        protocols: ['rest'],
        categories: ['productivity'],
      } as never)
    ).agent;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const runner = new AgentRunner({
      client: owner,
      agentId: agent.id,
      pollWaitSeconds: 5,
      gracePeriodMs: 200,
      handler: (_input, _task, { signal }) => {
        started();
        return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
      },
    });
    await runner.start();
    const task = await owner.submitTask({ description: 'never ends', agentId: agent.id } as never);
    await running;
    await runner.stop();
    const done = await owner.getTask(task.id);
    assert.equal(done.status, 'failed');
    assert.match(JSON.stringify(done.error), /agent_shutdown/);
  });

  test('the runner signs receipts about a counterparty that the service verifies', async () => {
    const key = generateKey();
    const agent = (
      await owner.registerAgent({
        name: `Issuer ${process.pid} ${Date.now()}`,
        description: 'issues',
        deliveryMode: 'poll',
        protocols: ['rest'],
        categories: ['productivity'],
        pubkey: publicKeyString(key),
      } as never)
    ).agent;
    const runner = new AgentRunner({ client: owner, agentId: agent.id, key, handler: async () => null });
    const answer = await runner.submitReceipt({
      kind: 'outcome',
      taskClass: 'code.review',
      subject: { agent: 'other', pubkey: publicKeyString(generateKey()) },
      payload: { outcome: 'success', latencyMs: 5 },
    });
    assert.equal(answer.receipt.signatureVerified, true);
    assert.match(answer.message, /stored/i);
  });

  test('the X-Agent-Signature header is accepted for a heartbeat', async () => {
    const key = generateKey();
    const anonymous = new AgentryClient({ baseUrl: url });
    const agent = (
      await anonymous.registerProvisional({
        name: `Beat ${process.pid} ${Date.now()}`,
        description: 'beats',
        pubkey: publicKeyString(key),
        deliveryMode: 'poll',
      } as never)
    ).agent;
    await anonymous.heartbeat(agent.id, { status: 'available', load: 0 }, agentSignatureHeader(key, agent.id));
    await assert.rejects(anonymous.heartbeat(agent.id, {}, agentSignatureHeader(generateKey(), agent.id)), AgentryError);
  });
});

describe('AgentRunner refusals, input checks and waiting', () => {
  let app: TestApp;
  let url: string;
  let owner: AgentryClient;
  const pollAgent = async (overrides: Record<string, unknown> = {}) =>
    (
      await owner.registerAgent({
        name: `Runner ${process.pid} ${Date.now()} ${Math.random()}`,
        description: 'runner checks',
        deliveryMode: 'poll',
        protocols: ['rest'],
        categories: ['productivity'],
        ...overrides,
      } as never)
    ).agent;

  before(async () => {
    ({ app, url } = await startListeningApp({ ALLOW_PRIVATE_ENDPOINTS: 'true' }));
    owner = new AgentryClient({ baseUrl: url });
    owner.setToken((await owner.signup(`runner-${process.pid}-${Date.now()}@example.test`, 'correct horse battery')).token);
  });
  after(() => app.close());

  test('start() rejects when the first heartbeat is refused, with the service message and the fix', async () => {
    const unknown = new AgentRunner({ client: owner, agentId: 'no-such-agent', handler: async () => null });
    await assert.rejects(unknown.start(), (error: unknown) => {
      assert.ok(error instanceof AgentRunnerError);
      assert.equal(error.status, 404);
      assert.match(error.message, /check agentId \(no-such-agent\)/);
      return true;
    });
    const agent = await pollAgent();
    const anonymous = new AgentRunner({ client: new AgentryClient({ baseUrl: url }), agentId: agent.id, handler: async () => null });
    await assert.rejects(anonymous.start(), (error: unknown) => {
      assert.ok(error instanceof AgentRunnerError);
      assert.equal(error.status, 401);
      assert.match(error.message, /registration key/);
      return true;
    });
  });

  test('by default a recoverable error is a line on stderr, not silence', async () => {
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const runner = new AgentRunner({ client: new AgentryClient({ baseUrl: await deadUrl() }), agentId: 'a', handler: async () => null });
      await runner.start();
      await runner.stop();
    } finally {
      process.stderr.write = write;
    }
    assert.ok(
      lines.some((line) => /^agentry runner: heartbeat: could not reach/.test(line)),
      lines.join(''),
    );
  });

  test('a poll refused with 409 (the agent takes webhooks) stops the runner through onFatal, naming the fix', async () => {
    const agent = await pollAgent({ deliveryMode: 'webhook', endpoint: 'http://127.0.0.1:9/', protocols: ['webhook'] });
    let fatal: AgentRunnerError | null = null;
    const runner = new AgentRunner({ client: owner, agentId: agent.id, pollWaitSeconds: 1, handler: async () => null, onFatal: (error) => (fatal = error) });
    await runner.start();
    await waitFor('the runner to give up', () => fatal);
    await runner.stop();
    assert.equal(fatal!.status, 409);
    assert.match(fatal!.message, /deliveryMode/);
    assert.match(fatal!.message, /make the runner's `mode` \(poll\) match/);
  });

  test('without onFatal the refusal is thrown: the process ends with the error instead of looping', async () => {
    const agent = await pollAgent({ deliveryMode: 'webhook', endpoint: 'http://127.0.0.1:9/', protocols: ['webhook'] });
    const script = `
      import { AgentRunner, AgentryClient } from '@agentry/sdk';
      const client = new AgentryClient({ baseUrl: process.env.URL, token: process.env.TOKEN });
      await new AgentRunner({ client, agentId: process.env.AGENT, pollWaitSeconds: 1, handler: async () => null }).start();
    `;
    builtAgentryBin(); // the child imports the compiled SDK
    const child = promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, URL: url, TOKEN: (owner as unknown as { token: string }).token, AGENT: agent.id },
      timeout: 60_000,
    });
    await assert.rejects(child, (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 1);
      assert.match(error.stderr, /AgentRunnerError: agent .* the service refused the poll \(409/);
      return true;
    });
  });

  test('a typed input schema: the handler gets the typed input, and a delivery that does not match fails with the fields', async () => {
    const schema = inputSchema({ text: { type: 'string', required: true }, loud: { type: 'boolean' } });
    // Registered without the schema, so the service passes any input and the runner is the one to check.
    const agent = await pollAgent();
    const runner = new AgentRunner({
      client: owner,
      agentId: agent.id,
      pollWaitSeconds: 5,
      inputSchema: schema,
      handler: async (input) => ({ said: input.loud ? input.text.toUpperCase() : input.text }),
    });
    await runner.start();
    try {
      const good = await owner.submitTask({ description: 'say', agentId: agent.id, input: { text: 'hi', loud: true } } as never);
      assert.deepEqual((await owner.waitForTask(good.id, { timeoutMs: 30_000 })).result, { said: 'HI' });
      const bad = await owner.submitTask({ description: 'say', agentId: agent.id, input: { text: 5 } } as never);
      const failed = await owner.waitForTask(bad.id, { timeoutMs: 30_000 });
      assert.equal(failed.status, 'failed');
      assert.match(JSON.stringify(failed.error), /does not match the agent's input schema: text: must be a string/);
    } finally {
      await runner.stop();
    }
  });

  test('waitForTask returns every final state (cancelled too) and times out with AgentryTimeoutError', async () => {
    const agent = await pollAgent();
    const task = await owner.submitTask({ description: 'nobody takes this', agentId: agent.id } as never);
    await assert.rejects(owner.waitForTask(task.id, { timeoutMs: 300 }), (error: unknown) => error instanceof AgentryTimeoutError && error.taskId === task.id);
    const waiting = owner.waitForTask(task.id, { timeoutMs: 30_000 });
    const cancelled = await owner.cancelTask(task.id);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await waiting).status, 'cancelled');
    const controller = new AbortController();
    const other = await owner.submitTask({ description: 'nobody takes this either', agentId: agent.id } as never);
    const aborted = owner.waitForTask(other.id, { signal: controller.signal });
    controller.abort(new Error('no longer needed'));
    await assert.rejects(aborted, /no longer needed/);
  });

  test('events() yields task.status events and skips event names it does not know', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('retry: 1000\nid: 1\n\n');
      response.write('id: 2\nevent: agent.reviewed\ndata: {"agentId":"a"}\n\n');
      response.write(': keep-alive\n\n');
      response.end('id: 3\nevent: task.status\ndata: {"taskId":"t","status":"completed","at":"2026-01-01T00:00:00Z","role":"requester"}\n\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const client = new AgentryClient({ baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
      const seen = [];
      for await (const event of client.events()) seen.push(event);
      assert.deepEqual(seen, [{ id: '3', event: 'task.status', data: { taskId: 't', status: 'completed', at: '2026-01-01T00:00:00Z', role: 'requester' } }]);
    } finally {
      server.close();
    }
  });

  test('extract, rateTask, receipts and trust helpers answer the records', async () => {
    const key = generateKey();
    const agent = await pollAgent({ pubkey: publicKeyString(key), inputSchema: { text: { type: 'string', required: true } } });
    const preview = await owner.extract({ agentId: agent.id, description: 'please echo: good morning' });
    assert.deepEqual(preview.missing, []);
    assert.equal(typeof preview.input.text, 'string');

    const runner = new AgentRunner({ client: owner, agentId: agent.id, key, pollWaitSeconds: 5, handler: async (input) => input });
    await runner.start();
    try {
      const task = await owner.submitTask({ description: 'echo', agentId: agent.id, input: { text: 'x' } } as never);
      await owner.waitForTask(task.id, { timeoutMs: 30_000 });
      const rated = await owner.rateTask(task.id, { score: 5, comment: 'quick' });
      assert.deepEqual(rated.rating, { score: 5, comment: 'quick' });
      const subject = { agent: 'other', pubkey: publicKeyString(generateKey()) };
      const { receipt } = await runner.submitReceipt({ kind: 'outcome', taskClass: 'code.review', subject, payload: { outcome: 'success', latencyMs: 5 } });
      const listed = await owner.listReceipts({ subjectPubkey: subject.pubkey });
      assert.deepEqual(
        listed.data.map((entry: { receiptId: string }) => entry.receiptId),
        [receipt.receiptId],
      );
      const chain = await owner.receiptChain(receipt.correlationId);
      assert.ok(JSON.stringify(chain).includes(receipt.receiptId));
      const trust = await owner.trust(subject.pubkey);
      assert.ok(trust && typeof trust === 'object');
    } finally {
      await runner.stop();
    }
  });

  test('proveKey proves an owned agent holds its registration key', async () => {
    const key = generateKey();
    const agent = await pollAgent({ pubkey: publicKeyString(key) });
    assert.equal((await owner.getAgent(agent.id)).keyVerified, false);
    await assert.rejects(
      owner.proveKey(agent.id, (nonce) => signChallenge(generateKey(), nonce)),
      (error: unknown) => error instanceof AgentryError,
    );
    await owner.proveKey(agent.id, (nonce) => signChallenge(key, nonce));
    assert.equal((await owner.getAgent(agent.id)).keyVerified, true);
  });

  test("setKey gives an owned agent a new registration key, proven by that key's signature", async () => {
    const agent = await pollAgent();
    const key = generateKey();
    await assert.rejects(
      owner.setKey(agent.id, publicKeyString(key), (nonce) => signChallenge(generateKey(), nonce)),
      (error: unknown) => error instanceof AgentryError && error.status < 500,
      'a signature by another key is refused',
    );
    await owner.setKey(agent.id, publicKeyString(key), (nonce) => signChallenge(key, nonce));
    const after = await owner.getAgent(agent.id);
    assert.equal(after.registrationPubkey, publicKeyString(key));
    assert.equal(after.keyVerified, true);
    const stranger = new AgentryClient({ baseUrl: url });
    stranger.setToken((await stranger.signup(`stranger-${process.pid}-${Date.now()}@example.test`, 'correct horse battery')).token);
    const other = generateKey();
    await assert.rejects(
      stranger.setKey(agent.id, publicKeyString(other), (nonce) => signChallenge(other, nonce)),
      (error: unknown) => error instanceof AgentryError && (error.status === 403 || error.status === 404),
    );
  });

  test('a provisional registration answers the record with the absolute claim URL and claim page beside it', async () => {
    const anonymous = new AgentryClient({ baseUrl: url });
    const answer = await anonymous.registerProvisional({
      name: `Claimable ${process.pid} ${Date.now()}`,
      description: 'later',
      pubkey: publicKeyString(generateKey()),
    } as never);
    assert.equal(answer.claimUrl, `${url}/v1/agents/${answer.agent.id}/claim/challenge`);
    assert.equal(answer.claimPageUrl, `${url}/claim/${answer.agent.id}`);
    assert.match(answer.message, /claim/);
    assert.equal(answer.agent.status, 'provisional');
  });
});

describe('Retry-After', () => {
  let app: TestApp;
  let url: string;
  before(async () => {
    // One request per 3 s: requests sent together land in one window even on a loaded machine, where a
    // 1 s window could turn over between them and let every one through.
    ({ app, url } = await startListeningApp({ RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_MS: '3000' }));
  });
  after(() => app.close());

  test('a 429 is retried after the time Retry-After asks; with no retries left it is an AgentryError', async () => {
    const statuses: number[] = [];
    const counting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    };
    const patient = new AgentryClient({ baseUrl: url, fetch: counting, maxRetries: 3 });
    // Concurrent, so that at least two land in one fixed window of the limiter.
    const answers = await Promise.all(['one', 'two', 'three'].map((q) => patient.discover({ q })));
    assert.equal(answers.length, 3);
    assert.ok(statuses.includes(429), `the limit was hit: ${statuses.join(',')}`);
    assert.equal(statuses.filter((status) => status === 200).length, 3);

    const impatient = new AgentryClient({ baseUrl: url, maxRetries: 0 });
    const outcomes = await Promise.allSettled(['four', 'five'].map((q) => impatient.discover({ q })));
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason);
    assert.ok(refused.length >= 1);
    assert.ok(refused.every((error) => error instanceof AgentryError && error.status === 429 && error.code === 'RATE_LIMITED'));
  });
});
