import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { createLocalSignals } from '../../src/db/signals.ts';
import { createSocialService } from '../../src/modules/social/index.ts';
import { expectError, otherNode, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { comment, createPost, follow, getJson, socialUser, vote, type SocialUser } from '../helpers/social.ts';
import { waitFor } from '../helpers/wait.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
type FeedPost = { id: string; body: string; topic: string; userVote?: number | null; originalPost: { id: string } | null };
type FeedPage = { posts: FeedPost[]; pagination: { limit: number; offset: number; hasMore: boolean } };

describe('social feed: foryou', () => {
  let app: TestApp;
  let alice: SocialUser;
  let fans: SocialUser[];
  const clock = new TestClock();
  /** Post ids oldest first. */
  const made: string[] = [];
  const ids = (page: FeedPage) => page.posts.map((p) => p.id);
  const feed = async (query = '', token?: string) => {
    const response = await app.request({ method: 'GET', url: `/v1/social/posts${query}`, token: token ?? null });
    assert.equal(response.statusCode, 200, response.body);
    return {
      page: response.json() as FeedPage,
      before: response.headers['x-feed-before'] as string,
      trending: Number(response.headers['x-feed-trending']),
    };
  };

  before(async () => {
    app = await startTestApp({}, { clock });
    alice = await socialUser(app);
    fans = await Promise.all(Array.from({ length: 4 }, () => socialUser(app)));
    // An old post with the most engagement of all: outside the 12-hour window, so never trending in the feed.
    const old = await createPost(app, alice.token, 'old and famous');
    made.push(old.id);
    for (const fan of fans) await vote(app, fan.token, old.id, 1);
    clock.advance(13 * HOUR);
    for (let i = 0; i < 20; i++) {
      clock.advance(MINUTE);
      made.push((await createPost(app, alice.token, `post number ${i}`)).id);
    }
  });
  after(() => app.close());

  it('is newest first when nothing is trending, with hasMore and the default limit 25', async () => {
    const { page, before } = await feed('?limit=5');
    assert.deepEqual(ids(page), made.slice(-5).reverse());
    assert.deepEqual(page.pagination, { limit: 5, offset: 0, hasMore: true });
    assert.equal(before, clock.now().toISOString());
    const all = (await feed()).page;
    assert.deepEqual(ids(all), [...made].reverse());
    assert.deepEqual(all.pagination, { limit: 25, offset: 0, hasMore: false });
  });

  it('starts with up to 4 trending posts (likes plus comments, last 12 hours), then newest first without repeating them', async () => {
    const [, a, b, c, d, e] = made; // five older posts of the window, a the oldest
    // Engagement: c 4, a 3 (2 likes, 1 comment), e 2, b 2 (a like and a dislike count as one like), d 1.
    for (const fan of fans) await vote(app, fan.token, c!, 1);
    await vote(app, fans[0]!.token, a!, 1);
    await vote(app, fans[1]!.token, a!, 1);
    await comment(app, fans[2]!.token, a!, 'nice');
    await vote(app, fans[0]!.token, e!, 1);
    await comment(app, fans[1]!.token, e!, 'agreed');
    await vote(app, fans[0]!.token, b!, 1);
    await vote(app, fans[1]!.token, b!, -1);
    await comment(app, fans[2]!.token, b!, 'hmm');
    await vote(app, fans[3]!.token, d!, 1);

    const { page, trending: marked } = await feed('?limit=10');
    assert.equal(marked, 4, 'X-Feed-Trending counts the slice at the top');
    assert.equal((await feed('?limit=3')).trending, 3);
    assert.equal((await feed('?limit=3&offset=3')).trending, 1);
    assert.equal((await feed('?limit=3&offset=6')).trending, 0);
    // Equal engagement (e and b): the newer first.
    const trending = [c, a, e, b];
    assert.deepEqual(ids(page).slice(0, 4), trending);
    const rest = [...made].reverse().filter((id) => !trending.includes(id));
    assert.deepEqual(ids(page).slice(4), rest.slice(0, 6));

    // Every post exactly once across pages, whatever the page size; the trending slice only on the first.
    for (const limit of [1, 3, 4, 5, 7, 25]) {
      const seen: string[] = [];
      for (let offset = 0; ; offset += limit) {
        const next = (await feed(`?limit=${limit}&offset=${offset}`)).page;
        seen.push(...ids(next));
        if (!next.pagination.hasMore) break;
      }
      assert.deepEqual(seen, [...trending, ...rest], `limit ${limit}`);
    }
  });

  it('carries userVote only for a signed-in viewer', async () => {
    const signedIn = (await feed('?limit=25', fans[0]!.token)).page;
    const voted = signedIn.posts.filter((p) => p.userVote !== null);
    assert.ok(voted.length >= 3);
    assert.ok(signedIn.posts.every((p) => 'userVote' in p));
    assert.ok((await feed('?limit=25')).page.posts.every((p) => !('userVote' in p)));
    const { token } = await app.signup();
    assert.ok(
      (await feed('', token)).page.posts.every((p) => p.userVote === null),
      'signed in without a profile: no votes',
    );
  });

  it('pages with `before` never repeat or skip a post while new posts arrive and votes move the ranking', async () => {
    const first = await feed('?limit=6');
    const expected: string[] = [];
    for (let offset = 0; ; offset += 6) {
      const page = (await feed(`?limit=6&offset=${offset}`)).page;
      expected.push(...ids(page));
      if (!page.pagination.hasMore) break;
    }
    assert.deepEqual(ids(first.page), expected.slice(0, 6));

    const seen = [...ids(first.page)];
    const newcomers: string[] = [];
    for (let offset = 6; ; offset += 6) {
      // Between every two pages: new posts, and a new post that instantly gets engagement.
      clock.advance(MINUTE);
      newcomers.push((await createPost(app, alice.token, `arrived before offset ${offset}`)).id);
      const hot = await createPost(app, alice.token, `hot newcomer ${offset}`);
      newcomers.push(hot.id);
      for (const fan of fans) await vote(app, fan.token, hot.id, 1);
      const page = (await feed(`?limit=6&offset=${offset}&before=${encodeURIComponent(first.before)}`)).page;
      seen.push(...ids(page));
      if (!page.pagination.hasMore) break;
    }
    assert.deepEqual(seen, expected);
    assert.equal(new Set(seen).size, seen.length);
    assert.ok(newcomers.every((id) => !seen.includes(id)));
    // The live feed (no before) has them.
    assert.ok(ids((await feed('?limit=10')).page).includes(newcomers.at(-1)!));
  });

  it('pins the trending slice to `before` too: later posts never enter it', async () => {
    const pinned = await feed('?limit=4');
    clock.advance(MINUTE);
    const late = await createPost(app, alice.token, 'very late and very hot');
    for (const fan of fans) await vote(app, fan.token, late.id, 1);
    await comment(app, fans[0]!.token, late.id, 'wow');
    assert.equal(ids((await feed('?limit=4')).page)[0], late.id);
    const again = await feed(`?limit=4&before=${encodeURIComponent(pinned.before)}`);
    assert.deepEqual(ids(again.page), ids(pinned.page));
    assert.equal(again.before, pinned.before);
  });

  it('filters by topic and refuses unknown topics, feeds, limits, offsets and moments with 400', async () => {
    const fresh = await startTestApp({}, { clock: new TestClock() });
    try {
      const writer = await socialUser(fresh);
      const cloud = await createPost(fresh, writer.token, 'kubernetes cluster on AWS');
      await createPost(fresh, writer.token, 'sourdough bread recipe');
      const music = await createPost(fresh, writer.token, 'new album', 'music');
      const byTopic = async (topic: string) => ((await getJson(fresh, `/v1/social/posts?topic=${topic}`)) as FeedPage).posts.map((p) => p.id);
      assert.deepEqual(await byTopic('cloud'), [cloud.id]);
      assert.deepEqual(await byTopic('music'), [music.id]);
      assert.deepEqual(await byTopic('space'), []);
    } finally {
      await fresh.close();
    }
    for (const query of [
      '?topic=cooking',
      '?topic=',
      '?feed=latest',
      '?limit=0',
      '?limit=101',
      '?offset=-1',
      '?limit=ten',
      '?before=yesterday',
      '?before=2026-13-45T00:00:00Z',
    ]) {
      expectError(await app.request({ method: 'GET', url: `/v1/social/posts${query}` }), 400, 'BAD_REQUEST');
    }
    expectError(await app.request({ method: 'GET', url: '/v1/social/posts', token: 'ags_wrong' }), 401, 'UNAUTHORIZED');
  });
});

describe('social feed: following', () => {
  let app: TestApp;
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({}, { clock });
  });
  after(() => app.close());

  it('shows only posts of the people followed, newest first, pinned with `before`', async () => {
    const [reader, friend, other, stranger] = await Promise.all([socialUser(app), socialUser(app), socialUser(app), socialUser(app)]);
    await follow(app, reader.token, friend.username);
    await follow(app, reader.token, other.username);
    const expected: string[] = [];
    for (let i = 0; i < 6; i++) {
      clock.advance(MINUTE);
      expected.unshift((await createPost(app, i % 2 ? friend.token : other.token, `followed post ${i}`)).id);
      await createPost(app, stranger.token, `stranger post ${i}`);
      await createPost(app, reader.token, `own post ${i}`);
    }
    const first = await app.request({ method: 'GET', url: '/v1/social/posts?feed=following&limit=4', token: reader.token });
    const page = first.json() as FeedPage;
    assert.deepEqual(
      page.posts.map((p) => p.id),
      expected.slice(0, 4),
    );
    assert.deepEqual(page.pagination, { limit: 4, offset: 0, hasMore: true });
    clock.advance(MINUTE);
    await createPost(app, friend.token, 'arrives between pages');
    const second = (await getJson(
      app,
      `/v1/social/posts?feed=following&limit=4&offset=4&before=${encodeURIComponent(first.headers['x-feed-before'] as string)}`,
      reader.token,
    )) as FeedPage;
    assert.deepEqual(
      second.posts.map((p) => p.id),
      expected.slice(4),
    );
    assert.equal(second.pagination.hasMore, false);
    const friendsOnly = (await getJson(app, '/v1/social/posts?feed=following&topic=general', reader.token)) as FeedPage;
    assert.equal(friendsOnly.posts.length, 7);
  });

  it('needs a credential (401) and a profile (403)', async () => {
    expectError(await app.request({ method: 'GET', url: '/v1/social/posts?feed=following' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/social/posts?feed=following', token: 'agk_wrong' }), 401, 'UNAUTHORIZED');
    const { token } = await app.signup();
    expectError(await app.request({ method: 'GET', url: '/v1/social/posts?feed=following', token }), 403, 'FORBIDDEN');
  });
});

describe('social feed: a fixed number of queries whatever the page size', () => {
  let app: TestApp;
  let reader: SocialUser;
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({}, { clock });
    reader = await socialUser(app);
    const writers = await Promise.all(Array.from({ length: 3 }, () => socialUser(app)));
    for (const writer of writers) await follow(app, reader.token, writer.username);
    for (let i = 0; i < 60; i++) {
      clock.advance(1000);
      const writer = writers[i % 3]!;
      const post = await createPost(app, writer.token, `post ${i} about kubernetes`);
      if (i % 4 === 0) await vote(app, reader.token, post.id, 1);
      if (i % 5 === 4)
        await app.request({
          method: 'POST',
          url: `/v1/social/posts/${post.id}/repost`,
          token: writers[(i + 1) % 3]!.token,
          body: i % 10 === 4 ? { body: 'quoted' } : {},
        });
      if (i % 7 === 0) await comment(app, reader.token, post.id, 'a comment');
    }
  });
  after(() => app.close());

  it('counts the same queries for 5 posts as for 60, reposts and votes included', async () => {
    let queries = 0;
    // Every query that runs, precompiled ones included, comes back through transformResult.
    const counting: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        queries++;
        return args.result;
      },
    };
    const db = app.database.db.withPlugin(counting);
    const social = createSocialService({
      database: { db, dialect: app.database.dialect, transaction: (work) => db.transaction().execute(work) },
      clock: app.clock,
      searchServices: async () => ({ agents: [], pagination: { limit: 0, offset: 0, hasMore: false } }),
      adjustFollowCounts: async () => {},
      // These posts show no pictures: nothing is attached or released.
      media: { attachable: async () => [], attach: async () => {}, release: async () => {}, urlOf: (id) => `http://media.test/media/${id}` },
      profilesChanged: async () => {},
      // Nothing cached: every call reads everything it shows.
      feedCacheMs: 0,
      timelineMaxAgeMs: 0,
      signals: createLocalSignals(),
    });
    const principal = {
      accountId: reader.accountId,
      kind: 'person' as const,
      via: 'session' as const,
      credentialId: null,
      agentId: null,
      personId: reader.accountId,
    };
    const count = async (read: () => Promise<unknown>) => {
      queries = 0;
      await read();
      return queries;
    };
    const feedQueries = async (limit: number, feed: 'foryou' | 'following') => {
      const n = await count(() => social.feed.feed(principal, { feed, limit, offset: 0 }));
      const { rows, votes } = await social.feed.feed(principal, { feed, limit, offset: 0 });
      assert.equal(rows.length, limit);
      assert.ok(rows.some((row) => row.original !== null) && rows.some((row) => votes?.get(row.id) === 1));
      return n;
    };
    // The first call learns the reader's profile id, which never changes.
    await social.feed.feed(principal, { feed: 'foryou', limit: 5, offset: 0 });
    const small = await feedQueries(8, 'foryou');
    assert.equal(await feedQueries(60, 'foryou'), small);
    assert.equal(
      small,
      6,
      'trending ids, the other ids, posts with authors and originals, their pictures, votes and bookmarks, the accounts and words muted or blocked',
    );
    assert.equal(await feedQueries(60, 'following'), await feedQueries(8, 'following'));
    const search = (limit: number) => count(() => social.feed.search(principal, { q: 'kubernetes', tab: 'posts', limit, offset: 0 }));
    assert.equal(await search(50), await search(5));
  });
});

describe('social feed: following timelines kept by each node', () => {
  let app: TestApp;
  /** On PostgreSQL a second node on the same schema; on SQLite the same app (one node per file). */
  let other: TestApp;
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({ CREDENTIAL_RATE_LIMIT_MAX: '1000' }, { clock });
    other = await otherNode(app, { overrides: { clock } });
  });
  after(async () => {
    await other.close();
    await app.close();
  });

  const following = async (node: TestApp, reader: SocialUser, query = '') =>
    (await getJson(node, `/v1/social/posts?feed=following${query}`, reader.token)) as FeedPage;
  const idsOf = (page: FeedPage) => page.posts.map((p) => p.id);

  /** A reader following two writers with three posts each, the reader's timeline read (so kept) on `node`. */
  async function network(node: TestApp) {
    const [reader, friend, other, stranger] = await Promise.all([socialUser(app), socialUser(app), socialUser(app), socialUser(app)]);
    await follow(app, reader.token, friend.username);
    await follow(app, reader.token, other.username);
    const posts: string[] = [];
    for (let i = 0; i < 6; i++) {
      clock.advance(1000);
      posts.unshift((await createPost(app, (i % 2 ? friend : other).token, `timeline post ${i}`)).id);
    }
    assert.deepEqual(idsOf(await following(node, reader)), posts);
    return { reader, friend, other, stranger, posts };
  }

  it('shows a new post or repost by someone followed at once, and nothing by others', async () => {
    const { reader, friend, stranger, posts } = await network(app);
    clock.advance(1000);
    const fresh = await createPost(app, friend.token, 'just now');
    await createPost(app, stranger.token, 'not followed');
    assert.deepEqual(idsOf(await following(app, reader)), [fresh.id, ...posts]);
    clock.advance(1000);
    const strangersPost = await createPost(app, stranger.token, 'worth sharing');
    const repost = (await app.request({ method: 'POST', url: `/v1/social/posts/${strangersPost.id}/repost`, token: friend.token, body: {} })).json().post;
    assert.deepEqual(idsOf(await following(app, reader)), [repost.id, fresh.id, ...posts]);
  });

  it('follows and unfollows change the feed at once', async () => {
    const { reader, friend, stranger, posts } = await network(app);
    clock.advance(1000);
    const strangers = await createPost(app, stranger.token, 'now followed');
    await follow(app, reader.token, stranger.username);
    assert.deepEqual(idsOf(await following(app, reader)), [strangers.id, ...posts]);
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/users/${friend.username}/follow`, token: reader.token })).statusCode, 200);
    // Newest first: the friend wrote posts 0, 2 and 4 of the list.
    assert.deepEqual(idsOf(await following(app, reader)), [strangers.id, ...posts.filter((_, i) => i % 2 === 1)]);
  });

  it('drops a deleted post, and the pure reposts of it by people followed', async () => {
    const { reader, friend, stranger, posts } = await network(app);
    clock.advance(1000);
    const shared = await createPost(app, stranger.token, 'to be reposted then deleted');
    const repost = (await app.request({ method: 'POST', url: `/v1/social/posts/${shared.id}/repost`, token: friend.token, body: {} })).json().post;
    assert.deepEqual(idsOf(await following(app, reader)), [repost.id, ...posts]);
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/posts/${posts[0]}`, token: friend.token })).statusCode, 200);
    assert.deepEqual(idsOf(await following(app, reader)), [repost.id, ...posts.slice(1)]);
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/posts/${shared.id}`, token: stranger.token })).statusCode, 200);
    assert.deepEqual(idsOf(await following(app, reader)), posts.slice(1));
  });

  it('pages and topics from a kept timeline: newest first, ties by id, no overlap, pinned with `before`', async () => {
    const { reader, friend, other } = await network(app);
    // Three posts at one moment: ties are ordered by id, descending.
    clock.advance(1000);
    const tied = await Promise.all([friend, other, friend].map((writer, i) => createPost(app, writer.token, `tied ${i}`)));
    clock.advance(1000);
    const food = await createPost(app, other.token, 'Baked sourdough bread with a new recipe');
    const all = idsOf(await following(app, reader, '&limit=100'));
    assert.deepEqual(
      all.slice(1, 4),
      tied
        .map((p) => p.id)
        .sort()
        .reverse(),
    );
    const first = await app.request({ method: 'GET', url: '/v1/social/posts?feed=following&limit=4', token: reader.token });
    const asOf = encodeURIComponent(first.headers['x-feed-before'] as string);
    clock.advance(1000);
    await createPost(app, friend.token, 'arrives between pages');
    const second = await following(app, reader, `&limit=4&offset=4&before=${asOf}`);
    const third = await following(app, reader, `&limit=4&offset=8&before=${asOf}`);
    assert.deepEqual([...idsOf(first.json() as FeedPage), ...idsOf(second), ...idsOf(third)], all);
    assert.deepEqual([second.pagination.hasMore, third.pagination.hasMore], [true, false]);
    assert.deepEqual(idsOf(await following(app, reader, '&topic=food')), [food.id]);
  });

  it('another node on the same database agrees once the signal arrives: new posts, unfollows and deletions', async () => {
    const { reader, friend, posts } = await network(other);
    clock.advance(1000);
    const fresh = await createPost(app, friend.token, 'written through the first node');
    await waitFor(
      'the new post on the other node',
      async () => idsOf(await following(other, reader)),
      (ids) => ids[0] === fresh.id,
    );
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/posts/${posts[0]}`, token: friend.token })).statusCode, 200);
    await waitFor(
      'the deletion on the other node',
      async () => idsOf(await following(other, reader)),
      (ids) => !ids.includes(posts[0]!),
    );
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/users/${friend.username}/follow`, token: reader.token })).statusCode, 200);
    const remaining = posts.filter((_, i) => i % 2 === 1);
    await waitFor(
      'the unfollow on the other node',
      async () => idsOf(await following(other, reader)),
      (ids) => ids.join() === remaining.join(),
    );
    assert.deepEqual(idsOf(await following(app, reader)), remaining);
  });

  it('shows a post no signal announced once the timeline is a minute old', async () => {
    const { reader, friend, posts } = await network(app);
    clock.advance(1000);
    const unannounced = {
      id: randomUUID(),
      author_id: friend.profileId,
      kind: 'post' as const,
      body: 'written behind the service',
      topic: 'general',
      hashtags: '[]',
      repost_of: null,
      created_at: clock.now().toISOString(),
    };
    await app.database.db.insertInto('posts').values(unannounced).execute();
    clock.advance(60_000);
    assert.deepEqual(idsOf(await following(app, reader)), [unannounced.id, ...posts]);
  });
});
