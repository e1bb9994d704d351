/**
 * The registry log over HTTP: every agent lifecycle change is logged once, in the order made, in the
 * transaction of the change (a refused change logs nothing), a private agent's entries show its id
 * alone, `GET /v1/agents/:id/history` proves each event against the latest checkpoint (public agents
 * to anyone, others to whoever may see them), the SDK verifies it offline and refuses a doctored
 * one, two nodes sequencing at once give each event one index, a new checkpoint follows an event
 * within the sequencing interval, and agents that existed before the log are logged once as
 * `registered` at the migration.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  hashLeaf,
  parseRegistryLogEntry,
  registryLogEntry,
  verifyAgentHistory,
  verifyCheckpoint,
  verifyConsistency,
  type AgentHistory,
} from '@agentry/sdk/tlog';
import { storedHashIndex } from '../../src/modules/tlog/merkle.ts';
import { expectError, otherNode, startTestApp, startTestAppAfter, type TestApp } from '../helpers/app.ts';
import { claimAgent, newAgentKey, registerAgent, registerProvisional } from '../helpers/agents.ts';
import { waitFor } from '../helpers/wait.ts';

const PUBLIC_URL = 'https://registry.example.test/agentry';
const ORIGIN = 'registry.example.test/agentry/registry';

const keysOf = async (app: TestApp) => (await app.request({ method: 'GET', url: '/.tlog/keys' })).body.split('\n').filter(Boolean);
const checkpointOf = async (app: TestApp) => {
  const response = await app.request({ method: 'GET', url: '/.tlog/registry/checkpoint' });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'text/plain; charset=utf-8');
  return response.body;
};
const historyOf = async (app: TestApp, id: string, token?: string) => {
  const response = await app.request({ method: 'GET', url: `/v1/agents/${id}/history`, token: token ?? null });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().data as AgentHistory;
};

async function setKey(app: TestApp, token: string, agentId: string, key = newAgentKey()) {
  const challenge = await app.request({ method: 'GET', url: `/v1/agents/${agentId}/key-challenge`, token });
  assert.equal(challenge.statusCode, 200, challenge.body);
  const response = await app.request({
    method: 'PUT',
    url: `/v1/agents/${agentId}/key`,
    token,
    body: { pubkey: key.pubkey, signature: key.sign(challenge.json().data.nonce) },
  });
  assert.equal(response.statusCode, 200, response.body);
  return key;
}

describe('registry log: lifecycle events, history and proofs', () => {
  let app: TestApp;
  let owner: { token: string; accountId: string };
  let stranger: { token: string };
  before(async () => {
    app = await startTestApp({ PUBLIC_URL });
    // Sequenced when a test drains, so an event is seen waiting.
    await app.registrySequencer.stop();
    owner = await app.signup();
    stranger = await app.signup();
  });
  after(() => app.close());

  it('logs each change of a public agent once, in order, and its history verifies offline', async () => {
    const agent = await registerAgent(app, owner.token, { deliveryMode: 'webhook' });
    const waiting = await historyOf(app, agent.id);
    assert.equal(waiting.events.length, 1);
    assert.equal(waiting.events[0]!.logIndex, null);
    assert.equal(waiting.events[0]!.proof, null);

    const first = await setKey(app, owner.token, agent.id);
    const second = await setKey(app, owner.token, agent.id);
    for (const body of [
      { endpoint: 'https://moved.example.test/tasks' },
      { deliveryMode: 'poll' },
      { name: `${agent.name as string} II` },
      { description: 'only words' },
    ]) {
      const response = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body });
      assert.equal(response.statusCode, 200, response.body);
    }
    // A heartbeat changes nothing the log shows.
    assert.equal((await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/heartbeat`, token: owner.token, body: {} })).statusCode, 200);
    await app.registrySequencer.drain();

    const history = await historyOf(app, agent.id);
    assert.deepEqual(
      history.events.map((event) => [event.event, event.values]),
      [
        [
          'registered',
          {
            name: agent.name,
            slug: agent.slug,
            provisional: false,
            ownerId: owner.accountId,
            key: null,
            endpoint: 'https://agent.example.test/tasks',
            deliveryMode: 'webhook',
          },
        ],
        ['key_added', { key: first.pubkey }],
        ['key_rotated', { key: second.pubkey, previousKey: first.pubkey }],
        ['endpoint_changed', { endpoint: 'https://moved.example.test/tasks', deliveryMode: 'webhook' }],
        ['endpoint_changed', { endpoint: 'https://moved.example.test/tasks', deliveryMode: 'poll' }],
        ['name_changed', { name: `${agent.name as string} II` }],
      ],
    );
    const keys = await keysOf(app);
    const verified = verifyAgentHistory(history, { keys, origin: ORIGIN });
    assert.equal(verified.events.length, 6);
    assert.equal(verified.pending, 0);
    assert.equal(verified.checkpoint!.note, await checkpointOf(app));
    // Each entry is the RFC 8785 form, and the entry bundle holds the same bytes.
    const bundle = await app.request({ method: 'GET', url: `/.tlog/registry/tile/entries/000.p/${verified.checkpoint!.size}` });
    assert.equal(bundle.statusCode, 200);
    for (const event of verified.events) {
      const entry = registryLogEntry(event);
      assert.ok(bundle.rawPayload.includes(entry), `entry ${event.logIndex} is in the bundle`);
      assert.deepEqual(parseRegistryLogEntry(entry), { agentId: event.agentId, event: event.event, values: event.values, time: event.time });
      const tile = await app.request({ method: 'GET', url: `/.tlog/registry/tile/0/000.p/${verified.checkpoint!.size}` });
      const leaf = tile.rawPayload.subarray(32 * event.logIndex, 32 * event.logIndex + 32);
      assert.ok(leaf.equals(hashLeaf(entry)), `the tile's leaf ${event.logIndex} (stored hash ${storedHashIndex(0, event.logIndex)}) is the entry's`);
    }
  });

  it('refuses a doctored history: changed values, a swapped proof, another agent, a key not trusted', async () => {
    const agent = await registerAgent(app, owner.token);
    await setKey(app, owner.token, agent.id);
    await app.registrySequencer.drain();
    const history = await historyOf(app, agent.id);
    const keys = await keysOf(app);
    assert.equal(verifyAgentHistory(history, { keys }).events.length, 2);
    const changed = structuredClone(history);
    changed.events[0]!.values.endpoint = 'https://evil.example.test/';
    assert.throws(() => verifyAgentHistory(changed, { keys }), /another entry|not at index/);
    const swapped = structuredClone(history);
    [swapped.events[0]!.proof, swapped.events[1]!.proof] = [swapped.events[1]!.proof, swapped.events[0]!.proof];
    assert.throws(() => verifyAgentHistory(swapped, { keys }), /another entry/);
    const renamed = structuredClone(history);
    renamed.agentId = 'someone-else';
    assert.throws(() => verifyAgentHistory(renamed, { keys }), /in the history of/);
    const receiptsKey = keys.find((key) => key.startsWith('registry.example.test/agentry/receipts+'))!;
    assert.throws(() => verifyAgentHistory(history, { keys: [receiptsKey] }), /signature|verif/i);
    assert.throws(() => verifyAgentHistory(history, { keys, origin: 'registry.example.test/agentry/receipts' }), /is of log/);
  });

  it('a provisional agent is logged as such, then claimed; its claim names the new owner', async () => {
    const key = newAgentKey();
    const provisional = await registerProvisional(app, key);
    const claim = await claimAgent(app, owner.token, provisional.id, key);
    assert.equal(claim.statusCode, 200, claim.body);
    await app.registrySequencer.drain();
    const history = await historyOf(app, provisional.id);
    assert.deepEqual(
      history.events.map((event) => [event.event, event.event === 'registered' ? event.values.provisional : event.values]),
      [
        ['registered', true],
        ['claimed', { ownerId: owner.accountId }],
      ],
    );
    assert.equal(history.events[0]!.values.key, key.pubkey);
    verifyAgentHistory(history, { keys: await keysOf(app), origin: ORIGIN });
  });

  it("a private agent's entries show its id alone, and its history is its owner's", async () => {
    const agent = await registerAgent(app, owner.token, { visibility: 'private' });
    await setKey(app, owner.token, agent.id);
    await app.registrySequencer.drain();
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/history` }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/history`, token: stranger.token }), 404, 'NOT_FOUND');
    const history = await historyOf(app, agent.id, owner.token);
    assert.deepEqual(
      history.events.map((event) => [event.event, event.values]),
      [
        ['registered', {}],
        ['key_added', {}],
      ],
    );
    verifyAgentHistory(history, { keys: await keysOf(app) });
    const bundle = (
      await app.request({ method: 'GET', url: `/.tlog/registry/tile/entries/000.p/${verifyCheckpoint(history.checkpoint!, await keysOf(app)).size}` })
    ).rawPayload;
    assert.ok(!bundle.includes(Buffer.from(agent.name as string)), "the private agent's name is nowhere in the log");

    // Made public: its whole state is shown at once; made private again: the last public word says so.
    for (const visibility of ['public', 'private']) {
      const response = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { visibility } });
      assert.equal(response.statusCode, 200, response.body);
    }
    await app.registrySequencer.drain();
    const later = await historyOf(app, agent.id, owner.token);
    assert.deepEqual(
      later.events.slice(2).map((event) => [event.event, event.values.visibility, event.values.name]),
      [
        ['visibility_changed', 'public', agent.name],
        ['visibility_changed', 'private', undefined],
      ],
    );
  });

  it('a refused change logs nothing; a deleted public agent keeps its history, readable by anyone', async () => {
    const taken = await registerAgent(app, owner.token);
    const agent = await registerAgent(app, owner.token);
    const clash = await app.request({
      method: 'PATCH',
      url: `/v1/agents/${agent.id}`,
      token: owner.token,
      body: { name: taken.name, endpoint: 'https://x.example.test/' },
    });
    assert.equal(clash.statusCode, 409, clash.body);
    expectError(await app.request({ method: 'DELETE', url: `/v1/agents/${agent.id}`, token: stranger.token }), 403, 'FORBIDDEN');
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/agents/${agent.id}`, token: owner.token })).statusCode, 200);
    const hidden = await registerAgent(app, owner.token, { visibility: 'private' });
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/agents/${hidden.id}`, token: owner.token })).statusCode, 200);
    await app.registrySequencer.drain();
    const history = await historyOf(app, agent.id);
    assert.deepEqual(
      history.events.map((event) => event.event),
      ['registered', 'deleted'],
    );
    verifyAgentHistory(history, { keys: await keysOf(app) });
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${hidden.id}/history`, token: owner.token }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: '/v1/agents/not-an-agent/history' }), 404, 'NOT_FOUND');
  });

  it('two nodes sequencing at once give every event one index; checkpoints only grow', async () => {
    const second = await otherNode(app);
    try {
      await second.registrySequencer.stop();
      const before = await checkpointOf(app);
      const agents = await Promise.all(Array.from({ length: 6 }, (_, i) => registerAgent(i % 2 ? second : app, owner.token)));
      await Promise.all([app.registrySequencer.drain(), second.registrySequencer.drain(), app.registrySequencer.drain()]);
      const keys = await keysOf(app);
      const indexes = (await Promise.all(agents.map((agent) => historyOf(app, agent.id)))).map((history) => {
        verifyAgentHistory(history, { keys });
        return history.events[0]!.logIndex!;
      });
      assert.equal(new Set(indexes).size, 6);
      const from = verifyCheckpoint(before, keys);
      const now = await checkpointOf(app);
      const to = verifyCheckpoint(now, keys);
      const proof = (await app.request({ method: 'GET', url: `/v1/log/registry/consistency?from=${from.size}&to=${to.size}` })).json().data.proof;
      verifyConsistency({ from: before, to: now, proof, keys });
      assert.deepEqual(
        [...indexes].sort((a, b) => a - b),
        Array.from({ length: 6 }, (_, i) => from.size + i),
      );
    } finally {
      await second.close();
    }
  });

  it('with the timed passes running, a new checkpoint follows an event by itself', async () => {
    app.registrySequencer.start();
    try {
      const agent = await registerAgent(app, owner.token);
      const history = await waitFor(
        'the registration to be logged',
        () => historyOf(app, agent.id),
        (found) => found.events[0]?.logIndex !== null,
      );
      verifyAgentHistory(history, { keys: await keysOf(app), origin: ORIGIN });
    } finally {
      await app.registrySequencer.stop();
    }
  });
});

describe('registry log: agents registered before it are logged once at the migration', () => {
  let app: TestApp;
  const ids = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'];
  before(async () => {
    app = await startTestAppAfter(
      '0038_webhook_listeners',
      async (db) => {
        for (const [i, id] of ids.entries()) {
          const visibility = i === 0 ? 'public' : 'private';
          const at = `2026-01-0${i + 1}T00:00:00.000Z`;
          await sql`INSERT INTO agents (id, name, slug, description, endpoint, protocols, categories, capabilities, tags, version, visibility,
            auth_type, status, delivery_mode, created_at, updated_at, price_per_task_cents, currency)
            VALUES (${id}, ${`Old ${i}`}, ${`old-${i}`}, 'from before', 'https://old.example.test/', '[]', '[]', '[]', '[]', '1.0.0', ${visibility},
            'none', 'provisional', 'webhook', ${at}, ${at}, 0, 'USD')`.execute(db);
        }
      },
      { PUBLIC_URL },
    );
    await app.registrySequencer.drain();
  });
  after(() => app.close());

  it('each is one registered event at its registration time, in registration order', async () => {
    const keys = await keysOf(app);
    const checkpoint = verifyCheckpoint(await checkpointOf(app), keys, ORIGIN);
    assert.equal(checkpoint.size, 2);
    const [old, hidden] = await Promise.all(ids.map((id) => app.request({ method: 'GET', url: `/v1/agents/${id}/history` })));
    const history = old!.json().data as AgentHistory;
    assert.deepEqual(
      history.events.map((event) => [event.event, event.logIndex, event.time, event.values]),
      [
        [
          'registered',
          0,
          '2026-01-01T00:00:00.000Z',
          { name: 'Old 0', slug: 'old-0', provisional: true, ownerId: null, key: null, endpoint: 'https://old.example.test/', deliveryMode: 'webhook' },
        ],
      ],
    );
    verifyAgentHistory(history, { keys, origin: ORIGIN });
    // Nobody owns the private one, so nobody sees its history; its entry in the log is its id alone.
    expectError(hidden!, 404, 'NOT_FOUND');
    const bundle = (await app.request({ method: 'GET', url: '/.tlog/registry/tile/entries/000.p/2' })).rawPayload;
    assert.ok(bundle.includes(registryLogEntry({ agentId: ids[1]!, event: 'registered', values: {}, time: '2026-01-02T00:00:00.000Z' })));
  });
});
