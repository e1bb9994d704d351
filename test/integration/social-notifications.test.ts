import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { comment, createPost, follow, getJson, notificationsOf, socialUser, vote, type SocialUser } from '../helpers/social.ts';

describe('social notifications: what creates them', () => {
  let app: TestApp;
  let alice: SocialUser;
  let bob: SocialUser;
  let carol: SocialUser;
  before(async () => {
    app = await startTestApp();
    [alice, bob, carol] = await Promise.all([socialUser(app), socialUser(app), socialUser(app)]);
  });
  after(() => app.close());

  const fresh = async () => Promise.all([socialUser(app), socialUser(app)]);

  it('notifies a like (and takes it back with the like), a reply (with its words), a follow, a repost and a quote', async () => {
    const [author, fan] = await fresh();
    const post = await createPost(app, author.token, 'A'.repeat(150));
    await vote(app, fan.token, post.id, 1);
    const reply = await comment(app, fan.token, post.id, 'reply here');
    await follow(app, fan.token, author.username);
    const repost = (await app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/repost`, token: fan.token, body: {} })).json().post;
    const quote = (await app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/repost`, token: fan.token, body: { body: 'quoting' } })).json().post;

    const list = await notificationsOf(app, author.token);
    assert.deepEqual(
      list.map((n) => [n.type, n.postId, n.commentId, n.postBody, n.read, n.actor.username]),
      [
        ['repost', quote.id, null, 'quoting', false, fan.username],
        ['repost', repost.id, null, 'A'.repeat(100), false, fan.username],
        ['follow', null, null, null, false, fan.username],
        ['reply', post.id, reply.id, 'reply here', false, fan.username],
        ['like', post.id, null, 'A'.repeat(100), false, fan.username],
      ],
    );
    const like = (await getJson(app, '/v1/social/notifications', author.token)).notifications.at(-1);
    assert.deepEqual(Object.keys(like).sort(), ['actor', 'commentId', 'createdAt', 'id', 'postBody', 'postId', 'read', 'type']);
    assert.deepEqual(Object.keys(like.actor).sort(), ['avatarUrl', 'displayName', 'id', 'type', 'username']);
    assert.equal(like.actor.id, fan.profileId);

    // Taking the like back (or switching it to a dislike) takes its notification back; so does unfollowing.
    await vote(app, fan.token, post.id, -1);
    await app.request({ method: 'DELETE', url: `/v1/social/users/${author.username}/follow`, token: fan.token });
    assert.deepEqual(
      (await notificationsOf(app, author.token)).map((n) => n.type),
      ['repost', 'repost', 'reply'],
    );
    // Dislikes notify nobody.
    await vote(app, fan.token, post.id, -1);
    await vote(app, fan.token, post.id, -1);
    assert.equal((await notificationsOf(app, author.token)).length, 3);
  });

  it('notifies mentions in posts and comments (with the words that mention): existing users only, once each, case-insensitively', async () => {
    const [writer, reader] = await fresh();
    const post = await createPost(
      app,
      writer.token,
      `Hi @${reader.username.toUpperCase()} and @${reader.username}, also @nobody_here_at_all and mail@${reader.username}.test`,
    );
    const mentions = (await notificationsOf(app, reader.token)).filter((n) => n.type === 'mention');
    assert.deepEqual(
      mentions.map((n) => [n.postId, n.commentId, n.actor.username]),
      [[post.id, null, writer.username]],
    );

    const other = await createPost(app, alice.token, 'unrelated post');
    const said = await comment(app, writer.token, other.id, `@${reader.username} look at this`);
    const latest = (await notificationsOf(app, reader.token))[0]!;
    assert.deepEqual([latest.type, latest.postId, latest.commentId, latest.postBody], ['mention', other.id, said.id, `@${reader.username} look at this`]);
  });

  it('never notifies people of their own actions', async () => {
    const [loner] = await fresh();
    const post = await createPost(app, loner.token, `Talking to myself, @${loner.username}`);
    await vote(app, loner.token, post.id, 1);
    await comment(app, loner.token, post.id, `me again @${loner.username}`);
    await app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/repost`, token: loner.token, body: {} });
    assert.deepEqual(await notificationsOf(app, loner.token), []);
  });

  it('notifies a person once per action: a reply that mentions the author is a reply', async () => {
    const post = await createPost(app, alice.token, 'mention me back');
    await comment(app, bob.token, post.id, `@${alice.username} sure, and @${carol.username} too`);
    const forAlice = (await notificationsOf(app, alice.token)).filter((n) => n.postId === post.id);
    assert.deepEqual(
      forAlice.map((n) => n.type),
      ['reply'],
    );
    const forCarol = (await notificationsOf(app, carol.token)).filter((n) => n.postId === post.id);
    assert.deepEqual(
      forCarol.map((n) => n.type),
      ['mention'],
    );
  });
});

describe('social notifications: listing and read state', () => {
  let app: TestApp;
  let me: SocialUser;
  let ids: string[];
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({}, { clock });
    me = await socialUser(app);
    const post = await createPost(app, me.token, 'popular post');
    for (let i = 0; i < 7; i++) {
      clock.advance(1000);
      const fan = await socialUser(app);
      await vote(app, fan.token, post.id, 1);
    }
    ids = (await notificationsOf(app, me.token)).map((n) => n.id);
  });
  after(() => app.close());

  const list = (query: string, token: string | null = me.token) => app.request({ method: 'GET', url: `/v1/social/notifications${query}`, token });
  const read = (body: unknown, token: string | null = me.token) => app.request({ method: 'POST', url: '/v1/social/notifications/read', token, body });
  const unread = async () => (await getJson(app, '/v1/social/notifications/unread', me.token)).unread;

  it('pages newest first with limit, offset and hasMore (default limit 30)', async () => {
    assert.equal(ids.length, 7);
    const first = (await list('?limit=3')).json();
    assert.deepEqual(first.pagination, { limit: 3, offset: 0, hasMore: true });
    const second = (await list('?limit=3&offset=3')).json();
    const third = (await list('?limit=3&offset=6')).json();
    assert.deepEqual(third.pagination, { limit: 3, offset: 6, hasMore: false });
    assert.deepEqual(
      [...first.notifications, ...second.notifications, ...third.notifications].map((n: { id: string }) => n.id),
      ids,
    );
    const createdAt = first.notifications.map((n: { createdAt: string }) => n.createdAt);
    assert.deepEqual(createdAt, [...createdAt].sort().reverse());
    assert.deepEqual((await list('')).json().pagination, { limit: 30, offset: 0, hasMore: false });
    for (const query of ['?limit=0', '?limit=101', '?offset=-1', '?limit=abc']) expectError(await list(query), 400, 'BAD_REQUEST');
  });

  it('counts unread, marks some read by id, then all; never touches anyone else', async () => {
    const other = await socialUser(app);
    const theirs = await createPost(app, other.token, 'theirs');
    await vote(app, me.token, theirs.id, 1);
    const [otherNotification] = await notificationsOf(app, other.token);

    assert.equal(await unread(), 7);
    const some = await read({ ids: [ids[0], ids[1], otherNotification!.id] });
    assert.deepEqual([some.statusCode, some.json()], [200, { updated: 2 }]);
    assert.equal(await unread(), 5);
    const listed = (await list('?limit=2')).json().notifications;
    assert.deepEqual(
      listed.map((n: { read: boolean }) => n.read),
      [true, true],
    );
    assert.deepEqual((await read({ ids: [ids[0]] })).json(), { updated: 0 }, 'already read');

    assert.deepEqual((await read({})).json(), { updated: 5 });
    assert.equal(await unread(), 0);
    assert.equal((await getJson(app, '/v1/social/notifications/unread', other.token)).unread, 1);
    assert.equal((await notificationsOf(app, other.token))[0]!.read, false);
    const empty = await app.request({ method: 'POST', url: '/v1/social/notifications/read', token: me.token });
    assert.deepEqual([empty.statusCode, empty.json()], [200, { updated: 0 }], 'no body at all also means all');
  });

  it('refuses malformed mark-read bodies with 400', async () => {
    for (const body of [{ ids: [] }, { ids: ['not-a-uuid'] }, { ids: 'x' }, { all: true }, { ids: [ids[0], ids[0]] }, []]) {
      expectError(await read(body), 400, 'BAD_REQUEST');
    }
    expectError(await app.request({ method: 'POST', url: '/v1/social/notifications/read', token: me.token, rawBody: '{"ids": [' }), 400, 'BAD_REQUEST');
  });

  it('needs a credential (401) and a profile (403) on all three endpoints', async () => {
    for (const token of [null, 'ags_wrong']) {
      expectError(await list('', token), 401, 'UNAUTHORIZED');
      expectError(await app.request({ method: 'GET', url: '/v1/social/notifications/unread', token }), 401, 'UNAUTHORIZED');
      expectError(await read({}, token), 401, 'UNAUTHORIZED');
    }
    const { token } = await app.signup();
    expectError(await list('', token), 403, 'FORBIDDEN');
    expectError(await app.request({ method: 'GET', url: '/v1/social/notifications/unread', token }), 403, 'FORBIDDEN');
    expectError(await read({}, token), 403, 'FORBIDDEN');
  });
});

describe('social notifications: the grouped view', () => {
  let app: TestApp;
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({}, { clock });
  });
  after(() => app.close());

  const grouped = (token: string | null, query = 'grouped=true') => app.request({ method: 'GET', url: `/v1/social/notifications?${query}`, token });
  type Group = {
    type: string;
    postId: string | null;
    commentId: string | null;
    postBody: string | null;
    count: number;
    actorCount: number;
    actors: { username: string }[];
    read: boolean;
    latestAt: string;
    notificationIds: string[];
  };

  it('merges likes per post, pure reposts per original and follows per day; replies, quotes and mentions stay apart, newest first', async () => {
    const author = await socialUser(app);
    const fans = await Promise.all(Array.from({ length: 5 }, () => socialUser(app)));
    const post = await createPost(app, author.token, 'Ship it on Friday?');
    const other = await createPost(app, author.token, 'Another thought');
    for (const fan of fans) {
      clock.advance(1000);
      await vote(app, fan.token, post.id, 1);
    }
    clock.advance(1000);
    await vote(app, fans[0]!.token, other.id, 1);
    for (const fan of fans.slice(0, 2)) {
      clock.advance(1000);
      assert.equal((await app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/repost`, token: fan.token, body: {} })).statusCode, 201);
    }
    clock.advance(1000);
    await app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/repost`, token: fans[2]!.token, body: { body: 'Never on Friday' } });
    for (const fan of fans.slice(3)) {
      clock.advance(1000);
      await follow(app, fan.token, author.username);
    }
    clock.advance(1000);
    const said = await comment(app, fans[4]!.token, post.id, 'Friday is fine with tests');

    const response = await grouped(author.token);
    assert.equal(response.statusCode, 200, response.body);
    const groups = response.json().groups as Group[];
    assert.deepEqual(
      groups.map((g) => [g.type, g.postId, g.count, g.actorCount, g.postBody]),
      [
        ['reply', post.id, 1, 1, 'Friday is fine with tests'],
        ['follow', null, 2, 2, null],
        ['repost', groups[2]!.postId, 1, 1, 'Never on Friday'],
        ['repost', post.id, 2, 2, 'Ship it on Friday?'],
        ['like', other.id, 1, 1, 'Another thought'],
        ['like', post.id, 5, 5, 'Ship it on Friday?'],
      ],
    );
    assert.equal(groups[0]!.commentId, said.id);
    assert.notEqual(groups[2]!.postId, post.id, 'a quote is its own post');
    assert.deepEqual(
      groups.map((g) => (g as Group & { quote: boolean }).quote),
      [false, false, true, false, false, false],
    );
    const likes = groups[5]!;
    assert.deepEqual(
      likes.actors.map((a) => a.username),
      [fans[4]!.username, fans[3]!.username, fans[2]!.username],
      'the latest three actors, newest first',
    );
    assert.equal(likes.notificationIds.length, 5);
    assert.equal(likes.read, false);

    // Marking a group's notifications read marks the group read; the plain list is unchanged beside it.
    const marked = await app.request({ method: 'POST', url: '/v1/social/notifications/read', token: author.token, body: { ids: likes.notificationIds } });
    assert.equal(marked.json().updated, 5);
    const after = (await grouped(author.token)).json().groups as Group[];
    assert.deepEqual(
      after.map((g) => g.read),
      [false, false, false, false, false, true],
    );
    assert.equal((await notificationsOf(app, author.token)).length, 12);

    // Paged by group.
    const page = (await grouped(author.token, 'grouped=true&limit=2&offset=2')).json();
    assert.deepEqual(
      page.groups.map((g: Group) => g.type),
      ['repost', 'repost'],
    );
    assert.deepEqual(page.pagination, { limit: 2, offset: 2, hasMore: true });
  });

  it('refuses a grouped value that is not a boolean, and a request without a credential', async () => {
    const someone = await socialUser(app);
    expectError(await grouped(someone.token, 'grouped=sometimes'), 400, 'BAD_REQUEST');
    expectError(await grouped(null), 401, 'UNAUTHORIZED');
    assert.deepEqual((await grouped(someone.token)).json(), { groups: [], pagination: { limit: 30, offset: 0, hasMore: false } });
  });
});
