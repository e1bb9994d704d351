import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  AgentRunner,
  AgentryClient,
  AgentryError,
  AgentryNetworkError,
  KeyFileError,
  agentSignatureHeader,
  buildReceipt,
  canonicalReceiptBytes,
  generateKey,
  keyFromSeed,
  loadKey,
  publicKeyString,
  readWebhookRequest,
  saveKey,
  signChallenge,
  signReceipt,
  verifyReceipt,
  verifyWebhook,
  WebhookVerificationError,
} from '@agentry/sdk';
import type { TestApp } from '../helpers/app.ts';
import { deadUrl, startListeningApp } from '../helpers/listening.ts';
import { waitFor } from '../helpers/wait.ts';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors/receipts.json', import.meta.url), 'utf8'));
const seed = (name: 'A' | 'B') => Buffer.from(vectors.keys[name].seedHex, 'hex');
const dir = mkdtempSync(join(tmpdir(), 'agentry-sdk-'));

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
    assert.deepEqual(verifyWebhook({ secret, headers, body }), JSON.parse(body));
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

  before(async () => {
    ({ app, url } = await startListeningApp({ ALLOW_PRIVATE_ENDPOINTS: 'true' }));
    owner = new AgentryClient({ baseUrl: url });
    const session = await owner.signup(`sdk-${process.pid}-${Date.now()}@example.test`, 'correct horse battery');
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
    ).data;
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
    ).data;
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
    ).data;
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
    ).data;
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

  test('stop() gives tasks in hand the grace period, then fails them with agent_shutdown', async () => {
    const agent = (
      await owner.registerAgent({
        name: `Slow ${process.pid} ${Date.now()}`,
        description: 'slow',
        deliveryMode: 'poll',
        protocols: ['rest'],
        categories: ['productivity'],
      } as never)
    ).data;
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
    ).data;
    const runner = new AgentRunner({ client: owner, agentId: agent.id, key, handler: async () => null });
    const answer = await runner.submitReceipt({
      kind: 'outcome',
      taskClass: 'code.review',
      subject: { agent: 'other', pubkey: publicKeyString(generateKey()) },
      payload: { outcome: 'success', latencyMs: 5 },
    });
    assert.equal(answer.data.signatureVerified, true);
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
    ).data;
    await anonymous.heartbeat(agent.id, { status: 'available', load: 0 }, agentSignatureHeader(key, agent.id));
    await assert.rejects(anonymous.heartbeat(agent.id, {}, agentSignatureHeader(generateKey(), agent.id)), AgentryError);
  });
});

describe('Retry-After', () => {
  let app: TestApp;
  let url: string;
  before(async () => {
    ({ app, url } = await startListeningApp({ RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_MS: '1000' }));
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
