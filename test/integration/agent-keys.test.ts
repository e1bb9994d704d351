/**
 * A key made with `agentId` acts as that agent, not as the person who owns it: it reads what the
 * agent may read and writes only the agent's own operational state; the owner's decisions stay the
 * owner's. An agent's uploads count in its owner's quota, and the owner sees and deletes them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dialectUnderTest, expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { agentBody, claimAgent, newAgentKey, registerAgent, registerProvisional } from '../helpers/agents.ts';
import { png, uploadImage } from '../helpers/images.ts';

/** Room for 40 of the test image: enough parallel uploads to race, few enough that none waits past the database timeout. */
const QUOTA = png.length * 40;

describe('keys acting as an agent', () => {
  let app: TestApp;
  let owner: { token: string; accountId: string };
  let publicAgent: { id: string };
  let privateAgent: { id: string };
  let agentKey: string;

  const keyFor = async (token: string, agentId: string) => {
    const response = await app.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: 'agent key', agentId } });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().data.key as string;
  };
  const upload = (token: string, bytes?: Buffer) => uploadImage(app, token, bytes);

  before(async () => {
    app = await startTestApp({ MEDIA_QUOTA_BYTES: String(QUOTA) });
    owner = await app.signup();
    publicAgent = await registerAgent(app, owner.token);
    privateAgent = await registerAgent(app, owner.token, { visibility: 'private' });
    agentKey = await keyFor(owner.token, publicAgent.id);
  });
  after(() => app.close());

  it("does not see its owner's private agents", async () => {
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${privateAgent.id}`, token: agentKey }), 404, 'NOT_FOUND');
    const listed = await app.request({ method: 'GET', url: '/v1/agents', token: agentKey });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(
      listed.json().data.map((agent: { id: string }) => agent.id),
      [publicAgent.id],
    );
    assert.equal(listed.json().pagination.total, 1);
    // Its own agent it reads even when private.
    const privateKey = await keyFor(owner.token, privateAgent.id);
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${privateAgent.id}`, token: privateKey })).statusCode, 200);
    // The owner still sees both.
    const mine = await app.request({ method: 'GET', url: '/v1/agents', token: owner.token });
    assert.equal(mine.json().pagination.total, 2);
  });

  it('cannot register, claim, delete, or change its endpoint or credentials; it still reports its heartbeat', async () => {
    expectError(
      await app.request({
        method: 'POST',
        url: '/v1/agents',
        token: agentKey,
        body: agentBody(),
      }),
      403,
      'FORBIDDEN',
    );
    const provisional = await registerProvisional(app, newAgentKey());
    expectError(await claimAgent(app, agentKey, provisional.id, provisional.key), 403, 'FORBIDDEN');
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${provisional.id}`, token: owner.token })).json().data.status, 'provisional');

    const before = (await app.request({ method: 'GET', url: `/v1/agents/${publicAgent.id}`, token: owner.token })).json().data;
    expectError(
      await app.request({ method: 'PATCH', url: `/v1/agents/${publicAgent.id}`, token: agentKey, body: { endpoint: 'https://elsewhere.example.test/x' } }),
      403,
      'FORBIDDEN',
    );
    expectError(await app.request({ method: 'POST', url: `/v1/agents/${publicAgent.id}/webhook-secret`, token: agentKey }), 403, 'FORBIDDEN');
    expectError(await app.request({ method: 'DELETE', url: `/v1/agents/${publicAgent.id}`, token: agentKey }), 403, 'FORBIDDEN');
    const after = (await app.request({ method: 'GET', url: `/v1/agents/${publicAgent.id}`, token: owner.token })).json().data;
    assert.equal(after.endpoint, before.endpoint);
    assert.equal(after.updatedAt, before.updatedAt);

    const beat = await app.request({ method: 'POST', url: `/v1/agents/${publicAgent.id}/heartbeat`, token: agentKey, body: { status: 'available' } });
    assert.equal(beat.statusCode, 200, beat.body);
  });

  it("counts an agent's uploads in its owner's quota, and lets the owner list and delete them", async () => {
    const person = await app.signup();
    const agents = await Promise.all([0, 1, 2].map(() => registerAgent(app, person.token)));
    const keys = await Promise.all(agents.map((agent) => keyFor(person.token, agent.id)));
    const image = png;
    const fit = Math.floor(QUOTA / image.length);
    let stored = 0;
    for (let i = 0; i < fit + 5; i++) {
      const response = await upload(keys[i % keys.length]!, image);
      if (response.statusCode === 201) stored++;
      else expectError(response, 409, 'CONFLICT');
    }
    assert.equal(stored, fit, 'all three agents together hold no more than their owner may');
    expectError(await upload(person.token, image), 409, 'CONFLICT');

    const listed = await app.request({ method: 'GET', url: '/v1/media?limit=100', token: person.token });
    assert.equal(listed.json().pagination.total, fit);
    const first = listed.json().data[0].id as string;
    // An agent's key lists only its own; the owner deletes any of them.
    const ownByKey = await app.request({ method: 'GET', url: '/v1/media?limit=100', token: keys[0]! });
    assert.ok(ownByKey.json().pagination.total < fit);
    const deleted = await app.request({ method: 'DELETE', url: `/v1/media/${first}`, token: person.token });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.equal((await upload(keys[0]!, image)).statusCode, 201, 'the freed bytes can be used again');
  });

  it('holds the quota under parallel uploads', async () => {
    const person = await app.signup();
    const agents = await Promise.all([0, 1, 2].map(() => registerAgent(app, person.token)));
    const keys = await Promise.all(agents.map((agent) => keyFor(person.token, agent.id)));
    const image = png;
    const fit = Math.floor(QUOTA / image.length);
    const answers = await Promise.all(Array.from({ length: fit * 2 }, (_, i) => upload(i % 4 === 3 ? person.token : keys[i % 3]!, image)));
    const stored = answers.filter((response) => response.statusCode === 201).length;
    assert.equal(stored, fit, `${dialectUnderTest}: ${stored} uploads stored where ${fit} fit`);
    for (const response of answers) if (response.statusCode !== 201) expectError(response, 409, 'CONFLICT');
  });
});

describe('changing an agent endpoint', () => {
  let app: TestApp;
  let owner: { token: string; accountId: string };
  before(async () => {
    app = await startTestApp();
    owner = await app.signup();
  });
  after(() => app.close());

  const patch = (id: string, body: Record<string, unknown>) => app.request({ method: 'PATCH', url: `/v1/agents/${id}`, token: owner.token, body });

  it('removes the stored credential unless the same request sets one, and says so', async () => {
    const agent = await registerAgent(app, owner.token, { authType: 'bearer', authCredential: 'old-host-secret' });
    assert.equal(agent.hasAuthCredential, true);

    const unrelated = await patch(agent.id, { description: 'Still the same host' });
    assert.equal(unrelated.json().data.hasAuthCredential, true);
    assert.equal(unrelated.json().message, undefined);

    const moved = await patch(agent.id, { endpoint: 'https://new-host.example.test/tasks' });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().data.hasAuthCredential, false);
    assert.match(moved.json().message, /stored credential was removed/);

    await patch(agent.id, { authCredential: 'new-host-secret' });
    const movedWithOne = await patch(agent.id, { endpoint: 'https://third-host.example.test/tasks', authCredential: 'third-host-secret' });
    assert.equal(movedWithOne.json().data.hasAuthCredential, true);
    assert.equal(movedWithOne.json().message, undefined);
  });
});
