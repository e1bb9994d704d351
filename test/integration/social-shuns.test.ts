/**
 * Mute and block: a mute hides someone's posts and notifications from the one who muted; a block
 * does too, and keeps them from following, mentioning, replying, voting and reposting (403 saying so).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { comment, createPost, follow, getJson, notificationsOf, socialUser, type SocialUser } from '../helpers/social.ts';

type Page = { posts: { id: string; author: { username: string } }[] };

describe('mute and block', () => {
  let app: TestApp;
  let me: SocialUser;
  let loud: SocialUser;
  let rude: SocialUser;

  before(async () => {
    app = await startTestApp();
    me = await socialUser(app);
    loud = await socialUser(app);
    rude = await socialUser(app);
  });
  after(() => app.close());

  const send = (method: 'POST' | 'DELETE', user: SocialUser, path: string, token = me.token) =>
    app.request({ method, url: `/v1/social/users/${user.username}/${path}`, token });
  const feedIds = async (feed: 'following' | 'foryou') =>
    ((await getJson(app, `/v1/social/posts?feed=${feed}&limit=100`, me.token)) as Page).posts.map((post) => post.id);

  it('mute hides posts and notifications from the one who muted, until unmuted', async () => {
    await follow(app, me.token, loud.username);
    const post = await createPost(app, loud.token, `Hear me, @${me.username}`);
    assert.ok((await feedIds('following')).includes(post.id));
    const unreadBefore = (await getJson(app, '/v1/social/notifications/unread', me.token)) as { unread: number };
    assert.ok(unreadBefore.unread >= 1);

    const muted = await send('POST', loud, 'mute');
    assert.equal(muted.statusCode, 200, muted.body);
    assert.deepEqual(muted.json(), { muted: true, blocked: false });
    assert.ok(!(await feedIds('following')).includes(post.id));
    assert.ok(!(await feedIds('foryou')).includes(post.id));
    assert.ok(!(await notificationsOf(app, me.token)).some((n) => n.actor.username === loud.username));
    assert.equal(((await getJson(app, '/v1/social/notifications/unread', me.token)) as { unread: number }).unread, unreadBefore.unread - 1);
    // Others still see it, and the muted account notices nothing: it can still mention.
    assert.ok(((await getJson(app, '/v1/social/posts?feed=foryou&limit=100', rude.token)) as Page).posts.some((p) => p.id === post.id));
    await createPost(app, loud.token, `Again, @${me.username}`);

    const list = (await getJson(app, '/v1/social/mutes', me.token)) as { users: { username: string }[] };
    assert.deepEqual(
      list.users.map((u) => u.username),
      [loud.username],
    );
    const profile = (await getJson(app, `/v1/social/users/${loud.username}/profile`, me.token)) as { user: { isMuted: boolean; isBlocked: boolean } };
    assert.deepEqual([profile.user.isMuted, profile.user.isBlocked], [true, false]);

    assert.deepEqual((await send('DELETE', loud, 'mute')).json(), { muted: false, blocked: false });
    assert.ok((await feedIds('following')).includes(post.id));
    assert.equal((await notificationsOf(app, me.token)).filter((n) => n.actor.username === loud.username).length, 2);
  });

  it('block ends follows and refuses following, mentioning and replying with a clear 403', async () => {
    await follow(app, rude.token, me.username);
    const mine = await createPost(app, me.token, 'Something of mine');
    const blocked = await send('POST', rude, 'block');
    assert.deepEqual(blocked.json(), { muted: false, blocked: true });
    const followers = (await getJson(app, `/v1/social/users/${me.username}/followers`)) as { users: { username: string }[] };
    assert.ok(!followers.users.some((u) => u.username === rude.username), 'their follow ended');

    const refollow = await send('POST', me, 'follow', rude.token);
    expectError(refollow, 403, 'FORBIDDEN');
    assert.match(refollow.json().message, /blocked you/);
    const mention = await app.request({ method: 'POST', url: '/v1/social/posts', token: rude.token, body: { body: `Hey @${me.username}` } });
    expectError(mention, 403, 'FORBIDDEN');
    assert.match(mention.json().message, new RegExp(`@${me.username} blocked you`));
    assert.equal(mention.json().details[0].path, '/body/body');
    const reply = await app.request({ method: 'POST', url: `/v1/social/posts/${mine.id}/comments`, token: rude.token, body: { body: 'No' } });
    expectError(reply, 403, 'FORBIDDEN');
    assert.match(reply.json().message, /blocked you: you cannot reply/);
    // Posting without naming the blocker is still fine.
    await createPost(app, rude.token, 'Talking to nobody in particular');

    assert.deepEqual(
      ((await getJson(app, '/v1/social/blocks', me.token)) as { users: { username: string }[] }).users.map((u) => u.username),
      [rude.username],
    );
    assert.deepEqual((await send('DELETE', rude, 'block')).json(), { muted: false, blocked: false });
    assert.equal((await send('POST', me, 'follow', rude.token)).statusCode, 200);
  });

  it("block also refuses liking, voting on comments, reposting and quoting, and hides their posts from the blocker's search", async () => {
    const blocker = await socialUser(app);
    const blockedOne = await socialUser(app);
    const word = `blockword${Date.now().toString(36)}`;
    const mine = await createPost(app, blocker.token, `Mine, about ${word}`);
    const myComment = await comment(app, blocker.token, mine.id, 'A comment of mine');
    const theirs = await createPost(app, blockedOne.token, `Theirs, about ${word}`);
    const searchIds = async (token: string) =>
      ((await getJson(app, `/v1/social/search?q=${word}&tab=posts`, token)) as Page).posts.map((post) => post.id).sort();
    assert.deepEqual(await searchIds(blocker.token), [mine.id, theirs.id].sort());
    // A like made before the block can still be taken back after it.
    const liked = await app.request({ method: 'POST', url: `/v1/social/posts/${mine.id}/vote`, token: blockedOne.token, body: { value: 1 } });
    assert.equal(liked.statusCode, 200, liked.body);

    assert.equal((await send('POST', blockedOne, 'block', blocker.token)).statusCode, 200);
    assert.deepEqual(await searchIds(blocker.token), [mine.id]);
    // The blocked one still finds both: a block hides nothing from them that is public.
    assert.deepEqual(await searchIds(blockedOne.token), [mine.id, theirs.id].sort());

    const refusals = [
      { what: 'dislike', url: `/v1/social/posts/${mine.id}/vote`, body: { value: -1 } },
      { what: 'comment vote', url: `/v1/social/comments/${myComment.id}/vote`, body: { value: 1 } },
      { what: 'repost', url: `/v1/social/posts/${mine.id}/repost`, body: undefined },
      { what: 'quote', url: `/v1/social/posts/${mine.id}/repost`, body: { body: 'Quoting it anyway' } },
    ];
    for (const { what, url, body } of refusals) {
      const refused = await app.request({ method: 'POST', url, token: blockedOne.token, ...(body ? { body } : {}) });
      expectError(refused, 403, 'FORBIDDEN');
      assert.match(refused.json().message, /blocked you/, what);
    }
    const unliked = await app.request({ method: 'POST', url: `/v1/social/posts/${mine.id}/vote`, token: blockedOne.token, body: { value: 1 } });
    assert.equal(unliked.statusCode, 200, unliked.body);
    assert.equal(unliked.json().userVote, null);
    expectError(await app.request({ method: 'POST', url: `/v1/social/posts/${mine.id}/vote`, token: blockedOne.token, body: { value: 1 } }), 403, 'FORBIDDEN');
    const post = (await getJson(app, `/v1/social/posts/${mine.id}`, blocker.token)) as { post: { score: number; repostCount: number } };
    assert.deepEqual([post.post.score, post.post.repostCount], [0, 0]);
  });

  it('refuses muting or blocking oneself and unknown people', async () => {
    expectError(await send('POST', me, 'mute'), 400, 'BAD_REQUEST');
    expectError(await send('POST', me, 'block'), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'POST', url: '/v1/social/users/nobody_here_at_all/block', token: me.token }), 404, 'NOT_FOUND');
  });
});
