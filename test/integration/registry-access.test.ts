import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { agentBody, agentSignature, claimAgent, newAgentKey, registerAgent, registerProvisional } from '../helpers/agents.ts';

type Viewer = 'owner' | 'member' | 'outsider' | 'anonymous';

describe('registry: visibility matrix on every read path', () => {
  let app: TestApp;
  const tokens: Record<Viewer, string | null> = { owner: null, member: null, outsider: null, anonymous: null };
  const agents: Record<'public' | 'org' | 'private', string> = { public: '', org: '', private: '' };

  before(async () => {
    app = await startTestApp();
    const owner = await app.signup();
    const member = await app.signup();
    const outsider = await app.signup();
    tokens.owner = owner.token;
    tokens.member = member.token;
    tokens.outsider = outsider.token;
    const org = (await app.request({ method: 'POST', url: '/v1/orgs', token: owner.token, body: { name: 'Acme' } })).json().data;
    const added = await app.request({ method: 'POST', url: `/v1/orgs/${org.id}/members`, token: owner.token, body: { accountId: member.accountId } });
    assert.equal(added.statusCode, 201, added.body);
    agents.public = (await registerAgent(app, owner.token)).id;
    agents.org = (await registerAgent(app, owner.token, { visibility: 'org', orgId: org.id })).id;
    agents.private = (await registerAgent(app, owner.token, { visibility: 'private' })).id;
  });
  after(() => app.close());

  const sees: Record<'public' | 'org' | 'private', Viewer[]> = {
    public: ['owner', 'member', 'outsider', 'anonymous'],
    org: ['owner', 'member'],
    private: ['owner'],
  };

  for (const visibility of ['public', 'org', 'private'] as const) {
    for (const viewer of ['owner', 'member', 'outsider', 'anonymous'] as const) {
      const visible = sees[visibility].includes(viewer);
      it(`${visibility} agent, ${viewer}: ${visible ? 'visible' : '404'} on GET /v1/agents/:id`, async () => {
        const response = await app.request({ method: 'GET', url: `/v1/agents/${agents[visibility]}`, token: tokens[viewer] });
        if (visible) assert.equal(response.statusCode, 200);
        else expectError(response, 404, 'NOT_FOUND');
      });

      it(`${visibility} agent, ${viewer}: owner actions answer ${viewer === 'owner' ? 'success' : visible ? '403' : '404/401'}`, async () => {
        const token = tokens[viewer];
        const attempts = [
          { method: 'PATCH', url: `/v1/agents/${agents[visibility]}`, body: { description: `changed by ${viewer}` } },
          { method: 'POST', url: `/v1/agents/${agents[visibility]}/webhook-secret` },
          { method: 'POST', url: `/v1/agents/${agents[visibility]}/heartbeat`, body: { status: 'available' } },
        ];
        for (const attempt of attempts) {
          const response = await app.request({ ...attempt, token });
          if (viewer === 'owner') assert.ok(response.statusCode < 300, `${attempt.method} ${attempt.url}: ${response.body}`);
          else if (viewer === 'anonymous') expectError(response, 401, 'UNAUTHORIZED');
          else if (visible) expectError(response, 403, 'FORBIDDEN');
          else expectError(response, 404, 'NOT_FOUND');
        }
        if (viewer !== 'owner' && viewer !== 'anonymous') {
          const key = await app.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: 'steal', agentId: agents[visibility] } });
          if (visible) expectError(key, 403, 'FORBIDDEN');
          else expectError(key, 404, 'NOT_FOUND');
          const profile = await app.request({
            method: 'POST',
            url: '/v1/users',
            token,
            body: { username: `p_${viewer}_${visibility}`, displayName: 'x', type: 'agent', agentId: agents[visibility] },
          });
          if (visible) expectError(profile, 403, 'FORBIDDEN');
          else expectError(profile, 404, 'NOT_FOUND');
        }
      });
    }

    it(`${visibility} agent: listed in GET /v1/agents for its owner only`, async () => {
      const mine = (await app.request({ method: 'GET', url: '/v1/agents?limit=100', token: tokens.owner })).json();
      assert.ok(mine.data.some((a: { id: string }) => a.id === agents[visibility]));
      for (const viewer of ['member', 'outsider'] as const) {
        const theirs = (await app.request({ method: 'GET', url: '/v1/agents', token: tokens[viewer] })).json();
        assert.ok(!theirs.data.some((a: { id: string }) => a.id === agents[visibility]));
      }
      expectError(await app.request({ method: 'GET', url: '/v1/agents' }), 401, 'UNAUTHORIZED');
    });
  }

  it('hidden agents answer 404 (not 409) on the claim challenge to anyone', async () => {
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agents.private}/claim/challenge` }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agents.public}/claim/challenge` }), 409, 'CONFLICT');
  });
});

describe('registry: owner actions', () => {
  let app: TestApp;
  let owner: { token: string; accountId: string };
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({}, { clock });
    owner = await app.signup();
  });
  after(() => app.close());

  it('PATCH changes writable fields, keeps the slug, and refuses protected fields with 400', async () => {
    const agent = await registerAgent(app, owner.token);
    clock.advance(60_000);
    const changed = await app.request({
      method: 'PATCH',
      url: `/v1/agents/${agent.id}`,
      token: owner.token,
      body: { name: 'Renamed Agent', version: '1.1.0', capabilities: ['translation'], docsUrl: null },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    const data = changed.json().data;
    assert.equal(data.name, 'Renamed Agent');
    assert.equal(data.slug, agent.slug);
    assert.deepEqual(data.capabilities, ['translation']);
    assert.equal(data.updatedAt, clock.now().toISOString());
    assert.notEqual(data.updatedAt, agent.updatedAt);
    for (const body of [
      { status: 'provisional' },
      { ownerId: 'x' },
      { slug: 'new-slug' },
      { registrationPubkey: newAgentKey().pubkey },
      {},
      { version: 'one' },
      { endpoint: null },
    ]) {
      expectError(await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body }), 400, 'BAD_REQUEST');
    }
    const poll = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { endpoint: null, deliveryMode: 'poll' } });
    assert.equal(poll.json().data.deliveryMode, 'poll');
    expectError(await app.request({ method: 'PATCH', url: '/v1/agents/unknown-id', token: owner.token, body: { description: 'x' } }), 404, 'NOT_FOUND');
  });

  it('making an agent private hides it from others at once', async () => {
    const agent = await registerAgent(app, owner.token);
    await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { visibility: 'private' } });
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` }), 404, 'NOT_FOUND');
  });

  it('DELETE removes the agent and stops keys bound to it', async () => {
    const agent = await registerAgent(app, owner.token);
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'bot', agentId: agent.id } })).json().data.key;
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token: key })).statusCode, 200);
    const deleted = await app.request({ method: 'DELETE', url: `/v1/agents/${agent.id}`, token: owner.token });
    assert.deepEqual(deleted.json(), { data: { id: agent.id, deleted: true } });
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token: key }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'DELETE', url: `/v1/agents/${agent.id}`, token: owner.token }), 404, 'NOT_FOUND');
  });

  it('rotates the webhook secret (shown once) and removes it', async () => {
    const agent = await registerAgent(app, owner.token);
    const first = await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/webhook-secret`, token: owner.token });
    assert.equal(first.statusCode, 201);
    const secret = first.json().data.secret;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const second = (await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/webhook-secret`, token: owner.token })).json().data.secret;
    assert.notEqual(second, secret);
    const view = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}`, token: owner.token });
    assert.equal(view.json().data.hasWebhookSecret, true);
    assert.ok(!view.body.includes('whsec_'));
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/agents/${agent.id}/webhook-secret`, token: owner.token })).statusCode, 200);
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` })).json().data.hasWebhookSecret, false);
    expectError(await app.request({ method: 'DELETE', url: `/v1/agents/${agent.id}/webhook-secret`, token: owner.token }), 404, 'NOT_FOUND');
  });
});

describe('registry: API keys bound to agents', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('acts as the agent’s own service account with a profile of its own', async () => {
    const owner = await app.signup();
    await app.request({ method: 'POST', url: '/v1/users', token: owner.token, body: { username: 'the_owner', displayName: 'Owner' } });
    const agent = await registerAgent(app, owner.token);
    const created = await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'agent key', agentId: agent.id } });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().data.agentId, agent.id);
    const key = created.json().data.key;
    const account = (await app.request({ method: 'GET', url: '/v1/auth/account', token: key })).json().data;
    assert.equal(account.kind, 'agent');
    assert.equal(account.agentId, agent.id);
    assert.notEqual(account.id, owner.accountId);
    const profile = await app.request({ method: 'POST', url: '/v1/users', token: key, body: { username: 'summary_bot', displayName: 'Summary Bot' } });
    assert.equal(profile.statusCode, 201, profile.body);
    assert.equal(profile.json().data.type, 'agent');
    assert.equal(profile.json().data.agentId, agent.id);
    assert.equal((await app.request({ method: 'GET', url: '/v1/users/me', token: owner.token })).json().data.username, 'the_owner');
    // A second key for the same agent speaks as the same service account.
    const again = (await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'k2', agentId: agent.id } })).json().data.key;
    assert.equal((await app.request({ method: 'GET', url: '/v1/users/me', token: again })).json().data.username, 'summary_bot');
    // The owner lists and revokes the agent's keys.
    const listed = (await app.request({ method: 'GET', url: '/v1/api-keys', token: owner.token })).json().data;
    assert.equal(listed.filter((k: { agentId: string | null }) => k.agentId === agent.id).length, 2);
  });

  it('acts for its own agent only', async () => {
    const owner = await app.signup();
    const first = await registerAgent(app, owner.token);
    const second = await registerAgent(app, owner.token);
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'a', agentId: first.id } })).json().data.key;
    assert.equal((await app.request({ method: 'POST', url: `/v1/agents/${first.id}/heartbeat`, token: key, body: {} })).statusCode, 200);
    expectError(await app.request({ method: 'PATCH', url: `/v1/agents/${second.id}`, token: key, body: { description: 'hijack' } }), 403, 'FORBIDDEN');
    expectError(await app.request({ method: 'POST', url: '/v1/api-keys', token: key, body: { name: 'more' } }), 401, 'UNAUTHORIZED');
  });

  it('is refused (409) for a provisional agent, then allowed once claimed', async () => {
    const owner = await app.signup();
    const { id, key } = await registerProvisional(app);
    expectError(await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'early', agentId: id } }), 409, 'CONFLICT');
    assert.equal((await claimAgent(app, owner.token, id, key)).statusCode, 200);
    assert.equal((await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'now', agentId: id } })).statusCode, 201);
  });
});

describe('registry: heartbeats and availability', () => {
  let app: TestApp;
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({ HEARTBEAT_INTERVAL_SECONDS: '60' }, { clock });
  });
  after(() => app.close());

  it('keeps a reported load to four decimals, so a load too small for a 4-byte float is 0, not a 500', async () => {
    const owner = await app.signup();
    const agent = await registerAgent(app, owner.token);
    for (const [sent, kept] of [
      [5.838120375391183e-155, 0],
      [0.123456789, 0.1235],
      [1, 1],
    ] as const) {
      const beat = await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/heartbeat`, token: owner.token, body: { status: 'busy', load: sent } });
      assert.equal(beat.statusCode, 200, beat.body);
      assert.equal(beat.json().data.heartbeat.load, kept);
      assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${agent.id}`, token: owner.token })).json().data.heartbeat.load, kept);
    }
  });

  it('moves from unknown to available, then away after two intervals, then offline after 24 h', async () => {
    const owner = await app.signup();
    const agent = await registerAgent(app, owner.token);
    const availability = async () => (await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` })).json().data.availability;
    assert.equal(await availability(), 'unknown');
    const beat = await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/heartbeat`, token: owner.token, body: { status: 'busy', load: 0.75 } });
    assert.equal(beat.statusCode, 200, beat.body);
    assert.deepEqual(beat.json().data.heartbeat, { status: 'busy', load: 0.75 });
    assert.equal(beat.json().data.availability, 'available');
    clock.advance(120_000);
    assert.equal(await availability(), 'available');
    clock.advance(1000);
    assert.equal(await availability(), 'away');
    clock.advance(24 * 3600_000);
    assert.equal(await availability(), 'offline');
  });

  it('accepts a provisional agent’s signed header and refuses bad, stale or missing signatures', async () => {
    const { id, key } = await registerProvisional(app);
    const now = Math.floor(clock.now().getTime() / 1000);
    const header = (seconds: number, signer = key) => agentSignature(id, signer, seconds);
    const ok = await app.request({
      method: 'POST',
      url: `/v1/agents/${id}/heartbeat`,
      headers: { 'x-agent-signature': header(now) },
      body: { status: 'available', load: 0.1 },
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().data.availability, 'available');
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${id}/heartbeat`, headers: { 'x-agent-signature': header(now, newAgentKey()) }, body: {} }),
      401,
      'UNAUTHORIZED',
    );
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${id}/heartbeat`, headers: { 'x-agent-signature': header(now - 301) }, body: {} }),
      401,
      'UNAUTHORIZED',
    );
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${id}/heartbeat`, headers: { 'x-agent-signature': 'garbage' }, body: {} }),
      401,
      'UNAUTHORIZED',
    );
    expectError(await app.request({ method: 'POST', url: `/v1/agents/${id}/heartbeat`, body: {} }), 401, 'UNAUTHORIZED');
    expectError(
      await app.request({ method: 'POST', url: '/v1/agents/nope/heartbeat', headers: { 'x-agent-signature': header(now) }, body: {} }),
      404,
      'NOT_FOUND',
    );
  });

  it('rejects bad heartbeat bodies', async () => {
    const owner = await app.signup();
    const agent = await registerAgent(app, owner.token);
    for (const body of [{ load: 2 }, { load: -0.1 }, { status: 'sleeping' }, { load: '0.5' }, { extra: true }]) {
      expectError(await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/heartbeat`, token: owner.token, body }), 400, 'BAD_REQUEST');
    }
  });
});

describe('organizations', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('creates, shows to members only, and manages members', async () => {
    const owner = await app.signup();
    const member = await app.signup();
    const outsider = await app.signup();
    await app.request({ method: 'POST', url: '/v1/users', token: member.token, body: { username: 'org_member', displayName: 'M' } });
    const created = await app.request({ method: 'POST', url: '/v1/orgs', token: owner.token, body: { name: 'Initech' } });
    assert.equal(created.statusCode, 201);
    const org = created.json().data;
    assert.deepEqual(
      org.members.map((m: { accountId: string; role: string }) => [m.accountId, m.role]),
      [[owner.accountId, 'owner']],
    );
    const added = await app.request({ method: 'POST', url: `/v1/orgs/${org.id}/members`, token: owner.token, body: { username: 'ORG_MEMBER' } });
    assert.equal(added.statusCode, 201, added.body);
    assert.equal(added.json().data.members.length, 2);
    expectError(
      await app.request({ method: 'POST', url: `/v1/orgs/${org.id}/members`, token: owner.token, body: { accountId: member.accountId } }),
      409,
      'CONFLICT',
    );
    assert.equal((await app.request({ method: 'GET', url: `/v1/orgs/${org.id}`, token: member.token })).statusCode, 200);
    expectError(await app.request({ method: 'GET', url: `/v1/orgs/${org.id}`, token: outsider.token }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: `/v1/orgs/${org.id}` }), 401, 'UNAUTHORIZED');
    expectError(
      await app.request({ method: 'POST', url: `/v1/orgs/${org.id}/members`, token: member.token, body: { accountId: outsider.accountId } }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await app.request({ method: 'POST', url: `/v1/orgs/${org.id}/members`, token: outsider.token, body: { accountId: outsider.accountId } }),
      404,
      'NOT_FOUND',
    );
    expectError(await app.request({ method: 'POST', url: `/v1/orgs/${org.id}/members`, token: owner.token, body: {} }), 400, 'BAD_REQUEST');
    expectError(
      await app.request({ method: 'POST', url: `/v1/orgs/${org.id}/members`, token: owner.token, body: { username: 'nobody_here' } }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await app.request({ method: 'DELETE', url: `/v1/orgs/${org.id}/members`, token: owner.token, body: { accountId: owner.accountId } }),
      409,
      'CONFLICT',
    );
    const left = await app.request({ method: 'DELETE', url: `/v1/orgs/${org.id}/members`, token: member.token, body: { accountId: member.accountId } });
    assert.equal(left.statusCode, 200);
    expectError(await app.request({ method: 'GET', url: `/v1/orgs/${org.id}`, token: member.token }), 404, 'NOT_FOUND');
  });

  it("a key acting as the owner's agent is no member: it cannot see, join others to, or make orgs", async () => {
    const owner = await app.signup();
    const outsider = await app.signup();
    const org = (await app.request({ method: 'POST', url: '/v1/orgs', token: owner.token, body: { name: 'Umbrella' } })).json().data;
    const agent = await registerAgent(app, owner.token);
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'agent', agentId: agent.id } })).json().data.key;
    expectError(await app.request({ method: 'GET', url: `/v1/orgs/${org.id}`, token: key }), 404, 'NOT_FOUND');
    expectError(
      await app.request({ method: 'POST', url: `/v1/orgs/${org.id}/members`, token: key, body: { accountId: outsider.accountId } }),
      404,
      'NOT_FOUND',
    );
    expectError(await app.request({ method: 'DELETE', url: `/v1/orgs/${org.id}/members`, token: key, body: { accountId: owner.accountId } }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'POST', url: '/v1/orgs', token: key, body: { name: 'Made by an agent' } }), 403, 'FORBIDDEN');
    const after = (await app.request({ method: 'GET', url: `/v1/orgs/${org.id}`, token: owner.token })).json().data;
    assert.deepEqual(
      after.members.map((m: { accountId: string }) => m.accountId),
      [owner.accountId],
      'nobody was added or removed',
    );
    // The owner's own key (no agentId) acts as the owner and still manages the org.
    const personKey = (await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'me' } })).json().data.key;
    assert.equal(
      (await app.request({ method: 'POST', url: `/v1/orgs/${org.id}/members`, token: personKey, body: { accountId: outsider.accountId } })).statusCode,
      201,
    );
  });

  it('lets only members register org agents', async () => {
    const owner = await app.signup();
    const outsider = await app.signup();
    const org = (await app.request({ method: 'POST', url: '/v1/orgs', token: owner.token, body: { name: 'Hooli' } })).json().data;
    expectError(
      await app.request({ method: 'POST', url: '/v1/agents', token: outsider.token, body: agentBody({ visibility: 'org', orgId: org.id }) }),
      404,
      'NOT_FOUND',
    );
    expectError(await app.request({ method: 'POST', url: '/v1/orgs', token: owner.token, body: { name: '' } }), 400, 'BAD_REQUEST');
  });
});

describe('capability catalogue', () => {
  it('publishes at least 133 capabilities over 29 categories with counts', async () => {
    const app = await startTestApp();
    try {
      const response = await app.request({ method: 'GET', url: '/v1/capabilities' });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.ok(body.data.length >= 133);
      assert.equal(body.categories.length, 29);
      assert.equal(
        body.categories.reduce((sum: number, c: { count: number }) => sum + c.count, 0),
        body.data.length,
      );
      for (const capability of body.data) assert.deepEqual(Object.keys(capability).sort(), ['aliases', 'category', 'description', 'name', 'slug']);
    } finally {
      await app.close();
    }
  });
});
