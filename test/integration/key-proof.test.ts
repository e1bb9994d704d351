import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { agentSignature, claimAgent, newAgentKey, proveKey, registerAgent, registerProvisional, type AgentKey } from '../helpers/agents.ts';
import { makeReceipt, type Party } from '../helpers/receipts.ts';

const agentView = async (app: TestApp, id: string, token?: string) => {
  const response = await app.request({ method: 'GET', url: `/v1/agents/${id}`, token: token ?? null });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().data as { keyVerified: boolean; registrationPubkey: string | null; [field: string]: unknown };
};

describe('registry: proving the registration key (GET key-challenge, POST key-proof)', () => {
  let app: TestApp;
  const clock = new TestClock();
  let owner: { token: string; accountId: string };
  before(async () => {
    app = await startTestApp({ PROVISIONAL_RATE_LIMIT_MAX: '1000' }, { clock });
    owner = await app.signup();
  });
  after(() => app.close());

  const challenge = (id: string, token: string | null = owner.token) => app.request({ method: 'GET', url: `/v1/agents/${id}/key-challenge`, token });
  const prove = (id: string, signature: string, token: string | null = owner.token) =>
    app.request({ method: 'POST', url: `/v1/agents/${id}/key-proof`, token, body: { signature } });
  const keyedAgent = async (key: AgentKey = newAgentKey(), overrides: Record<string, unknown> = {}) =>
    Object.assign(await registerAgent(app, owner.token, { pubkey: key.pubkey, ...overrides }), { key });

  it('an agent registered with a pubkey starts unproven; a signature over the challenge proves it', async () => {
    const agent = await keyedAgent();
    assert.equal(agent.keyVerified, false);
    const issued = await challenge(agent.id);
    assert.equal(issued.statusCode, 200, issued.body);
    const data = issued.json().data;
    assert.deepEqual(Object.keys(data).sort(), ['agentId', 'expiresAt', 'instructions', 'nonce']);
    assert.equal(data.agentId, agent.id);
    assert.match(data.nonce, /^[0-9a-f]{64}$/);
    assert.equal(Date.parse(data.expiresAt) - clock.now().getTime(), 10 * 60 * 1000);
    assert.match(data.instructions, new RegExp(`/v1/agents/${agent.id}/key-proof`));

    const proven = await prove(agent.id, agent.key.sign(data.nonce));
    assert.equal(proven.statusCode, 200, proven.body);
    assert.deepEqual(proven.json().data, { id: agent.id, keyVerifiedAt: clock.now().toISOString() });
    assert.equal(typeof proven.json().message, 'string');
    assert.equal((await agentView(app, agent.id)).keyVerified, true);
    const mine = (await app.request({ method: 'GET', url: '/v1/agents?limit=100', token: owner.token })).json().data as { id: string; keyVerified: boolean }[];
    assert.equal(mine.find((a) => a.id === agent.id)?.keyVerified, true);
  });

  it('accepts a standard base64 signature; the five most recent challenges stay valid, and a proof spends them all', async () => {
    const agent = await keyedAgent();
    const nonces = [];
    for (let i = 0; i < 6; i++) nonces.push((await challenge(agent.id)).json().data.nonce as string);
    assert.equal(new Set(nonces).size, 6);
    assert.match(expectError(await prove(agent.id, agent.key.sign(nonces[0]!)), 400, 'BAD_REQUEST').message, /replaced/);
    const standard = Buffer.from(agent.key.sign(nonces[1]!), 'base64url').toString('base64');
    assert.equal((await prove(agent.id, standard)).statusCode, 200);
    expectError(await prove(agent.id, standard), 400, 'BAD_REQUEST');
    expectError(await prove(agent.id, agent.key.sign(nonces[5]!)), 400, 'BAD_REQUEST');
  });

  it('a signature by another key is 403, changes nothing and leaves the challenge usable', async () => {
    const agent = await keyedAgent();
    const nonce = (await challenge(agent.id)).json().data.nonce;
    expectError(await prove(agent.id, newAgentKey().sign(nonce)), 403, 'FORBIDDEN');
    expectError(await prove(agent.id, agent.key.sign(`${nonce}x`)), 403, 'FORBIDDEN');
    assert.equal((await agentView(app, agent.id)).keyVerified, false);
    assert.equal((await prove(agent.id, agent.key.sign(nonce))).statusCode, 200);
  });

  it('answers 400 without a challenge, after it expires, and for a malformed signature or body', async () => {
    const agent = await keyedAgent();
    expectError(await prove(agent.id, agent.key.sign('0'.repeat(64))), 400, 'BAD_REQUEST');
    const nonce = (await challenge(agent.id)).json().data.nonce;
    expectError(await prove(agent.id, 'not base64!'), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/key-proof`, token: owner.token, body: {} }), 400, 'BAD_REQUEST');
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/key-proof`, token: owner.token, body: { signature: 'x', extra: 1 } }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/key-proof`, token: owner.token, rawBody: '{"signature":' }),
      400,
      'BAD_REQUEST',
    );
    clock.advance(10 * 60 * 1000 + 1000);
    expectError(await prove(agent.id, agent.key.sign(nonce)), 400, 'BAD_REQUEST');
    assert.equal((await agentView(app, agent.id)).keyVerified, false);
  });

  it('answers 409 to a proof for an agent registered without a key; its challenge says how to set one', async () => {
    const keyless = await registerAgent(app, owner.token);
    assert.equal(keyless.keyVerified, false);
    const issued = await challenge(keyless.id);
    assert.equal(issued.statusCode, 200, issued.body);
    assert.match(issued.json().data.instructions, new RegExp(`PUT /v1/agents/${keyless.id}/key`));
    expectError(await prove(keyless.id, newAgentKey().sign(issued.json().data.nonce)), 409, 'CONFLICT');
  });

  it("needs a credential, and is the owner's alone: 403 for a visible agent of someone else, 404 for a hidden or unknown one", async () => {
    const agent = await keyedAgent();
    const hidden = await keyedAgent(newAgentKey(), { visibility: 'private' });
    const stranger = await app.signup();
    const nonce = (await challenge(agent.id)).json().data.nonce;
    expectError(await challenge(agent.id, null), 401, 'UNAUTHORIZED');
    expectError(await prove(agent.id, agent.key.sign(nonce), null), 401, 'UNAUTHORIZED');
    expectError(await challenge(agent.id, stranger.token), 403, 'FORBIDDEN');
    expectError(await prove(agent.id, agent.key.sign(nonce), stranger.token), 403, 'FORBIDDEN');
    expectError(await challenge(hidden.id, stranger.token), 404, 'NOT_FOUND');
    expectError(await prove(hidden.id, hidden.key.sign(nonce), stranger.token), 404, 'NOT_FOUND');
    expectError(await challenge('no-such-agent'), 404, 'NOT_FOUND');
    assert.equal((await agentView(app, agent.id)).keyVerified, false);
    // A provisional agent has no owner yet: its key is proven by claiming it.
    const provisional = await registerProvisional(app);
    expectError(await challenge(provisional.id), 403, 'FORBIDDEN');
  });

  it('a claim proves the key', async () => {
    const { id, key } = await registerProvisional(app);
    assert.equal((await agentView(app, id)).keyVerified, false);
    assert.equal((await claimAgent(app, owner.token, id, key)).statusCode, 200);
    assert.equal((await agentView(app, id)).keyVerified, true);
  });

  it("a signed heartbeat proves the key; one with the owner's credential does not", async () => {
    const { id, key } = await registerProvisional(app);
    const seconds = Math.floor(clock.now().getTime() / 1000);
    const signed = await app.request({
      method: 'POST',
      url: `/v1/agents/${id}/heartbeat`,
      headers: { 'x-agent-signature': agentSignature(id, key, seconds) },
      body: {},
    });
    assert.equal(signed.statusCode, 200, signed.body);
    assert.equal((await agentView(app, id)).keyVerified, true);

    const owned = await keyedAgent();
    assert.equal((await app.request({ method: 'POST', url: `/v1/agents/${owned.id}/heartbeat`, token: owner.token, body: {} })).statusCode, 200);
    assert.equal((await agentView(app, owned.id)).keyVerified, false);
  });

  it("a heartbeat signed by the registration key proves it even when the owner's credential comes with it", async () => {
    const owned = await keyedAgent();
    const seconds = Math.floor(clock.now().getTime() / 1000);
    const beat = await app.request({
      method: 'POST',
      url: `/v1/agents/${owned.id}/heartbeat`,
      token: owner.token,
      headers: { 'x-agent-signature': agentSignature(owned.id, owned.key, seconds) },
      body: {},
    });
    assert.equal(beat.statusCode, 200, beat.body);
    assert.equal((await agentView(app, owned.id)).keyVerified, true);
    // A signature by another key is refused, credential or not.
    const other = await keyedAgent();
    const forged = await app.request({
      method: 'POST',
      url: `/v1/agents/${other.id}/heartbeat`,
      token: owner.token,
      headers: { 'x-agent-signature': agentSignature(other.id, newAgentKey(), seconds) },
      body: {},
    });
    expectError(forged, 401, 'UNAUTHORIZED');
    assert.equal((await agentView(app, other.id)).keyVerified, false);
  });
});

describe('registry: an owner sets the registration key (PUT /v1/agents/:id/key)', () => {
  let app: TestApp;
  const clock = new TestClock();
  let owner: { token: string; accountId: string };
  before(async () => {
    app = await startTestApp({}, { clock });
    owner = await app.signup();
  });
  after(() => app.close());

  const nonceFor = async (id: string, token: string | null = owner.token) => {
    const response = await app.request({ method: 'GET', url: `/v1/agents/${id}/key-challenge`, token });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data.nonce as string;
  };
  const setKey = (id: string, body: unknown, token: string | null = owner.token) => app.request({ method: 'PUT', url: `/v1/agents/${id}/key`, token, body });
  const signedHeartbeat = (id: string, key: AgentKey) =>
    app.request({
      method: 'POST',
      url: `/v1/agents/${id}/heartbeat`,
      headers: { 'x-agent-signature': agentSignature(id, key, Math.floor(clock.now().getTime() / 1000)) },
      body: {},
    });

  it('adds a key to an agent registered without one, proven at once', async () => {
    const agent = await registerAgent(app, owner.token);
    const key = newAgentKey();
    const response = await setKey(agent.id, { pubkey: key.pubkey, signature: key.sign(await nonceFor(agent.id)) });
    assert.equal(response.statusCode, 200, response.body);
    const { data, message } = response.json();
    assert.equal(data.id, agent.id);
    assert.equal(data.registrationPubkey, key.pubkey);
    assert.equal(data.keyVerified, true);
    assert.match(message, /trust/);
    const view = await agentView(app, agent.id);
    assert.equal(view.registrationPubkey, key.pubkey);
    assert.equal(view.keyVerified, true);
    assert.equal((await signedHeartbeat(agent.id, key)).statusCode, 200);
  });

  it('replaces a key: the old one no longer signs for the agent, and the challenge is spent', async () => {
    const oldKey = newAgentKey();
    const agent = await registerAgent(app, owner.token, { pubkey: oldKey.pubkey });
    const newKey = newAgentKey();
    const nonce = await nonceFor(agent.id);
    const response = await setKey(agent.id, { pubkey: newKey.pubkey, signature: newKey.sign(nonce) });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((await agentView(app, agent.id)).registrationPubkey, newKey.pubkey);
    expectError(await signedHeartbeat(agent.id, oldKey), 401, 'UNAUTHORIZED');
    assert.equal((await signedHeartbeat(agent.id, newKey)).statusCode, 200);
    expectError(await setKey(agent.id, { pubkey: newKey.pubkey, signature: newKey.sign(nonce) }), 400, 'BAD_REQUEST');
  });

  it('answers 400 for a bad key, a signature by another key, no or an expired challenge, and missing fields, changing nothing', async () => {
    const oldKey = newAgentKey();
    const agent = await registerAgent(app, owner.token, { pubkey: oldKey.pubkey });
    const key = newAgentKey();
    expectError(await setKey(agent.id, { pubkey: key.pubkey, signature: key.sign('f'.repeat(64)) }), 400, 'BAD_REQUEST');
    const nonce = await nonceFor(agent.id);
    expectError(await setKey(agent.id, { pubkey: 'ed25519:not-a-key', signature: key.sign(nonce) }), 400, 'BAD_REQUEST');
    const wrong = expectError(await setKey(agent.id, { pubkey: key.pubkey, signature: newAgentKey().sign(nonce) }), 400, 'BAD_REQUEST');
    assert.equal(wrong.details?.[0]?.path, '/body/signature');
    expectError(await setKey(agent.id, { pubkey: key.pubkey, signature: 'not base64!' }), 400, 'BAD_REQUEST');
    expectError(await setKey(agent.id, { pubkey: key.pubkey }), 400, 'BAD_REQUEST');
    expectError(await setKey(agent.id, { pubkey: key.pubkey, signature: key.sign(nonce), extra: 1 }), 400, 'BAD_REQUEST');
    clock.advance(10 * 60 * 1000 + 1000);
    const expired = expectError(await setKey(agent.id, { pubkey: key.pubkey, signature: key.sign(nonce) }), 400, 'BAD_REQUEST');
    assert.match(expired.message, /expired/);
    const view = await agentView(app, agent.id);
    assert.equal(view.registrationPubkey, oldKey.pubkey);
    assert.equal(view.keyVerified, false);
  });

  it("is the owner's alone: 401 without a credential, 403 for someone else or another agent's key, 404 when hidden", async () => {
    const agent = await registerAgent(app, owner.token);
    const sibling = await registerAgent(app, owner.token);
    const hidden = await registerAgent(app, owner.token, { visibility: 'private' });
    const stranger = await app.signup();
    const siblingKey = (await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'sibling', agentId: sibling.id } })).json()
      .data.key as string;
    const key = newAgentKey();
    const body = { pubkey: key.pubkey, signature: key.sign(await nonceFor(agent.id)) };
    expectError(await setKey(agent.id, body, null), 401, 'UNAUTHORIZED');
    expectError(await setKey(agent.id, body, stranger.token), 403, 'FORBIDDEN');
    expectError(await setKey(agent.id, body, siblingKey), 403, 'FORBIDDEN');
    expectError(await setKey(hidden.id, body, stranger.token), 404, 'NOT_FOUND');
    expectError(await setKey('no-such-agent', body), 404, 'NOT_FOUND');
    assert.equal((await agentView(app, agent.id)).registrationPubkey, null);
    // The owner's own request still works with the same challenge: refusals spent nothing.
    assert.equal((await setKey(agent.id, body)).statusCode, 200);
  });
});

interface Found {
  id: string;
  trust: number;
  keyVerified: boolean;
}

/**
 * The attack: register an agent under someone else's public key (owned, or provisional with no
 * credential at all) and inherit that key's trust. Only the holder's proven agent carries it.
 */
describe('trust follows proven keys: discovery and routing', () => {
  let app: TestApp;
  const clock = new TestClock();
  const capability = 'contract-redlining';
  const description = 'Redlines commercial contracts and flags risky indemnity clauses.';
  /** Agents alike in all but their key (names differ by a number only), so trust decides the order. */
  let made = 0;
  const alike = () => ({ name: `Contract Redliner ${++made}`, description, capabilities: [capability], deliveryMode: 'poll', endpoint: undefined });
  const holderKey = newAgentKey();
  let holder: { token: string };
  let attacker: { token: string };
  let requester: { token: string };
  const agents = { holder: '', owned: '', provisional: '' };

  /** A poll agent that routing and discovery can both see as available. */
  async function readyAgent(token: string, overrides: Record<string, unknown>) {
    const agent = await registerAgent(app, token, { ...alike(), ...overrides });
    assert.equal((await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/heartbeat`, token, body: {} })).statusCode, 200);
    return agent.id;
  }

  /** `successes` verified outcome receipts about `subject` in legal.contracts, from a new independent, registered issuer. */
  async function vouchFor(subject: Party, successes: number) {
    const voucherKey = newAgentKey();
    const voucher = await registerAgent(app, (await app.signup()).token, { pubkey: voucherKey.pubkey });
    for (let i = 0; i < successes; i++) {
      const receipt = makeReceipt('outcome', { agent: voucher.slug, key: voucherKey }, subject, {
        taskClass: 'legal.contracts',
        payload: { outcome: 'success', latencyMs: 10 },
      });
      assert.equal((await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt })).statusCode, 201);
    }
  }

  before(async () => {
    app = await startTestApp({ PROVISIONAL_RATE_LIMIT_MAX: '1000' }, { clock });
    [holder, attacker, requester] = [await app.signup(), await app.signup(), await app.signup()];
    agents.holder = await readyAgent(holder.token, { pubkey: holderKey.pubkey });
    await proveKey(app, holder.token, agents.holder, holderKey);
    const holderSlug = (await agentView(app, agents.holder)).slug as string;

    await vouchFor({ agent: holderSlug, key: holderKey }, 3);

    // The attacker's copies: same description and capability, the holder's public key, no private key.
    agents.owned = await readyAgent(attacker.token, { pubkey: holderKey.pubkey });
    // Registration sends only the public key: nothing here uses the private half.
    const provisional = await registerProvisional(app, holderKey, alike());
    agents.provisional = provisional.id;
    // Without the private key the copy cannot poll (or heartbeat) for it; never heard from, it is still routable.
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agents.provisional}/tasks/poll?wait=0` }), 401, 'UNAUTHORIZED');
  });
  after(() => app.close());

  const discover = async (query: string): Promise<Found[]> => {
    const response = await app.request({ method: 'GET', url: `/v1/discover?${query}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data;
  };
  /** Each candidate's trust factor, best candidate first. */
  const routeTrust = async (): Promise<Map<string, number>> => {
    const response = await app.request({
      method: 'POST',
      url: '/v1/tasks/route',
      token: requester.token,
      body: { description: 'Redline this contract', capabilities: [capability], taskClass: 'legal.contracts' },
    });
    assert.equal(response.statusCode, 200, response.body);
    const candidates = response.json().data.candidates as { agent: { id: string }; factors: { trust: number }; keyVerified: boolean }[];
    // Every candidate says whether its key is proven: without, its trust is the neutral 0.5.
    for (const c of candidates) if (!c.keyVerified) assert.equal(c.factors.trust, 0.5);
    assert.equal(candidates.find((c) => c.agent.id === agents.holder)?.keyVerified, true);
    return new Map(candidates.map((c) => [c.agent.id, c.factors.trust]));
  };

  it('the same key, registered by someone else, stays neutral in GET /v1/discover and ranks below the holder', async () => {
    const found = await discover(`q=${encodeURIComponent('redline my contract indemnity clauses')}`);
    const byId = new Map(found.map((agent) => [agent.id, agent]));
    assert.ok(byId.get(agents.holder)!.trust > 0.5, JSON.stringify(found));
    assert.equal(byId.get(agents.holder)!.keyVerified, true);
    for (const copy of [agents.owned, agents.provisional]) {
      assert.equal(byId.get(copy)?.trust, 0.5, JSON.stringify(found));
      assert.equal(byId.get(copy)?.keyVerified, false);
    }
    assert.equal(found[0]!.id, agents.holder);
  });

  it('GET /v1/discover/:slug shows the trust of the proven key only', async () => {
    const trustOf = async (id: string) => {
      const slug = (await agentView(app, id)).slug as string;
      return (await app.request({ method: 'GET', url: `/v1/discover/${slug}` })).json().data.trust as number;
    };
    assert.ok((await trustOf(agents.holder)) > 0.5);
    assert.equal(await trustOf(agents.owned), 0.5);
    assert.equal(await trustOf(agents.provisional), 0.5);
  });

  it('routing gives the copies neutral trust and the holder its own, and offers the task to the holder first', async () => {
    const trust = await routeTrust();
    assert.ok(trust.get(agents.holder)! > 0.5, JSON.stringify([...trust]));
    assert.equal(trust.get(agents.owned), 0.5);
    assert.equal(trust.get(agents.provisional), 0.5);
    assert.equal([...trust.keys()][0], agents.holder, 'candidates come best first');
  });

  it('GET /v1/trust stays about the key, whoever registered it', async () => {
    const response = await app.request({ method: 'GET', url: `/v1/trust?pubkey=${encodeURIComponent(holderKey.pubkey)}` });
    assert.equal(response.json().data.classes[0].taskClass, 'legal.contracts');
    assert.deepEqual(
      response.json().data.holders.map((agent: { id: string }) => agent.id),
      [agents.holder],
      'it names the one agent that proved it holds the key, not the copies',
    );
  });

  it('an agent whose owner then proves the key gets its trust at once, in discovery and routing', async () => {
    const second = await readyAgent(holder.token, { pubkey: holderKey.pubkey });
    const query = `capability=${capability}`;
    assert.equal((await discover(query)).find((a) => a.id === second)?.trust, 0.5);
    assert.equal((await routeTrust()).get(second), 0.5);
    await proveKey(app, holder.token, second, holderKey);
    const found = (await discover(query)).find((a) => a.id === second)!;
    assert.ok(found.trust > 0.5 && found.keyVerified, JSON.stringify(found));
    assert.ok((await routeTrust()).get(second)! > 0.5);
  });

  it('a provisional agent proving its key by a signed heartbeat gets its trust at once', async () => {
    const key = newAgentKey();
    const { id } = await registerProvisional(app, key, alike());
    await vouchFor({ agent: (await agentView(app, id)).slug as string, key }, 1);
    const query = `capability=${capability}`;
    assert.equal((await discover(query)).find((a) => a.id === id)?.trust, 0.5);

    const seconds = Math.floor(clock.now().getTime() / 1000);
    const beat = await app.request({
      method: 'POST',
      url: `/v1/agents/${id}/heartbeat`,
      headers: { 'x-agent-signature': agentSignature(id, key, seconds) },
      body: {},
    });
    assert.equal(beat.statusCode, 200, beat.body);
    assert.ok((await discover(query)).find((a) => a.id === id)!.trust > 0.5);
    assert.ok((await routeTrust()).get(id)! > 0.5);
  });
});
