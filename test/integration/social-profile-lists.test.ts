import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { createPost, follow, getJson, socialUser, vote, type SocialUser } from '../helpers/social.ts';

describe("a profile's followers, following and posts", () => {
  let app: TestApp;
  let ada: SocialUser;
  let fans: SocialUser[];
  before(async () => {
    app = await startTestApp();
    ada = await socialUser(app);
    fans = [];
    // One at a time: the list is ordered by when each follow happened.
    for (let i = 0; i < 5; i++) {
      const fan = await socialUser(app);
      await follow(app, fan.token, ada.username);
      fans.push(fan);
    }
    await follow(app, ada.token, fans[0]!.username);
  });
  after(() => app.close());

  it('lists followers, the latest follow first, in pages without repeats', async () => {
    const first = await getJson(app, `/v1/social/users/${ada.username}/followers?limit=3`);
    assert.deepEqual(first.pagination, { limit: 3, offset: 0, hasMore: true });
    const second = await getJson(app, `/v1/social/users/${ada.username.toUpperCase()}/followers?limit=3&offset=3`);
    assert.deepEqual(second.pagination, { limit: 3, offset: 3, hasMore: false });
    const names = [...first.users, ...second.users].map((u: { username: string }) => u.username);
    assert.deepEqual(names, fans.map((f) => f.username).reverse());
    const [latest] = first.users;
    assert.deepEqual(Object.keys(latest).sort(), ['avatarUrl', 'bio', 'displayName', 'followerCount', 'id', 'type', 'username']);
    assert.equal(latest.type, 'human');
  });

  it('lists whom someone follows', async () => {
    const following = await getJson(app, `/v1/social/users/${ada.username}/following`);
    assert.deepEqual(
      following.users.map((u: { username: string }) => u.username),
      [fans[0]!.username],
    );
    assert.equal(following.users[0].followerCount, 1);
    assert.deepEqual((await getJson(app, `/v1/social/users/${fans[1]!.username}/following`)).users.length, 1);
    assert.deepEqual((await getJson(app, `/v1/social/users/${fans[1]!.username}/followers`)).users, []);
  });

  it("lists someone's posts newest first, with the reader's votes", async () => {
    const posts = [];
    for (let i = 0; i < 3; i++) posts.push(await createPost(app, ada.token, `Note number ${i} about kubernetes`));
    await createPost(app, fans[0]!.token, 'Not by ada');
    const repost = await app.request({ method: 'POST', url: `/v1/social/posts/${posts[0]!.id}/repost`, token: ada.token, body: {} });
    assert.equal(repost.statusCode, 201);
    await vote(app, fans[1]!.token, posts[1]!.id, 1);

    const page = await getJson(app, `/v1/social/users/${ada.username}/posts?limit=2`);
    assert.deepEqual(page.pagination, { limit: 2, offset: 0, hasMore: true });
    assert.equal(page.posts[0].id, repost.json().post.id);
    assert.equal(page.posts[0].originalPost.id, posts[0]!.id);
    assert.equal(page.posts[1].id, posts[2]!.id);
    const rest = await getJson(app, `/v1/social/users/${ada.username}/posts?limit=2&offset=2`, fans[1]!.token);
    assert.deepEqual(
      rest.posts.map((p: { id: string }) => p.id),
      [posts[1]!.id, posts[0]!.id],
    );
    assert.equal(rest.posts[0].userVote, 1);
    assert.equal(rest.posts[0].score, 1);
    assert.equal(rest.pagination.hasMore, false);
    assert.deepEqual((await getJson(app, `/v1/social/users/${fans[2]!.username}/posts`)).posts, []);
  });

  it('answers 404 for an unknown user and 400 for bad paging', async () => {
    for (const list of ['followers', 'following', 'posts']) {
      expectError(await app.request({ method: 'GET', url: `/v1/social/users/nobody_here_at_all/${list}` }), 404, 'NOT_FOUND');
      for (const query of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) {
        const response = await app.request({ method: 'GET', url: `/v1/social/users/${ada.username}/${list}?${query}` });
        expectError(response, 400, 'BAD_REQUEST');
      }
    }
    expectError(await app.request({ method: 'GET', url: `/v1/social/users/${ada.username}/posts`, token: 'ags_not_a_real_token' }), 401, 'UNAUTHORIZED');
  });
});
