import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { comment, createPost, getJson, socialUser, vote, type SocialUser } from '../helpers/social.ts';

describe('social votes', () => {
  let app: TestApp;
  let alice: SocialUser;
  let bob: SocialUser;
  let carol: SocialUser;
  before(async () => {
    app = await startTestApp();
    [alice, bob, carol] = await Promise.all([socialUser(app), socialUser(app), socialUser(app)]);
  });
  after(() => app.close());

  const postVote = (token: string | null, id: string, body: unknown) => app.request({ method: 'POST', url: `/v1/social/posts/${id}/vote`, token, body });
  const commentVote = (token: string | null, id: string, body: unknown) => app.request({ method: 'POST', url: `/v1/social/comments/${id}/vote`, token, body });

  it('likes, toggles off with the same value, switches with the opposite; score is likes minus dislikes', async () => {
    const post = await createPost(app, alice.token, 'vote on me');
    assert.deepEqual(await vote(app, bob.token, post.id, 1), { score: 1, userVote: 1 });
    assert.deepEqual(await vote(app, carol.token, post.id, 1), { score: 2, userVote: 1 });
    assert.deepEqual(await vote(app, bob.token, post.id, 1), { score: 1, userVote: null });
    assert.deepEqual(await vote(app, bob.token, post.id, -1), { score: 0, userVote: -1 });
    assert.deepEqual(await vote(app, bob.token, post.id, 1), { score: 2, userVote: 1 });
    assert.deepEqual(await vote(app, carol.token, post.id, -1), { score: 0, userVote: -1 });
    assert.deepEqual(await vote(app, carol.token, post.id, -1), { score: 1, userVote: null });
    const stored = await app.database.db.selectFrom('posts').select(['like_count', 'dislike_count']).where('id', '=', post.id).executeTakeFirstOrThrow();
    assert.deepEqual(stored, { like_count: 1, dislike_count: 0 });
    assert.equal((await getJson(app, `/v1/social/posts/${post.id}`, bob.token)).post.userVote, 1);
  });

  it('lets authors vote on their own posts', async () => {
    const post = await createPost(app, alice.token, 'self-love');
    assert.deepEqual(await vote(app, alice.token, post.id, 1), { score: 1, userVote: 1 });
  });

  it('votes on comments the same way', async () => {
    const post = await createPost(app, alice.token, 'comment here');
    const { id } = await comment(app, bob.token, post.id, 'a comment');
    const votes = [
      [alice.token, 1, { score: 1, userVote: 1 }],
      [carol.token, -1, { score: 0, userVote: -1 }],
      [alice.token, -1, { score: -2, userVote: -1 }],
      [carol.token, -1, { score: -1, userVote: null }],
      [alice.token, -1, { score: 0, userVote: null }],
    ] as const;
    for (const [token, value, expected] of votes) {
      const response = await commentVote(token, id, { value });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), expected);
    }
  });

  it('keeps counts exact under concurrent votes', async () => {
    const post = await createPost(app, alice.token, 'popular');
    const voters = await Promise.all(Array.from({ length: 12 }, () => socialUser(app)));
    const results = await Promise.all(voters.map((v, i) => postVote(v.token, post.id, { value: i % 3 === 0 ? -1 : 1 })));
    assert.deepEqual([...new Set(results.map((r) => r.statusCode))], [200]);
    assert.equal((await getJson(app, `/v1/social/posts/${post.id}`)).post.score, 8 - 4);
    // The same person voting like five times at once ends where five likes in a row end: liked.
    const burst = await Promise.all(Array.from({ length: 5 }, () => postVote(bob.token, post.id, { value: 1 })));
    assert.deepEqual([...new Set(burst.map((r) => r.statusCode))], [200]);
    const after = await getJson(app, `/v1/social/posts/${post.id}`, bob.token);
    assert.equal(after.post.userVote, 1);
    assert.equal(after.post.score, 5);
  });

  it('refuses values other than 1 and -1, and malformed bodies, with 400', async () => {
    const post = await createPost(app, alice.token, 'strict');
    for (const body of [{ value: 0 }, { value: 2 }, { value: '1' }, { value: 1.5 }, {}, { value: 1, extra: 1 }, []]) {
      expectError(await postVote(bob.token, post.id, body), 400, 'BAD_REQUEST');
    }
    expectError(await app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/vote`, token: bob.token, rawBody: '{value:1}' }), 400, 'BAD_REQUEST');
  });

  it('answers 404 for unknown posts and comments, 401 without a valid credential, 403 without a profile', async () => {
    expectError(await postVote(bob.token, '00000000-0000-4000-8000-000000000000', { value: 1 }), 404, 'NOT_FOUND');
    expectError(await commentVote(bob.token, '00000000-0000-4000-8000-000000000000', { value: 1 }), 404, 'NOT_FOUND');
    const post = await createPost(app, alice.token, 'guarded');
    const { id } = await comment(app, bob.token, post.id, 'guarded comment');
    expectError(await postVote(null, post.id, { value: 1 }), 401, 'UNAUTHORIZED');
    expectError(await postVote('ags_wrong', post.id, { value: 1 }), 401, 'UNAUTHORIZED');
    expectError(await commentVote(null, id, { value: 1 }), 401, 'UNAUTHORIZED');
    expectError(await commentVote('agk_wrong', id, { value: 1 }), 401, 'UNAUTHORIZED');
    const { token } = await app.signup();
    expectError(await postVote(token, post.id, { value: 1 }), 403, 'FORBIDDEN');
    expectError(await commentVote(token, id, { value: 1 }), 403, 'FORBIDDEN');
    assert.equal((await getJson(app, `/v1/social/posts/${post.id}`)).post.score, 0);
  });
});

describe('social comments', () => {
  let app: TestApp;
  let alice: SocialUser;
  let bob: SocialUser;
  before(async () => {
    app = await startTestApp();
    [alice, bob] = await Promise.all([socialUser(app), socialUser(app)]);
  });
  after(() => app.close());

  const add = (token: string | null, id: string, body: unknown) => app.request({ method: 'POST', url: `/v1/social/posts/${id}/comments`, token, body });

  it('adds a comment (201 { comment }) and counts it on the post', async () => {
    const post = await createPost(app, alice.token, 'discuss');
    const response = await add(bob.token, post.id, { body: 'I agree \u{1F44D}' });
    assert.equal(response.statusCode, 201);
    const created = response.json().comment;
    assert.deepEqual(Object.keys(created).sort(), ['author', 'body', 'createdAt', 'id', 'media', 'parentId', 'postId', 'score', 'userVote']);
    assert.deepEqual(
      [created.postId, created.body, created.score, created.userVote, created.author.username],
      [post.id, 'I agree \u{1F44D}', 0, null, bob.username],
    );
    await comment(app, alice.token, post.id, 'thanks');
    assert.equal((await getJson(app, `/v1/social/posts/${post.id}`)).post.commentCount, 2);
  });

  it('counts concurrent comments exactly', async () => {
    const post = await createPost(app, alice.token, 'busy thread');
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => add(i % 2 ? alice.token : bob.token, post.id, { body: `comment ${i}` })));
    assert.deepEqual([...new Set(results.map((r) => r.statusCode))], [201]);
    const stored = await getJson(app, `/v1/social/posts/${post.id}`);
    assert.equal(stored.post.commentCount, 10);
    assert.equal(stored.comments.length, 10);
  });

  it('limits comments to 500 code points and refuses blank or malformed ones', async () => {
    const post = await createPost(app, alice.token, 'limits');
    assert.equal((await add(bob.token, post.id, { body: '\u{1F600}'.repeat(500) })).statusCode, 201);
    for (const body of [{ body: '\u{1F600}'.repeat(501) }, { body: 'x'.repeat(501) }, { body: '  ' }, { body: 5 }, {}, { body: 'ok', topic: 'ai' }]) {
      expectError(await add(bob.token, post.id, body), 400, 'BAD_REQUEST');
    }
    expectError(await app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/comments`, token: bob.token, rawBody: 'nope' }), 400, 'BAD_REQUEST');
  });

  it('answers 404 for an unknown post, 401 without a valid credential, 403 without a profile', async () => {
    expectError(await add(bob.token, '00000000-0000-4000-8000-000000000000', { body: 'hello?' }), 404, 'NOT_FOUND');
    const post = await createPost(app, alice.token, 'guarded');
    expectError(await add(null, post.id, { body: 'anon' }), 401, 'UNAUTHORIZED');
    expectError(await add('ags_wrong', post.id, { body: 'forged' }), 401, 'UNAUTHORIZED');
    const { token } = await app.signup();
    expectError(await add(token, post.id, { body: 'no profile' }), 403, 'FORBIDDEN');
    assert.equal((await getJson(app, `/v1/social/posts/${post.id}`)).post.commentCount, 0);
  });
});
