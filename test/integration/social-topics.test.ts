/**
 * Topics people follow: each topic with its name, description and counts; aliases (#security)
 * landing on their topic; following one, which brings its posts into the following feed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { createPost, getJson, socialUser, type SocialUser } from '../helpers/social.ts';

interface TopicView {
  slug: string;
  name: string;
  description: string;
  group: string;
  aliases: string[];
  postCount: number;
  followerCount: number;
  following: boolean;
}
type Page = { posts: { id: string }[] };

describe('social topics', () => {
  let app: TestApp;
  let reader: SocialUser;
  let writer: SocialUser;

  before(async () => {
    app = await startTestApp();
    reader = await socialUser(app);
    writer = await socialUser(app);
  });
  after(() => app.close());

  const send = (method: 'POST' | 'DELETE', slug: string, token: string | null = reader.token) =>
    app.request({ method, url: `/v1/social/topics/${slug}/follow`, ...(token ? { token } : {}) });
  const topic = async (slug: string, token?: string) => ((await getJson(app, `/v1/social/topics/${slug}`, token)) as { data: TopicView }).data;
  const following = async (token = reader.token) => ((await getJson(app, '/v1/social/posts?feed=following&limit=100', token)) as Page).posts.map((p) => p.id);

  it('lists every topic with its name, description, group and counts of visible posts', async () => {
    const before = await topic('space');
    await createPost(app, writer.token, 'Watching the launch tonight', 'space');
    await createPost(app, writer.token, 'And the landing after', 'space');
    const { topics, data } = (await getJson(app, '/v1/social/topics')) as { topics: string[]; data: TopicView[] };
    assert.deepEqual(
      data.map((t) => t.slug),
      topics,
    );
    const space = data.find((t) => t.slug === 'space')!;
    assert.equal(space.name, 'Space');
    assert.equal(space.group, 'Science and education');
    assert.match(space.description, /\.$/);
    assert.equal(space.postCount, before.postCount + 2);
    assert.equal(space.following, false, 'signed out: following nothing');
    for (const t of data) assert.ok(t.name && t.description, `${t.slug} has a name and a description`);
  });

  it('resolves aliases and hashtags to their topic', async () => {
    const security = await topic('security');
    assert.equal(security.slug, 'cybersecurity');
    assert.equal(security.name, 'Security');
    assert.ok(security.aliases.includes('security') && security.aliases.includes('infosec'));
    assert.equal((await topic('Open-Source')).slug, 'open-source');
    assert.equal((await topic('opensource')).slug, 'open-source');
    // A post tagged with an alias is filed under its topic.
    const post = (await createPost(app, writer.token, 'Rotate your keys #security')) as { topic: string };
    assert.equal(post.topic, 'cybersecurity');
  });

  it('follows and unfollows a topic, idempotently, with counts that follow', async () => {
    const start = await topic('robotics', reader.token);
    assert.equal(start.following, false);
    const followed = await send('POST', 'robotics');
    assert.equal(followed.statusCode, 200, followed.body);
    assert.deepEqual([followed.json().data.following, followed.json().data.followerCount], [true, start.followerCount + 1]);
    const again = await send('POST', 'robotics');
    assert.deepEqual([again.json().data.following, again.json().data.followerCount], [true, start.followerCount + 1]);
    // Following by an alias follows the topic itself.
    assert.equal((await send('POST', 'drones')).json().data.slug, 'robotics');
    const listed = (await getJson(app, '/v1/social/topics', reader.token)) as { data: TopicView[] };
    assert.deepEqual(
      listed.data.filter((t) => t.following).map((t) => t.slug),
      ['robotics'],
    );
    assert.equal((await topic('robotics')).following, false, 'others see the count, not whom you follow');

    const unfollowed = await send('DELETE', 'robotics');
    assert.equal(unfollowed.statusCode, 200, unfollowed.body);
    assert.deepEqual([unfollowed.json().data.following, unfollowed.json().data.followerCount], [false, start.followerCount]);
    assert.equal((await send('DELETE', 'robotics')).json().data.followerCount, start.followerCount);
  });

  it("brings a followed topic's posts by people you do not follow into your following feed, and takes them out on unfollow", async () => {
    const stranger = await socialUser(app);
    const before = await createPost(app, stranger.token, 'A robot arm that sorts socks', 'robotics');
    const elsewhere = await createPost(app, stranger.token, 'Sourdough, day three', 'food');
    assert.ok(!(await following()).includes(before.id));

    assert.equal((await send('POST', 'robotics')).statusCode, 200);
    assert.ok((await following()).includes(before.id), 'posts from before the follow are there too');
    const after = await createPost(app, stranger.token, 'Now it folds them as well', 'robotics');
    const feed = await following();
    assert.ok(feed.includes(after.id), 'a new post in the topic appears at once');
    assert.ok(!feed.includes(elsewhere.id), 'other topics stay out');
    assert.ok(feed.indexOf(after.id) < feed.indexOf(before.id), 'newest first');
    // The topic filter of the following feed keeps them.
    const filtered = ((await getJson(app, '/v1/social/posts?feed=following&topic=robotics', reader.token)) as Page).posts.map((p) => p.id);
    assert.ok(filtered.includes(after.id));
    // Your own posts in the topic stay out, as they do for people you follow.
    const mine = await createPost(app, reader.token, 'My own robot', 'robotics');
    assert.ok(!(await following()).includes(mine.id));

    // Muting the author hides their posts here as everywhere else in the feed.
    assert.equal((await app.request({ method: 'POST', url: `/v1/social/users/${stranger.username}/mute`, token: reader.token })).statusCode, 200);
    assert.ok(!(await following()).includes(after.id));
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/users/${stranger.username}/mute`, token: reader.token })).statusCode, 200);
    assert.ok((await following()).includes(after.id));

    assert.equal((await send('DELETE', 'robotics')).statusCode, 200);
    const gone = await following();
    assert.ok(!gone.includes(before.id) && !gone.includes(after.id));
    // A deleted post leaves the feed of those following its topic.
    await send('POST', 'robotics');
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/posts/${after.id}`, token: stranger.token })).statusCode, 200);
    assert.ok(!(await following()).includes(after.id));
    await send('DELETE', 'robotics');
  });

  it('refuses unknown topics, bad slugs and missing credentials with clear errors', async () => {
    const unknown = await app.request({ method: 'GET', url: '/v1/social/topics/underwater-basketry' });
    expectError(unknown, 404, 'NOT_FOUND');
    assert.match(unknown.json().message, /underwater-basketry/);
    expectError(await send('POST', 'underwater-basketry'), 404, 'NOT_FOUND');
    expectError(await send('DELETE', 'underwater-basketry'), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: '/v1/social/topics/no%20spaces' }), 400, 'BAD_REQUEST');
    expectError(await send('POST', 'x'.repeat(51)), 400, 'BAD_REQUEST');
    expectError(await send('POST', 'robotics', null), 401, 'UNAUTHORIZED');
    expectError(await send('DELETE', 'robotics', null), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/social/topics', token: 'garbage' }), 401, 'UNAUTHORIZED');
  });
});
