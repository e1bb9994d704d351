import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { createPost, getJson, socialUser, vote, type SocialUser } from '../helpers/social.ts';

describe('social reposts and quote posts', () => {
  let app: TestApp;
  let alice: SocialUser;
  let bob: SocialUser;
  before(async () => {
    app = await startTestApp();
    [alice, bob] = await Promise.all([socialUser(app), socialUser(app)]);
  });
  after(() => app.close());

  const repost = (token: string | null, id: string, body: unknown = {}) => app.request({ method: 'POST', url: `/v1/social/posts/${id}/repost`, token, body });
  const status = (token: string | null, id: string) => app.request({ method: 'GET', url: `/v1/social/posts/${id}/repost`, token });
  const unrepost = (token: string | null, id: string) => app.request({ method: 'DELETE', url: `/v1/social/posts/${id}/repost`, token });

  it('makes a pure repost: a new post whose repostOf and originalPost name the original', async () => {
    const original = await createPost(app, alice.token, 'Solar and wind beat fossil fuels on price');
    await vote(app, bob.token, original.id, 1);
    const response = await repost(bob.token, original.id);
    assert.equal(response.statusCode, 201);
    const { post } = response.json();
    assert.notEqual(post.id, original.id);
    assert.equal(post.body, '');
    assert.equal(post.repostOf, original.id);
    assert.equal(post.topic, original.topic);
    assert.equal(post.author.username, bob.username);
    assert.equal(post.originalPost.id, original.id);
    assert.equal(post.originalPost.body, original.body);
    assert.equal(post.originalPost.author.username, alice.username);
    assert.equal(post.originalPost.userVote, 1);
    assert.equal(post.originalPost.repostCount, 1);
    assert.deepEqual((await status(bob.token, original.id)).json(), { reposted: true, repostId: post.id });
    assert.deepEqual((await status(alice.token, original.id)).json(), { reposted: false, repostId: null });
  });

  it('makes a pure repost from a request with no body at all', async () => {
    const original = await createPost(app, alice.token, 'Tidal power is steadier than wind');
    const response = await app.request({ method: 'POST', url: `/v1/social/posts/${original.id}/repost`, token: bob.token });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.json().post.repostOf, original.id);
    assert.equal(response.json().post.body, '');
  });

  it('answers 409 to a second pure repost, also when sent concurrently', async () => {
    const original = await createPost(app, alice.token, 'repost me once');
    assert.equal((await repost(bob.token, original.id)).statusCode, 201);
    expectError(await repost(bob.token, original.id), 409, 'CONFLICT');
    const other = await createPost(app, alice.token, 'repost me at once');
    const raced = await Promise.all(Array.from({ length: 6 }, () => repost(bob.token, other.id)));
    assert.deepEqual(raced.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409, 409]);
    assert.equal((await getJson(app, `/v1/social/posts/${other.id}`)).post.repostCount, 1);
  });

  it("allows reposting one's own post", async () => {
    const own = await createPost(app, alice.token, 'worth saying twice');
    const response = await repost(alice.token, own.id);
    assert.equal(response.statusCode, 201);
    assert.equal(response.json().post.author.username, alice.username);
  });

  it('makes quote posts with their own text, topic and hashtags, as many as wanted, beside a pure repost', async () => {
    const original = await createPost(app, alice.token, 'Our seed round closed today');
    const first = await repost(bob.token, original.id, { body: 'Congrats! Huge for the #climate startup scene' });
    assert.equal(first.statusCode, 201);
    const quote = first.json().post;
    assert.equal(quote.body, 'Congrats! Huge for the #climate startup scene');
    assert.equal(quote.repostOf, original.id);
    assert.equal(quote.originalPost.body, original.body);
    assert.deepEqual(quote.hashtags, ['climate']);
    assert.equal(quote.topic, 'climate');
    const plain = await repost(bob.token, original.id, { body: 'Well done' });
    assert.equal(plain.json().post.topic, original.topic, 'a quote with no topic of its own takes the original one');
    assert.equal((await repost(bob.token, original.id)).statusCode, 201);
    assert.equal((await getJson(app, `/v1/social/posts/${original.id}`)).post.repostCount, 3);
    assert.deepEqual((await status(bob.token, original.id)).json().reposted, true);
  });

  it('reposting a pure repost reposts its original', async () => {
    const original = await createPost(app, alice.token, 'root post');
    const carol = await socialUser(app);
    const first = (await repost(bob.token, original.id)).json().post;
    const second = (await repost(carol.token, first.id)).json().post;
    assert.equal(second.repostOf, original.id);
    assert.deepEqual((await status(carol.token, first.id)).json(), { reposted: true, repostId: second.id });
    expectError(await repost(carol.token, original.id), 409, 'CONFLICT');
  });

  it('removes a repost: status goes back, the repost post and its count go', async () => {
    const original = await createPost(app, alice.token, 'fleeting');
    const made = (await repost(bob.token, original.id)).json().post;
    const removed = await unrepost(bob.token, original.id);
    assert.equal(removed.statusCode, 200);
    assert.deepEqual(removed.json(), { reposted: false, repostId: null });
    assert.deepEqual((await status(bob.token, original.id)).json(), { reposted: false, repostId: null });
    expectError(await app.request({ method: 'GET', url: `/v1/social/posts/${made.id}` }), 404, 'NOT_FOUND');
    assert.equal((await getJson(app, `/v1/social/posts/${original.id}`)).post.repostCount, 0);
    expectError(await unrepost(bob.token, original.id), 404, 'NOT_FOUND');
    assert.equal((await repost(bob.token, original.id)).statusCode, 201, 'a removed repost can be made again');
  });

  it('deleting the original deletes its pure reposts; quote posts stay, with originalPost null', async () => {
    const original = await createPost(app, alice.token, 'about to vanish');
    const pure = (await repost(bob.token, original.id)).json().post;
    const quote = (await repost(bob.token, original.id, { body: 'saving this thought' })).json().post;
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/posts/${original.id}`, token: alice.token })).statusCode, 200);
    expectError(await app.request({ method: 'GET', url: `/v1/social/posts/${pure.id}` }), 404, 'NOT_FOUND');
    const kept = (await getJson(app, `/v1/social/posts/${quote.id}`)).post;
    assert.equal(kept.body, 'saving this thought');
    assert.equal(kept.repostOf, original.id);
    assert.equal(kept.originalPost, null);
    // The quote's author can still delete it.
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/posts/${quote.id}`, token: bob.token })).statusCode, 200);
  });

  it('refuses blank, too long and unknown fields with 400', async () => {
    const original = await createPost(app, alice.token, 'strict reposts');
    for (const body of [{ body: '' }, { body: '   ' }, { body: 'x'.repeat(501) }, { body: 3 }, { quote: 'hi' }]) {
      expectError(await repost(bob.token, original.id, body), 400, 'BAD_REQUEST');
    }
    assert.equal((await repost(bob.token, original.id, { body: '\u{1F600}'.repeat(500) })).statusCode, 201);
  });

  it('answers 404 for unknown posts, 401 without a valid credential, 403 without a profile', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectError(await repost(bob.token, unknown), 404, 'NOT_FOUND');
    expectError(await status(bob.token, unknown), 404, 'NOT_FOUND');
    expectError(await unrepost(bob.token, unknown), 404, 'NOT_FOUND');
    const original = await createPost(app, alice.token, 'guarded');
    for (const token of [null, 'ags_wrong', 'agk_wrong']) {
      expectError(await repost(token, original.id), 401, 'UNAUTHORIZED');
      expectError(await status(token, original.id), 401, 'UNAUTHORIZED');
      expectError(await unrepost(token, original.id), 401, 'UNAUTHORIZED');
    }
    const { token } = await app.signup();
    expectError(await repost(token, original.id), 403, 'FORBIDDEN');
    expectError(await status(token, original.id), 403, 'FORBIDDEN');
    expectError(await unrepost(token, original.id), 403, 'FORBIDDEN');
  });

  it("cannot remove someone else's repost: removal acts on the caller's own", async () => {
    const original = await createPost(app, alice.token, 'shared');
    const made = (await repost(bob.token, original.id)).json().post;
    expectError(await unrepost(alice.token, original.id), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'DELETE', url: `/v1/social/posts/${made.id}`, token: alice.token }), 403, 'FORBIDDEN');
    assert.deepEqual((await status(bob.token, original.id)).json(), { reposted: true, repostId: made.id });
  });

  describe('who liked, reposted and quoted a post', () => {
    it('lists likers (not dislikers), pure reposters and quotes, the latest first, page by page, to anyone', async () => {
      const carol = await socialUser(app);
      const original = await createPost(app, alice.token, 'Heat pumps work in the cold too');
      await vote(app, bob.token, original.id, 1);
      await vote(app, carol.token, original.id, 1);
      await vote(app, alice.token, original.id, -1);
      assert.equal((await repost(bob.token, original.id)).statusCode, 201);
      const quote = (await repost(carol.token, original.id, { body: 'Seen it at -20 C' })).json().post;

      const likes = await getJson(app, `/v1/social/posts/${original.id}/likes`);
      assert.deepEqual(
        likes.users.map((u: { username: string }) => u.username),
        [carol.username, bob.username],
      );
      assert.deepEqual(likes.pagination, { limit: 20, offset: 0, hasMore: false });
      const firstPage = await getJson(app, `/v1/social/posts/${original.id}/likes?limit=1`);
      assert.deepEqual([firstPage.users[0].username, firstPage.pagination.hasMore], [carol.username, true]);
      const secondPage = await getJson(app, `/v1/social/posts/${original.id}/likes?limit=1&offset=1`);
      assert.deepEqual([secondPage.users[0].username, secondPage.pagination.hasMore], [bob.username, false]);

      const reposts = await getJson(app, `/v1/social/posts/${original.id}/reposts`);
      assert.deepEqual(
        reposts.users.map((u: { username: string }) => u.username),
        [bob.username],
        'a quote is listed with the quotes, not the reposts',
      );

      const quotes = await getJson(app, `/v1/social/posts/${original.id}/quotes`, bob.token);
      assert.deepEqual(
        quotes.posts.map((p: { id: string; body: string }) => [p.id, p.body]),
        [[quote.id, 'Seen it at -20 C']],
      );
      assert.equal(quotes.posts[0].originalPost.id, original.id);
      assert.equal(quotes.posts[0].originalPost.userVote, 1, "signed in, the reader's own votes come with the quotes");
      assert.equal((await getJson(app, `/v1/social/posts/${original.id}`)).post.likeCount, 2, 'likeCount counts likes alone');

      // A like taken back leaves the list.
      await vote(app, carol.token, original.id, 1);
      assert.deepEqual(
        (await getJson(app, `/v1/social/posts/${original.id}/likes`)).users.map((u: { username: string }) => u.username),
        [bob.username],
      );
    });

    it('answers 404 for a missing or deleted post and 400 for a bad page', async () => {
      const gone = await createPost(app, alice.token, 'soon gone');
      await vote(app, bob.token, gone.id, 1);
      assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/posts/${gone.id}`, token: alice.token })).statusCode, 200);
      for (const list of ['likes', 'reposts', 'quotes']) {
        for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', gone.id]) {
          expectError(await app.request({ method: 'GET', url: `/v1/social/posts/${id}/${list}` }), 404, 'NOT_FOUND');
        }
        const post = await createPost(app, alice.token, `a post for bad pages of ${list}`);
        for (const query of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) {
          expectError(await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}/${list}?${query}` }), 400, 'BAD_REQUEST');
        }
      }
      expectError(await app.request({ method: 'GET', url: `/v1/social/posts/${gone.id}/quotes`, token: 'ags_wrong' }), 401, 'UNAUTHORIZED');
    });
  });
});
