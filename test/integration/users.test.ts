import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';

describe('users: username check', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  const check = async (username: string) => (await app.request({ method: 'GET', url: `/v1/users/check?username=${encodeURIComponent(username)}` })).json();

  it('reports a free name, lowercased', async () => {
    assert.deepEqual(await check('Free_Name_1'), { available: true, username: 'free_name_1' });
  });

  it('reports reserved names, including the product name, in any case', async () => {
    for (const name of ['admin', 'ADMIN', 'support', 'undefined', 'agentry', 'Agentry']) {
      assert.deepEqual(await check(name), { available: false, reason: 'This username is reserved' });
    }
  });

  it('reports names that break the rules', async () => {
    for (const name of ['has space', 'dash-name', 'a'.repeat(26), 'émile', 'semi;colon']) {
      const result = await check(name);
      assert.equal(result.available, false, name);
      assert.match(result.reason, /1-25 letters, digits or underscores/);
    }
  });

  it('reports a taken name whatever its case', async () => {
    const { token } = await app.signup();
    await app.request({ method: 'POST', url: '/v1/users', token, body: { username: 'TakenOne', displayName: 'T' } });
    assert.deepEqual(await check('takenone'), { available: false, reason: 'This username is taken' });
    assert.deepEqual(await check('TAKENONE'), { available: false, reason: 'This username is taken' });
  });

  it('needs the username parameter', async () => {
    expectError(await app.request({ method: 'GET', url: '/v1/users/check' }), 400, 'BAD_REQUEST');
  });
});

describe('users: profiles', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  const create = (token: string | null, body: unknown) => app.request({ method: 'POST', url: '/v1/users', token, body });

  it('creates a profile with the spec fields and shows it at /me', async () => {
    const { token } = await app.signup();
    expectError(await app.request({ method: 'GET', url: '/v1/users/me', token }), 404, 'NOT_FOUND');
    const created = await create(token, { username: 'Grace_H', displayName: 'Grace Hopper', bio: 'COBOL', avatarUrl: 'https://example.test/g.png' });
    assert.equal(created.statusCode, 201);
    const profile = created.json().data;
    assert.equal(profile.username, 'grace_h');
    assert.equal(profile.type, 'human');
    assert.equal(profile.agentId, null);
    assert.equal(profile.followersCount, 0);
    assert.equal(profile.followingCount, 0);
    assert.match(profile.id, /^[0-9a-f-]{36}$/);
    const me = await app.request({ method: 'GET', url: '/v1/users/me', token });
    assert.deepEqual(me.json().data, profile);
  });

  it('works with an API key (agent onboarding: type agent)', async () => {
    const { token } = await app.signup();
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: 'bot' } })).json().data.key;
    const created = await create(key, { username: 'helper_bot', displayName: 'Helper', type: 'agent' });
    assert.equal(created.statusCode, 201);
    assert.equal(created.json().data.type, 'agent');
    assert.equal((await app.request({ method: 'GET', url: '/v1/users/me', token: key })).json().data.username, 'helper_bot');
  });

  it('answers 409 for a taken name (any case) and for a second profile', async () => {
    const first = await app.signup();
    const second = await app.signup();
    assert.equal((await create(first.token, { username: 'unique_one', displayName: 'U' })).statusCode, 201);
    expectError(await create(second.token, { username: 'UNIQUE_ONE', displayName: 'U' }), 409, 'CONFLICT');
    expectError(await create(first.token, { username: 'another_name', displayName: 'U' }), 409, 'CONFLICT');
  });

  it('lets exactly one of many concurrent creations of a name win', async () => {
    const people = await Promise.all(Array.from({ length: 8 }, () => app.signup()));
    const results = await Promise.all(people.map((p) => create(p.token, { username: 'race_name', displayName: 'R' })));
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
  });

  it('rejects reserved and malformed usernames with 400', async () => {
    const { token } = await app.signup();
    for (const username of ['admin', 'Agentry', 'bad name', 'x'.repeat(26), '']) {
      expectError(await create(token, { username, displayName: 'X' }), 400, 'BAD_REQUEST');
    }
  });

  it('rejects bad fields with 400', async () => {
    const { token } = await app.signup();
    const cases: unknown[] = [
      { username: 'okname' },
      { username: 'okname', displayName: '' },
      { username: 'okname', displayName: 'x'.repeat(51) },
      { username: 'okname', displayName: 'X', bio: 'x'.repeat(301) },
      { username: 'okname', displayName: 'X', type: 'robot' },
      { username: 'okname', displayName: 'X', avatarUrl: 'javascript:alert(1)' },
      { username: 'okname', displayName: 'X', avatarUrl: 'ftp://example.test/a.png' },
      { username: 'okname', displayName: 'X', followersCount: 1000 },
      { username: 'okname', displayName: 7 },
      { username: 'okname', displayName: 'X', type: 'human', agentId: 'a1' },
    ];
    for (const body of cases) expectError(await create(token, body), 400, 'BAD_REQUEST');
    expectError(await create(token, { username: 'okname', displayName: 'X', type: 'agent', agentId: 'no-such-agent' }), 404, 'NOT_FOUND');
  });

  it('needs a valid credential', async () => {
    expectError(await create(null, { username: 'anon', displayName: 'A' }), 401, 'UNAUTHORIZED');
    expectError(await create('agk_not_a_real_key', { username: 'anon', displayName: 'A' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/users/me' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/users/me', token: 'ags_wrong' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'PATCH', url: '/v1/users/me', body: { bio: 'x' } }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'PATCH', url: '/v1/users/me', token: 'ags_wrong', body: { bio: 'x' } }), 401, 'UNAUTHORIZED');
  });
});

describe('users: PATCH /v1/users/me', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  const patch = (token: string, body: unknown) => app.request({ method: 'PATCH', url: '/v1/users/me', token, body });

  it('changes only displayName, bio and avatarUrl, and only the caller’s profile', async () => {
    const alice = await app.signup();
    const bob = await app.signup();
    await app.request({
      method: 'POST',
      url: '/v1/users',
      token: alice.token,
      body: { username: 'alice_p', displayName: 'Alice', avatarUrl: 'https://example.test/a.png' },
    });
    await app.request({ method: 'POST', url: '/v1/users', token: bob.token, body: { username: 'bob_p', displayName: 'Bob' } });
    const changed = await patch(alice.token, { displayName: 'Alice L.', bio: 'Analytical engines' });
    assert.equal(changed.statusCode, 200);
    const profile = changed.json().data;
    assert.equal(profile.displayName, 'Alice L.');
    assert.equal(profile.bio, 'Analytical engines');
    assert.equal(profile.avatarUrl, 'https://example.test/a.png');
    assert.equal(profile.username, 'alice_p');
    assert.equal((await patch(alice.token, { avatarUrl: null })).json().data.avatarUrl, null);
    const bobNow = (await app.request({ method: 'GET', url: '/v1/users/me', token: bob.token })).json().data;
    assert.equal(bobNow.displayName, 'Bob');
    assert.equal(bobNow.bio, '');
  });

  it('refuses protected or unknown fields and an empty change with 400', async () => {
    const { token } = await app.signup();
    await app.request({ method: 'POST', url: '/v1/users', token, body: { username: 'protected_p', displayName: 'P' } });
    for (const body of [{ username: 'renamed' }, { type: 'agent' }, { id: 'x' }, { followersCount: 5 }, {}, { displayName: '' }, { bio: 5 }]) {
      expectError(await patch(token, body), 400, 'BAD_REQUEST');
    }
    assert.equal((await app.request({ method: 'GET', url: '/v1/users/me', token })).json().data.username, 'protected_p');
  });

  it('answers 404 when the caller has no profile yet', async () => {
    const { token } = await app.signup();
    expectError(await patch(token, { bio: 'hello' }), 404, 'NOT_FOUND');
  });
});
