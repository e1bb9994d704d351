/**
 * Credentials and profiles are cached in memory (docs/architecture.md, "Caches"); these tests
 * warm the caches first, then check that every change is seen at once on this node and, on
 * PostgreSQL, within a moment on another node sharing the database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, otherNode, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { registerAgent } from '../helpers/agents.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * Reads until `request` answers `status`: other nodes hear of a change a moment after it commits.
 * The wait stays under the caches' 30 s max age, so only the signal can explain the change.
 */
const eventuallyStatus = (request: () => Promise<{ statusCode: number }>, status: number) =>
  waitFor(
    `status ${status}`,
    async () => (await request()).statusCode,
    (statusCode) => statusCode === status,
  );

describe('cached credentials and profiles on one node', () => {
  let app: TestApp;
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({ SESSION_TTL_HOURS: '1' }, { clock });
  });
  after(() => app.close());

  const me = (token: string) => app.request({ method: 'GET', url: '/v1/users/me', token });
  const newKey = async (token: string, body: Record<string, unknown> = { name: 'k' }) =>
    (await app.request({ method: 'POST', url: '/v1/api-keys', token, body })).json().data as { id: string; key: string };

  it('shows a profile change on the very next GET, through a session and through a key', async () => {
    const { token } = await app.signup();
    const { key } = await newKey(token);
    expectError(await me(token), 404, 'NOT_FOUND');
    assert.equal((await app.request({ method: 'POST', url: '/v1/users', token, body: { username: 'cached_ada', displayName: 'Ada' } })).statusCode, 201);
    assert.equal((await me(token)).json().data.displayName, 'Ada');
    assert.equal((await me(key)).json().data.displayName, 'Ada');
    await app.request({ method: 'PATCH', url: '/v1/users/me', token: key, body: { displayName: 'Ada L.', bio: 'engines' } });
    for (const credential of [token, key]) {
      const data = (await me(credential)).json().data;
      assert.equal(data.displayName, 'Ada L.');
      assert.equal(data.bio, 'engines');
    }
  });

  it('refuses a session that was in use at once after logout, and leaves other sessions working', async () => {
    const { token, email } = await app.signup();
    const other = (await app.request({ method: 'POST', url: '/v1/auth/login', body: { email, password: 'correct horse battery' } })).json().data.token;
    for (const t of [token, other]) assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token: t })).statusCode, 200);
    await app.request({ method: 'POST', url: '/v1/auth/logout', token });
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token }), 401, 'UNAUTHORIZED');
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token: other })).statusCode, 200);
  });

  it('refuses a key that was in use at once after it is revoked', async () => {
    const { token } = await app.signup();
    const key = await newKey(token);
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token: key.key })).statusCode, 200);
    await app.request({ method: 'DELETE', url: `/v1/api-keys/${key.id}`, token });
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token: key.key }), 401, 'UNAUTHORIZED');
  });

  it('refuses a session that was in use once it expires', async () => {
    const { token } = await app.signup();
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token })).statusCode, 200);
    clock.advance(60 * 60 * 1000 - 1);
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token })).statusCode, 200);
    clock.advance(1);
    expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token }), 401, 'UNAUTHORIZED');
  });

  it('keeps a key working past the cache age, and keeps recording its use', async () => {
    const { token, email } = await app.signup();
    const key = await newKey(token);
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token: key.key })).statusCode, 200);
    const firstUse = (await app.request({ method: 'GET', url: '/v1/api-keys', token })).json().data[0].lastUsedAt;
    clock.advance(2 * 60 * 60 * 1000);
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token: key.key })).statusCode, 200);
    // The first session has expired meanwhile.
    const fresh = (await app.request({ method: 'POST', url: '/v1/auth/login', body: { email, password: 'correct horse battery' } })).json().data.token;
    const laterUse = (await app.request({ method: 'GET', url: '/v1/api-keys', token: fresh })).json().data[0].lastUsedAt;
    assert.ok(Date.parse(laterUse) >= Date.parse(firstUse) + 2 * 60 * 60 * 1000, `${laterUse} recorded after ${firstUse}`);
  });
});

describe('several nodes on one database', () => {
  let a: TestApp;
  /** On PostgreSQL a second app on the same schema; SQLite has one node per database file, so the same app. */
  let b: TestApp;
  before(async () => {
    a = await startTestApp();
    b = await otherNode(a);
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  const account = (app: TestApp, token: string) => app.request({ method: 'GET', url: '/v1/auth/account', token });

  it('a key revoked through one node is refused by the other', async () => {
    const { token } = await a.signup();
    const key = (await a.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: 'shared' } })).json().data;
    assert.equal((await account(b, key.key)).statusCode, 200);
    assert.equal((await a.request({ method: 'DELETE', url: `/v1/api-keys/${key.id}`, token })).statusCode, 200);
    expectError(await account(a, key.key), 401, 'UNAUTHORIZED');
    await eventuallyStatus(() => account(b, key.key), 401);
  });

  it('a session logged out through one node is refused by the other', async () => {
    const { token } = await a.signup();
    assert.equal((await account(b, token)).statusCode, 200);
    await a.request({ method: 'POST', url: '/v1/auth/logout', token });
    await eventuallyStatus(() => account(b, token), 401);
  });

  it("an agent's key stops on the other node when the agent is deleted", async () => {
    const { token } = await a.signup();
    const agent = await registerAgent(a, token);
    const key = (await a.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: 'bot', agentId: agent.id } })).json().data.key;
    await a.request({ method: 'POST', url: '/v1/users', token: key, body: { username: `bot_${Date.now().toString(36)}`, displayName: 'Bot' } });
    // GET /v1/users/me reads nothing but caches once warm, so only the signal can stop it.
    const botProfile = () => b.request({ method: 'GET', url: '/v1/users/me', token: key });
    assert.equal((await botProfile()).statusCode, 200);
    assert.equal((await a.request({ method: 'DELETE', url: `/v1/agents/${agent.id}`, token })).statusCode, 200);
    await eventuallyStatus(botProfile, 401);
  });

  it('a profile changed through one node is shown by the other', async () => {
    const { token } = await a.signup();
    await a.request({ method: 'POST', url: '/v1/users', token, body: { username: `node_${Date.now().toString(36)}`, displayName: 'Before' } });
    assert.equal((await b.request({ method: 'GET', url: '/v1/users/me', token })).json().data.displayName, 'Before');
    await a.request({ method: 'PATCH', url: '/v1/users/me', token, body: { displayName: 'After' } });
    await waitFor(
      'the other node to show the new profile',
      async () => (await b.request({ method: 'GET', url: '/v1/users/me', token })).json().data.displayName,
      (name) => name === 'After',
    );
  });
});
