/**
 * Bookmarks: private to the person who made them, idempotent both ways, listed newest-bookmarked first
 * as the feed shows posts, and shown on post views as `bookmarked` to their owner only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdminCommand } from '../../src/modules/moderation/index.ts';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { createPost, getJson, socialUser, type SocialUser } from '../helpers/social.ts';

type PostView = { id: string; bookmarked?: boolean; originalPost: { id: string; bookmarked?: boolean } | null };
type Page = { posts: PostView[]; pagination: { limit: number; offset: number; hasMore: boolean } };

const OPERATOR = 'operator@bookmarks.example.test';

describe('bookmarks', () => {
  let app: TestApp;
  let me: SocialUser;
  let other: SocialUser;
  let operator: { token: string };

  before(async () => {
    app = await startTestApp({ OPERATOR_EMAILS: OPERATOR });
    me = await socialUser(app);
    other = await socialUser(app);
    operator = await app.signup(OPERATOR);
    assert.equal((await runAdminCommand(['grant', OPERATOR], app.database.db, app.clock)).exitCode, 0);
  });
  after(() => app.close());

  const bookmark = (method: 'POST' | 'DELETE', postId: string, token: string | null = me.token) =>
    app.request({ method, url: `/v1/social/posts/${postId}/bookmark`, token });
  const bookmarksOf = async (token = me.token, query = 'limit=100') => (await getJson(app, `/v1/social/bookmarks?${query}`, token)) as Page;

  it('bookmarks and unbookmarks idempotently, newest bookmark first, paginated', async () => {
    const first = await createPost(app, other.token, 'First worth keeping');
    const second = await createPost(app, other.token, 'Second worth keeping');
    const added = await bookmark('POST', first.id);
    assert.equal(added.statusCode, 201, added.body);
    assert.deepEqual(added.json(), { bookmarked: true });
    const again = await bookmark('POST', first.id);
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json(), { bookmarked: true });
    assert.equal((await bookmark('POST', second.id)).statusCode, 201);

    const page = await bookmarksOf();
    assert.deepEqual(
      page.posts.map((post) => post.id),
      [second.id, first.id],
      'the latest bookmark first',
    );
    assert.ok(page.posts.every((post) => post.bookmarked === true));
    const one = await bookmarksOf(me.token, 'limit=1&offset=1');
    assert.deepEqual(
      one.posts.map((post) => post.id),
      [first.id],
    );
    assert.deepEqual(one.pagination, { limit: 1, offset: 1, hasMore: false });
    assert.equal((await bookmarksOf(me.token, 'limit=1')).pagination.hasMore, true);

    for (let i = 0; i < 2; i++) {
      const removed = await bookmark('DELETE', second.id);
      assert.equal(removed.statusCode, 200, removed.body);
      assert.deepEqual(removed.json(), { bookmarked: false });
    }
    assert.deepEqual(
      (await bookmarksOf()).posts.map((post) => post.id),
      [first.id],
    );
  });

  it('post views carry bookmarked for the signed-in reader only', async () => {
    const post = await createPost(app, other.token, 'Seen with a bookmark');
    await bookmark('POST', post.id);
    const inFeed = (token?: string) =>
      getJson(app, '/v1/social/posts?feed=foryou&limit=100', token).then((page: Page) => page.posts.find((p) => p.id === post.id)!);
    assert.equal((await inFeed(me.token)).bookmarked, true);
    assert.equal((await inFeed(other.token)).bookmarked, false, 'someone else sees only their own bookmarks');
    assert.equal('bookmarked' in (await inFeed()), false, 'signed out: no bookmarked at all');
    const single = (await getJson(app, `/v1/social/posts/${post.id}`, me.token)) as { post: PostView };
    assert.equal(single.post.bookmarked, true);
    const ofAuthor = (await getJson(app, `/v1/social/users/${other.username}/posts?limit=100`, me.token)) as Page;
    assert.equal(ofAuthor.posts.find((p) => p.id === post.id)!.bookmarked, true);

    // A repost of a bookmarked post shows the original as bookmarked.
    const repost = await app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/repost`, token: other.token });
    assert.equal(repost.statusCode, 201, repost.body);
    const shown = (await getJson(app, '/v1/social/posts?feed=foryou&limit=100', me.token)) as Page;
    const reposted = shown.posts.find((p) => p.id === repost.json().post.id)!;
    assert.equal(reposted.bookmarked, false);
    assert.equal(reposted.originalPost!.bookmarked, true);
  });

  it('bookmarks are private: another person sees only their own list', async () => {
    const post = await createPost(app, other.token, 'Mine to keep, privately');
    await bookmark('POST', post.id);
    const theirs = await bookmarksOf(other.token);
    assert.ok(!theirs.posts.some((p) => p.id === post.id));
    // Removing "their" bookmark of a post touches only their own list.
    assert.equal((await bookmark('DELETE', post.id, other.token)).statusCode, 200);
    assert.ok((await bookmarksOf()).posts.some((p) => p.id === post.id));
  });

  it('no credential: 401; no profile: 403; bad input: clear errors', async () => {
    const post = await createPost(app, other.token, 'Asked about without a credential');
    expectError(await bookmark('POST', post.id, null), 401, 'UNAUTHORIZED');
    expectError(await bookmark('DELETE', post.id, null), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/social/bookmarks', token: null }), 401, 'UNAUTHORIZED');
    const noProfile = await app.signup();
    expectError(await bookmark('POST', post.id, noProfile.token), 403, 'FORBIDDEN');
    expectError(await bookmark('POST', 'not-a-post'), 404, 'NOT_FOUND');
    expectError(await bookmark('POST', '00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: '/v1/social/bookmarks?limit=0', token: me.token }), 400, 'BAD_REQUEST');
  });

  it('a removed post, or one by someone who blocked you, cannot be bookmarked (404) and leaves the list', async () => {
    const removed = await createPost(app, other.token, 'About to be removed');
    await bookmark('POST', removed.id);
    const hide = await app.request({
      method: 'POST',
      url: '/v1/admin/actions',
      token: operator.token,
      body: { action: 'hide', subject: { type: 'post', id: removed.id }, reason: 'Off topic' },
    });
    assert.equal(hide.statusCode, 201, hide.body);
    expectError(await bookmark('POST', removed.id), 404, 'NOT_FOUND');
    assert.ok(!(await bookmarksOf()).posts.some((p) => p.id === removed.id));

    const blocker = await socialUser(app);
    const theirs = await createPost(app, blocker.token, 'Kept away by a block');
    await bookmark('POST', theirs.id);
    assert.equal((await app.request({ method: 'POST', url: `/v1/social/users/${me.username}/block`, token: blocker.token })).statusCode, 200);
    expectError(await bookmark('POST', theirs.id), 404, 'NOT_FOUND');
    assert.ok(!(await bookmarksOf()).posts.some((p) => p.id === theirs.id));
    // The bookmark can still be taken back.
    assert.equal((await bookmark('DELETE', theirs.id)).statusCode, 200);
  });

  it('deleting the post drops its bookmarks', async () => {
    const post = await createPost(app, other.token, 'Here and then gone');
    await bookmark('POST', post.id);
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/posts/${post.id}`, token: other.token })).statusCode, 200);
    assert.ok(!(await bookmarksOf()).posts.some((p) => p.id === post.id));
    const left = await app.database.db
      .selectFrom('bookmarks' as never)
      .select('post_id' as never)
      .where('post_id' as never, '=', post.id as never)
      .execute();
    assert.equal(left.length, 0);
  });
});
