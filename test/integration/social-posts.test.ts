import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { comment, createPost, getJson, notificationsOf, socialUser, vote, type SocialUser } from '../helpers/social.ts';

describe('social posts: create', () => {
  let app: TestApp;
  let alice: SocialUser;
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({}, { clock });
    alice = await socialUser(app);
  });
  after(() => app.close());

  const create = (token: string | null, body: unknown) => app.request({ method: 'POST', url: '/v1/social/posts', token, body });

  it('creates a post with the spec fields, its author and no votes yet', async () => {
    const response = await create(alice.token, { body: 'Deploying our cluster on kubernetes and AWS today' });
    assert.equal(response.statusCode, 201);
    const { post } = response.json();
    assert.match(post.id, /^[0-9a-f-]{36}$/);
    assert.equal(post.body, 'Deploying our cluster on kubernetes and AWS today');
    assert.equal(post.topic, 'cloud');
    assert.equal(post.score, 0);
    assert.equal(post.commentCount, 0);
    assert.equal(post.repostOf, null);
    assert.equal(post.originalPost, null);
    assert.equal(post.userVote, null);
    assert.deepEqual(post.author, { id: alice.profileId, username: alice.username, displayName: `Name of ${alice.username}`, type: 'human', avatarUrl: null });
    assert.equal(post.createdAt, clock.now().toISOString());
    const stored = await getJson(app, `/v1/social/posts/${post.id}`);
    assert.equal(stored.post.body, post.body);
    assert.equal(stored.post.topic, 'cloud');
  });

  it('keeps the topic given, infers one when omitted, and falls back to general', async () => {
    assert.equal((await createPost(app, alice.token, 'Deploying kubernetes on AWS', 'music')).topic, 'music');
    assert.equal((await createPost(app, alice.token, 'Baked sourdough bread with a new recipe')).topic, 'food');
    assert.equal((await createPost(app, alice.token, 'Good morning')).topic, 'general');
  });

  it('refuses a topic outside the taxonomy with 400', async () => {
    for (const topic of ['cooking', 'AI', 'general ', '']) {
      expectError(await create(alice.token, { body: 'hello', topic }), 400, 'BAD_REQUEST');
    }
    const body = expectError(await create(alice.token, { body: 'hello', topic: 'cooking' }), 400, 'BAD_REQUEST');
    assert.match(body.message, /topic/);
  });

  it('counts 500 characters as code points: 500 emoji pass, 501 do not', async () => {
    const emoji = '\u{1F600}';
    const ok = await create(alice.token, { body: emoji.repeat(500) });
    assert.equal(ok.statusCode, 201);
    assert.equal(ok.json().post.body, emoji.repeat(500));
    expectError(await create(alice.token, { body: emoji.repeat(501) }), 400, 'BAD_REQUEST');
    assert.equal((await create(alice.token, { body: 'x'.repeat(500) })).statusCode, 201);
    expectError(await create(alice.token, { body: 'x'.repeat(501) }), 400, 'BAD_REQUEST');
  });

  it('stores hashtags and counts them; GET /v1/social/hashtags lists the most used', async () => {
    const fresh = await startTestApp();
    try {
      const bob = await socialUser(fresh);
      const first = await createPost(fresh, bob.token, 'Shipping today #Launch #rust and #launch again, not #1');
      assert.deepEqual(first.hashtags, ['launch', 'rust']);
      await createPost(fresh, bob.token, 'More #launch news');
      const listed = await getJson(fresh, '/v1/social/hashtags');
      assert.deepEqual(listed.data, [
        { tag: 'launch', count: 2 },
        { tag: 'rust', count: 1 },
      ]);
      assert.deepEqual(listed.pagination, { limit: 20, offset: 0, total: 2, hasMore: false });
      assert.equal((await fresh.request({ method: 'DELETE', url: `/v1/social/posts/${first.id}`, token: bob.token })).statusCode, 200);
      assert.deepEqual((await getJson(fresh, '/v1/social/hashtags')).data, [{ tag: 'launch', count: 1 }]);
      expectError(await fresh.request({ method: 'GET', url: '/v1/social/hashtags?limit=0' }), 400, 'BAD_REQUEST');
    } finally {
      await fresh.close();
    }
  });

  it('stores posts sent at the same moment each with its own hashtags, counts and mentions', async () => {
    const fresh = await startTestApp();
    try {
      const [bob, carol, dave] = await Promise.all([socialUser(fresh), socialUser(fresh), socialUser(fresh)]);
      const authors = [bob, carol, bob, carol, bob, carol, bob, carol];
      const posts = await Promise.all(
        authors.map((author, i) => createPost(fresh, author.token, `Number ${i} for @${dave.username} and @${bob.username} #together #solo${i}`)),
      );
      assert.deepEqual(
        posts.map((post) => post.hashtags),
        authors.map((_, i) => ['together', `solo${i}`]),
      );
      const tags = (await getJson(fresh, '/v1/social/hashtags?limit=100')).data as { tag: string; count: number }[];
      assert.deepEqual(tags[0], { tag: 'together', count: 8 });
      assert.deepEqual(
        tags.slice(1).map((t) => t.count),
        Array(8).fill(1),
      );
      for (const post of posts) assert.equal((await getJson(fresh, `/v1/social/posts/${post.id}`)).post.body, post.body);
      // Dave is named in all 8, Bob only in Carol's 4 (nobody is notified of their own post).
      const mentionsOf = async (user: SocialUser) =>
        (await notificationsOf(fresh, user.token))
          .filter((n) => n.type === 'mention')
          .map((n) => n.postId)
          .sort();
      assert.deepEqual(await mentionsOf(dave), posts.map((p) => p.id).sort());
      assert.deepEqual(
        await mentionsOf(bob),
        posts
          .filter((_, i) => authors[i] === carol)
          .map((p) => p.id)
          .sort(),
      );
      assert.deepEqual(await mentionsOf(carol), []);
    } finally {
      await fresh.close();
    }
  });

  it('refuses blank, missing, mistyped and unknown fields, and malformed JSON, with 400', async () => {
    for (const body of [
      {},
      { body: '' },
      { body: '   \n\t ' },
      { body: 42 },
      { body: 'ok', topic: 7 },
      { body: 'ok', extra: true },
      { body: ['a'] },
      null,
      'text',
    ]) {
      expectError(await create(alice.token, body), 400, 'BAD_REQUEST');
    }
    expectError(await app.request({ method: 'POST', url: '/v1/social/posts', token: alice.token, rawBody: '{"body": "unterminated' }), 400, 'BAD_REQUEST');
  });

  it('needs a valid credential (401) and a profile (403 naming POST /v1/users)', async () => {
    expectError(await create(null, { body: 'anonymous' }), 401, 'UNAUTHORIZED');
    expectError(await create('ags_not_a_session', { body: 'forged' }), 401, 'UNAUTHORIZED');
    expectError(await create('agk_not_a_key', { body: 'forged' }), 401, 'UNAUTHORIZED');
    const { token } = await app.signup();
    const body = expectError(await create(token, { body: 'no profile yet' }), 403, 'FORBIDDEN');
    assert.match(body.message, /POST \/v1\/users/);
  });

  it('posts as an agent through an API key bound to the agent profile', async () => {
    const { token } = await app.signup();
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: 'bot' } })).json().data.key;
    assert.equal(
      (await app.request({ method: 'POST', url: '/v1/users', token: key, body: { username: 'posting_bot', displayName: 'Bot', type: 'agent' } })).statusCode,
      201,
    );
    const post = await createPost(app, key, 'Hello from an agent');
    assert.deepEqual([(post.author as { username: string }).username, (post.author as { type: string }).type], ['posting_bot', 'agent']);
  });
});

describe('social posts: read and delete', () => {
  let app: TestApp;
  let alice: SocialUser;
  let bob: SocialUser;
  before(async () => {
    app = await startTestApp();
    alice = await socialUser(app);
    bob = await socialUser(app);
  });
  after(() => app.close());

  it('answers a post with all its comments oldest first, and userVote only for a signed-in viewer', async () => {
    const post = await createPost(app, alice.token, 'What do you think?');
    const first = await comment(app, bob.token, post.id, 'First!');
    const second = await comment(app, alice.token, post.id, 'Thanks');
    await vote(app, bob.token, post.id, 1);
    const voted = await app.request({ method: 'POST', url: `/v1/social/comments/${second.id}/vote`, token: bob.token, body: { value: -1 } });
    assert.equal(voted.statusCode, 200);

    const asBob = await getJson(app, `/v1/social/posts/${post.id}`, bob.token);
    assert.equal(asBob.post.userVote, 1);
    assert.equal(asBob.post.score, 1);
    assert.equal(asBob.post.commentCount, 2);
    assert.deepEqual(
      asBob.comments.map((c: { id: string; body: string; userVote: number | null; score: number }) => [c.id, c.body, c.userVote, c.score]),
      [
        [first.id, 'First!', null, 0],
        [second.id, 'Thanks', -1, -1],
      ],
    );
    assert.deepEqual(Object.keys(asBob.comments[0]).sort(), ['author', 'body', 'createdAt', 'id', 'media', 'parentId', 'postId', 'score', 'userVote']);
    assert.equal(asBob.comments[0].postId, post.id);
    assert.equal(asBob.comments[0].author.username, bob.username);

    const asAlice = await getJson(app, `/v1/social/posts/${post.id}`, alice.token);
    assert.equal(asAlice.post.userVote, null);
    assert.equal(asAlice.comments[1].userVote, null);

    const anonymous = await getJson(app, `/v1/social/posts/${post.id}`);
    assert.equal('userVote' in anonymous.post, false);
    assert.equal('userVote' in anonymous.comments[0], false);
  });

  it('answers 404 for an unknown post and 401 for a bad credential', async () => {
    expectError(await app.request({ method: 'GET', url: '/v1/social/posts/00000000-0000-4000-8000-000000000000' }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: '/v1/social/posts/not-a-uuid' }), 404, 'NOT_FOUND');
    const post = await createPost(app, alice.token, 'visible');
    expectError(await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}`, token: 'ags_wrong' }), 401, 'UNAUTHORIZED');
  });

  it('lets only the author delete: others 403, anonymous 401, unknown 404', async () => {
    const post = await createPost(app, alice.token, 'mine');
    expectError(await app.request({ method: 'DELETE', url: `/v1/social/posts/${post.id}`, token: bob.token }), 403, 'FORBIDDEN');
    expectError(await app.request({ method: 'DELETE', url: `/v1/social/posts/${post.id}` }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'DELETE', url: `/v1/social/posts/${post.id}`, token: 'agk_wrong' }), 401, 'UNAUTHORIZED');
    const deleted = await app.request({ method: 'DELETE', url: `/v1/social/posts/${post.id}`, token: alice.token });
    assert.equal(deleted.statusCode, 200);
    assert.deepEqual(deleted.json(), { data: { id: post.id, deleted: true } });
    expectError(await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}` }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'DELETE', url: `/v1/social/posts/${post.id}`, token: alice.token }), 404, 'NOT_FOUND');
  });

  it('deletes votes, comments and notifications with the post', async () => {
    const post = await createPost(app, alice.token, 'short-lived, hi @' + bob.username);
    const reply = await comment(app, bob.token, post.id, 'reply');
    await vote(app, bob.token, post.id, 1);
    await app.request({ method: 'POST', url: `/v1/social/comments/${reply.id}/vote`, token: alice.token, body: { value: 1 } });
    const related = (list: { postId: string | null }[]) => list.filter((n) => n.postId === post.id).length;
    assert.equal(related(await notificationsOf(app, alice.token)), 2);
    // Bob's: the mention, and Alice's like of his reply.
    assert.equal(related(await notificationsOf(app, bob.token)), 2);

    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/posts/${post.id}`, token: alice.token })).statusCode, 200);
    assert.equal(related(await notificationsOf(app, alice.token)), 0);
    assert.equal(related(await notificationsOf(app, bob.token)), 0);
    const db = app.database.db;
    assert.equal((await db.selectFrom('post_votes').select('post_id').where('post_id', '=', post.id).execute()).length, 0);
    assert.equal((await db.selectFrom('comments').select('id').where('post_id', '=', post.id).execute()).length, 0);
    assert.equal((await db.selectFrom('comment_votes').select('comment_id').where('comment_id', '=', reply.id).execute()).length, 0);
    expectError(await app.request({ method: 'POST', url: `/v1/social/comments/${reply.id}/vote`, token: alice.token, body: { value: 1 } }), 404, 'NOT_FOUND');
  });
});

describe('social posts: deleting a comment', () => {
  let app: TestApp;
  let alice: SocialUser;
  let bob: SocialUser;
  before(async () => {
    app = await startTestApp();
    alice = await socialUser(app);
    bob = await socialUser(app);
  });
  after(() => app.close());

  const remove = (token: string | null, id: string) => app.request({ method: 'DELETE', url: `/v1/social/comments/${id}`, token });

  it('lets its author delete it, with its votes and notifications, and counts the post one comment less', async () => {
    const post = await createPost(app, alice.token, 'A post to comment on');
    const kept = await comment(app, alice.token, post.id, 'kept');
    const doomed = await comment(app, bob.token, post.id, `a reply for @${alice.username}`);
    await app.request({ method: 'POST', url: `/v1/social/comments/${doomed.id}/vote`, token: alice.token, body: { value: 1 } });
    assert.equal((await getJson(app, `/v1/social/posts/${post.id}`)).post.commentCount, 2);
    const replies = async () => (await notificationsOf(app, alice.token)).filter((n: { postId: string | null }) => n.postId === post.id).length;
    assert.ok((await replies()) >= 1);

    const response = await remove(bob.token, doomed.id);
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { data: { id: doomed.id, deleted: true } });
    const after = await getJson(app, `/v1/social/posts/${post.id}`);
    assert.equal(after.post.commentCount, 1);
    assert.deepEqual(
      after.comments.map((c: { id: string }) => c.id),
      [kept.id],
    );
    assert.equal(await replies(), 0);
    const db = app.database.db;
    assert.equal((await db.selectFrom('comment_votes').select('comment_id').where('comment_id', '=', doomed.id).execute()).length, 0);
    // Gone: a second delete, and a vote, find nothing; the count does not move again.
    expectError(await remove(bob.token, doomed.id), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'POST', url: `/v1/social/comments/${doomed.id}/vote`, token: alice.token, body: { value: 1 } }), 404, 'NOT_FOUND');
    assert.equal((await getJson(app, `/v1/social/posts/${post.id}`)).post.commentCount, 1);
  });

  it('refuses anyone but the author (403), no credential (401) and an unknown id (404)', async () => {
    const post = await createPost(app, alice.token, 'Only commenters delete their comments');
    const reply = await comment(app, bob.token, post.id, 'mine');
    // Not even the post's author deletes someone else's comment.
    expectError(await remove(alice.token, reply.id), 403, 'FORBIDDEN');
    expectError(await remove(null, reply.id), 401, 'UNAUTHORIZED');
    expectError(await remove(bob.token, '00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    expectError(await remove(bob.token, 'not-an-id'), 404, 'NOT_FOUND');
    const still = await getJson(app, `/v1/social/posts/${post.id}`);
    assert.equal(still.post.commentCount, 1);
    assert.equal(still.comments[0].id, reply.id);
  });

  it('keeps the count right when the author deletes the same comment twice at once', async () => {
    const post = await createPost(app, alice.token, 'Racing deletes');
    const reply = await comment(app, bob.token, post.id, 'twice');
    const statuses = (await Promise.all([remove(bob.token, reply.id), remove(bob.token, reply.id)])).map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [200, 404]);
    assert.equal((await getJson(app, `/v1/social/posts/${post.id}`)).post.commentCount, 0);
  });
});

describe('social comments: threads', () => {
  let app: TestApp;
  let alice: SocialUser;
  let bob: SocialUser;
  let carol: SocialUser;
  before(async () => {
    app = await startTestApp();
    [alice, bob, carol] = await Promise.all([socialUser(app), socialUser(app), socialUser(app)]);
  });
  after(() => app.close());

  const answer = (token: string | null, postId: string, body: unknown) =>
    app.request({ method: 'POST', url: `/v1/social/posts/${postId}/comments`, token, body });

  it('answers a comment with parentId, returns it with every comment, and tells both the post author and the comment author', async () => {
    const post = await createPost(app, alice.token, 'Which queue do you run in production?');
    const top = await comment(app, bob.token, post.id, 'We run Redis streams');
    const response = await answer(carol.token, post.id, { body: 'Why not Kafka?', parentId: top.id });
    assert.equal(response.statusCode, 201, response.body);
    const reply = response.json().comment;
    assert.equal(reply.parentId, top.id);
    const nested = (await answer(bob.token, post.id, { body: 'Fewer moving parts', parentId: reply.id })).json().comment;

    const page = await getJson(app, `/v1/social/posts/${post.id}`);
    assert.deepEqual(
      page.comments.map((c: { id: string; parentId: string | null }) => [c.id, c.parentId]),
      [
        [top.id, null],
        [reply.id, top.id],
        [nested.id, reply.id],
      ],
    );
    assert.equal(page.post.commentCount, 3);

    // The reply's words reach both people it answers, once each, linked to the reply itself.
    const told = async (user: SocialUser) =>
      (await notificationsOf(app, user.token)).filter((n) => n.type === 'reply' && n.commentId === reply.id).map((n) => [n.postId, n.postBody]);
    assert.deepEqual(await told(alice), [[post.id, 'Why not Kafka?']]);
    assert.deepEqual(await told(bob), [[post.id, 'Why not Kafka?']]);
    // Bob answering in his own thread tells Carol (whose comment he answered) and Alice, never Bob.
    assert.equal((await notificationsOf(app, carol.token)).filter((n) => n.commentId === nested.id).length, 1);
    assert.equal((await notificationsOf(app, bob.token)).filter((n) => n.commentId === nested.id).length, 0);
  });

  it('refuses a parent that is not a comment of this post, and a parentId that is not an id', async () => {
    const post = await createPost(app, alice.token, 'First post');
    const elsewhere = await createPost(app, alice.token, 'Second post');
    const there = await comment(app, bob.token, elsewhere.id, 'on the second post');
    const wrongPost = await answer(carol.token, post.id, { body: 'misplaced', parentId: there.id });
    expectError(wrongPost, 400, 'BAD_REQUEST');
    assert.equal(wrongPost.json().details[0].path, '/body/parentId');
    expectError(await answer(carol.token, post.id, { body: 'to nothing', parentId: '00000000-0000-4000-8000-000000000000' }), 400, 'BAD_REQUEST');
    expectError(await answer(carol.token, post.id, { body: 'bad id', parentId: 'not-an-id' }), 400, 'BAD_REQUEST');
    expectError(await answer(carol.token, post.id, { body: 'bad type', parentId: 7 }), 400, 'BAD_REQUEST');
    expectError(await answer(null, post.id, { body: 'anonymous', parentId: there.id }), 401, 'UNAUTHORIZED');
    assert.equal((await getJson(app, `/v1/social/posts/${post.id}`)).comments.length, 0);
  });

  it('keeps the replies when the comment they answer is deleted, still naming it', async () => {
    const post = await createPost(app, alice.token, 'A thread that loses its root');
    const root = await comment(app, bob.token, post.id, 'soon gone');
    const kept = (await answer(carol.token, post.id, { body: 'still here', parentId: root.id })).json().comment;
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/comments/${root.id}`, token: bob.token })).statusCode, 200);
    const page = await getJson(app, `/v1/social/posts/${post.id}`);
    assert.deepEqual(
      page.comments.map((c: { id: string; parentId: string | null }) => [c.id, c.parentId]),
      [[kept.id, root.id]],
    );
    assert.equal(page.post.commentCount, 1);
    // A deleted comment can no longer be answered.
    expectError(await answer(alice.token, post.id, { body: 'too late', parentId: root.id }), 400, 'BAD_REQUEST');
  });

  it('refuses to answer a comment whose author blocked you', async () => {
    const post = await createPost(app, alice.token, 'Open to all');
    const said = await comment(app, bob.token, post.id, 'my comment');
    assert.equal((await app.request({ method: 'POST', url: `/v1/social/users/${carol.username}/block`, token: bob.token })).statusCode, 200);
    const refused = await answer(carol.token, post.id, { body: 'hello', parentId: said.id });
    expectError(refused, 403, 'FORBIDDEN');
    assert.match(refused.json().message, /author of this comment has blocked you/);
    // Carol may still comment on Alice's post itself.
    assert.equal((await answer(carol.token, post.id, { body: 'hello Alice' })).statusCode, 201);
  });
});
