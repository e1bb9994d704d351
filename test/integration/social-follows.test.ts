import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { follow, getJson, socialUser, type SocialUser } from '../helpers/social.ts';

describe('social follows and profiles', () => {
  let app: TestApp;
  let alice: SocialUser;
  let bob: SocialUser;
  before(async () => {
    app = await startTestApp();
    [alice, bob] = await Promise.all([socialUser(app), socialUser(app)]);
  });
  after(() => app.close());

  const call = (method: string, username: string, token: string | null) => app.request({ method, url: `/v1/social/users/${username}/follow`, token });
  const profile = (username: string, token?: string) => getJson(app, `/v1/social/users/${username}/profile`, token);

  it('follows, reports the status, counts both sides, and unfollows', async () => {
    const followed = await call('POST', alice.username, bob.token);
    assert.equal(followed.statusCode, 200);
    assert.deepEqual(followed.json(), { following: true });
    assert.deepEqual((await call('GET', alice.username, bob.token)).json(), { following: true });
    assert.deepEqual((await call('GET', bob.username, alice.token)).json(), { following: false });
    assert.equal((await profile(alice.username)).user.followersCount, 1);
    assert.equal((await profile(bob.username)).user.followingCount, 1);
    // Counters are the profile's own: /v1/users/me shows them at once.
    assert.equal((await getJson(app, '/v1/users/me', alice.token)).data.followersCount, 1);
    assert.equal((await getJson(app, '/v1/users/me', bob.token)).data.followingCount, 1);

    const unfollowed = await call('DELETE', alice.username, bob.token);
    assert.deepEqual([unfollowed.statusCode, unfollowed.json()], [200, { following: false }]);
    assert.deepEqual((await call('GET', alice.username, bob.token)).json(), { following: false });
    assert.equal((await profile(alice.username)).user.followersCount, 0);
    assert.equal((await getJson(app, '/v1/users/me', alice.token)).data.followersCount, 0);
    assert.equal((await getJson(app, '/v1/users/me', bob.token)).data.followingCount, 0);
  });

  it('is idempotent: following twice or unfollowing a stranger changes no count', async () => {
    const carol = await socialUser(app);
    await follow(app, carol.token, alice.username);
    await follow(app, carol.token, alice.username);
    const counts = await Promise.all([
      call('POST', bob.username, carol.token),
      call('POST', bob.username, carol.token),
      call('POST', bob.username, carol.token),
    ]);
    assert.deepEqual([...new Set(counts.map((r) => r.statusCode))], [200]);
    assert.equal((await profile(carol.username)).user.followingCount, 2);
    assert.equal((await profile(bob.username)).user.followersCount, 1);
    const dave = await socialUser(app);
    assert.deepEqual((await call('DELETE', carol.username, dave.token)).json(), { following: false });
    assert.equal((await profile(carol.username)).user.followersCount, 0);
  });

  it('finds users case-insensitively', async () => {
    const carol = await socialUser(app);
    assert.equal((await call('POST', alice.username.toUpperCase(), carol.token)).statusCode, 200);
    assert.equal((await profile(alice.username.toUpperCase())).user.username, alice.username);
  });

  it('refuses following oneself with 400', async () => {
    expectError(await call('POST', alice.username, alice.token), 400, 'BAD_REQUEST');
    expectError(await call('DELETE', alice.username, alice.token), 400, 'BAD_REQUEST');
    assert.deepEqual((await call('GET', alice.username, alice.token)).json(), { following: false });
  });

  it('answers 404 for unknown users, 401 without a valid credential, 403 without a profile', async () => {
    for (const method of ['POST', 'DELETE', 'GET']) {
      expectError(await call(method, 'nobody_by_that_name', bob.token), 404, 'NOT_FOUND');
      expectError(await call(method, 'bad name!', bob.token), 404, 'NOT_FOUND');
      expectError(await call(method, alice.username, null), 401, 'UNAUTHORIZED');
      expectError(await call(method, alice.username, 'ags_wrong'), 401, 'UNAUTHORIZED');
    }
    const { token } = await app.signup();
    for (const method of ['POST', 'DELETE', 'GET']) expectError(await call(method, alice.username, token), 403, 'FORBIDDEN');
  });

  it('shows a profile with counts, and isFollowing only to a signed-in viewer', async () => {
    const erin = await socialUser(app, undefined, { bio: 'Builds boats', avatarUrl: 'https://example.test/e.png' });
    await follow(app, bob.token, erin.username);
    const anonymous = (await profile(erin.username)).user;
    assert.deepEqual(Object.keys(anonymous).sort(), [
      'accountId',
      'agentId',
      'avatarUrl',
      'bio',
      'createdAt',
      'displayName',
      'followersCount',
      'followingCount',
      'id',
      'type',
      'username',
    ]);
    assert.deepEqual(
      [anonymous.id, anonymous.accountId, anonymous.bio, anonymous.avatarUrl, anonymous.type, anonymous.followersCount, anonymous.followingCount],
      [erin.profileId, erin.accountId, 'Builds boats', 'https://example.test/e.png', 'human', 1, 0],
    );
    assert.equal((await profile(erin.username, bob.token)).user.isFollowing, true);
    assert.equal((await profile(erin.username, alice.token)).user.isFollowing, false);
    const { token } = await app.signup();
    assert.equal((await profile(erin.username, token)).user.isFollowing, false, 'signed in without a profile: follows nobody');
    expectError(await app.request({ method: 'GET', url: `/v1/social/users/${erin.username}/profile`, token: 'agk_wrong' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/social/users/nobody_by_that_name/profile' }), 404, 'NOT_FOUND');
  });
});

describe('social suggested users', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('suggests the most followed accounts the caller does not follow, never the caller', async () => {
    const people = await Promise.all(Array.from({ length: 6 }, () => socialUser(app)));
    const [me, star, popular, known, quiet, fan] = people as [SocialUser, SocialUser, SocialUser, SocialUser, SocialUser, SocialUser];
    for (const follower of [fan, known, quiet, popular]) await follow(app, follower.token, star.username);
    for (const follower of [fan, known]) await follow(app, follower.token, popular.username);
    for (const follower of [fan, star, popular]) await follow(app, follower.token, me.username);
    await follow(app, fan.token, known.username);
    await follow(app, me.token, known.username);

    const response = await getJson(app, '/v1/social/users/suggested', me.token);
    const names = response.users.map((u: { username: string }) => u.username);
    assert.deepEqual(names.slice(0, 2), [star.username, popular.username]);
    assert.ok(!names.includes(me.username));
    assert.ok(!names.includes(known.username));
    assert.deepEqual(Object.keys(response.users[0]).sort(), ['avatarUrl', 'bio', 'displayName', 'followerCount', 'id', 'type', 'username']);
    assert.equal(response.users[0].followerCount, 4);
    assert.equal((await getJson(app, '/v1/social/users/suggested?limit=1', me.token)).users.length, 1);
  });

  it('validates limit (default 10, 1-50) and needs a credential and a profile', async () => {
    const me = await socialUser(app);
    for (const limit of ['0', '51', 'x', '-1'])
      expectError(await app.request({ method: 'GET', url: `/v1/social/users/suggested?limit=${limit}`, token: me.token }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/social/users/suggested' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/social/users/suggested', token: 'ags_wrong' }), 401, 'UNAUTHORIZED');
    const { token } = await app.signup();
    expectError(await app.request({ method: 'GET', url: '/v1/social/users/suggested', token }), 403, 'FORBIDDEN');
    await Promise.all(Array.from({ length: 12 }, () => socialUser(app)));
    assert.equal((await getJson(app, '/v1/social/users/suggested', me.token)).users.length, 10);
  });
});
