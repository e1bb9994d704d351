import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerAgent } from '../helpers/agents.ts';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { comment, createPost, getJson, socialUser, vote, type SocialUser } from '../helpers/social.ts';

const HOUR = 3600_000;

describe('social topics', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('lists the taxonomy without a credential', async () => {
    const response = await app.request({ method: 'GET', url: '/v1/social/topics' });
    assert.equal(response.statusCode, 200);
    const { topics } = response.json();
    assert.equal(topics.length, 56);
    assert.equal(response.json().data.length, 56);
    assert.deepEqual(topics.slice(0, 3), ['ai', 'ai-agents', 'ai-ethics']);
    assert.equal(topics.at(-1), 'general');
    assert.ok(topics.includes('open-source') && topics.includes('openplatform'));
  });
});

describe('social trending', () => {
  let app: TestApp;
  let writer: SocialUser;
  let fans: SocialUser[];
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({}, { clock });
    writer = await socialUser(app);
    fans = await Promise.all(Array.from({ length: 5 }, () => socialUser(app)));
  });
  after(() => app.close());

  it('ranks the last 24 hours by likes plus comments, shows what the spec lists, default 10', async () => {
    const stale = await createPost(app, writer.token, 'yesterday morning');
    for (const fan of fans) await vote(app, fan.token, stale.id, 1);
    clock.advance(25 * HOUR);
    const older = await createPost(app, writer.token, 'eighteen hours ago');
    clock.advance(18 * HOUR);
    const fresh = await createPost(app, writer.token, 'just now');
    const quiet = await createPost(app, writer.token, 'nobody cares');
    for (const fan of fans.slice(0, 3)) await vote(app, fan.token, older.id, 1);
    await vote(app, fans[0]!.token, fresh.id, 1);
    await vote(app, fans[1]!.token, fresh.id, -1);
    await comment(app, fans[2]!.token, fresh.id, 'first');

    const { posts } = await getJson(app, '/v1/social/trending');
    assert.deepEqual(
      posts.map((p: { id: string }) => p.id),
      [older.id, fresh.id],
    );
    for (const key of ['id', 'body', 'score', 'commentCount', 'author']) assert.ok(key in posts[0], key);
    assert.deepEqual([posts[1].score, posts[1].commentCount, posts[1].author.username], [0, 1, writer.username]);
    assert.ok(!posts.some((p: { id: string }) => p.id === quiet.id || p.id === stale.id));
    // The feed's trending slice looks back 12 hours only: the 18-hour-old post is not in it.
    assert.equal((await getJson(app, '/v1/social/posts?limit=1')).posts[0].id, fresh.id);
    assert.equal((await getJson(app, '/v1/social/trending', fans[0]!.token)).posts[1].userVote, 1);
  });

  it('honours limit (1-50) and refuses bad ones', async () => {
    for (let i = 0; i < 12; i++) {
      const post = await createPost(app, writer.token, `popular ${i}`);
      await vote(app, fans[i % 5]!.token, post.id, 1);
    }
    assert.equal((await getJson(app, '/v1/social/trending')).posts.length, 10);
    assert.equal((await getJson(app, '/v1/social/trending?limit=3')).posts.length, 3);
    assert.equal((await getJson(app, '/v1/social/trending?limit=50')).posts.length, 14);
    for (const limit of ['0', '51', 'many']) expectError(await app.request({ method: 'GET', url: `/v1/social/trending?limit=${limit}` }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: '/v1/social/trending', token: 'ags_wrong' }), 401, 'UNAUTHORIZED');
  });
});

describe('social search', () => {
  let app: TestApp;
  let alice: SocialUser;
  const clock = new TestClock();
  before(async () => {
    app = await startTestApp({}, { clock });
    alice = await socialUser(app, 'alice_search', { bio: 'Loves Rust and coffee' });
  });
  after(() => app.close());

  const search = (query: string, token?: string) => app.request({ method: 'GET', url: `/v1/social/search${query}`, token: token ?? null });

  it('finds posts case-insensitively, newest first, with pagination (posts is the default tab)', async () => {
    const ids: string[] = [];
    for (const body of ['Learning RUST this week', 'rust never sleeps', 'Nothing to see', '100% rusty', 'under_score and 100 percent']) {
      clock.advance(1000);
      ids.push((await createPost(app, alice.token, body)).id);
    }
    const found = (await search('?q=Rust')).json();
    assert.deepEqual(
      found.posts.map((p: { id: string }) => p.id),
      [ids[3], ids[1], ids[0]],
    );
    assert.deepEqual(found.pagination, { limit: 20, offset: 0, hasMore: false });
    assert.ok(found.posts.every((p: object) => !('userVote' in p)));
    assert.ok((await search('?q=rust&tab=posts', alice.token)).json().posts.every((p: { userVote: unknown }) => p.userVote === null));
    const paged = (await search('?q=rust&limit=2&offset=1')).json();
    assert.deepEqual(
      paged.posts.map((p: { id: string }) => p.id),
      [ids[1], ids[0]],
    );
    assert.deepEqual(paged.pagination, { limit: 2, offset: 1, hasMore: false });
    assert.deepEqual((await search('?q=rust&limit=1')).json().pagination, { limit: 1, offset: 0, hasMore: true });
    // % and _ are plain characters, not wildcards.
    assert.deepEqual(
      (await search(`?q=${encodeURIComponent('100%')}`)).json().posts.map((p: { id: string }) => p.id),
      [ids[3]],
    );
    assert.deepEqual((await search('?q=r_st')).json().posts, []);
    assert.deepEqual(
      (await search('?q=under_score')).json().posts.map((p: { id: string }) => p.id),
      [ids[4]],
    );
  });

  it('finds humans and agents by username, display name or bio, each in its own tab', async () => {
    const { token } = await app.signup();
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: 'bot' } })).json().data.key;
    await app.request({
      method: 'POST',
      url: '/v1/users',
      token: key,
      body: { username: 'rusty_bot', displayName: 'Rusty', type: 'agent', bio: 'I compile things' },
    });
    await socialUser(app, 'bob_search', { displayName: 'Bob RUSTacean' });

    const humans = (await search('?q=rust&tab=humans')).json();
    assert.deepEqual(humans.users.map((u: { username: string }) => u.username).sort(), ['alice_search', 'bob_search']);
    assert.deepEqual(Object.keys(humans.users[0]).sort(), ['avatarUrl', 'bio', 'displayName', 'followerCount', 'id', 'type', 'username']);
    assert.deepEqual(humans.pagination, { limit: 20, offset: 0, hasMore: false });
    const agents = (await search('?q=rust&tab=agents')).json();
    assert.deepEqual(
      agents.users.map((u: { username: string; type: string }) => [u.username, u.type]),
      [['rusty_bot', 'agent']],
    );
    assert.deepEqual((await search('?q=COMPILE&tab=agents')).json().users.length, 1);
    assert.deepEqual((await search('?q=rust&tab=humans&limit=1')).json().pagination, { limit: 1, offset: 0, hasMore: true });
  });

  it('forwards the services tab to discovery: public agents only', async () => {
    const { token } = await app.signup();
    const visible = await registerAgent(app, token, { name: 'Inbox Digest Service', description: 'Summarises your inbox every morning' });
    await registerAgent(app, token, { name: 'Secret Digest', description: 'Private digest', visibility: 'private' });
    const found = (await search('?q=digest&tab=services')).json();
    assert.deepEqual(
      found.agents.map((a: { id: string }) => a.id),
      [visible.id],
    );
    assert.equal(found.agents[0].slug, visible.slug);
    assert.equal(found.pagination.hasMore, false);
    assert.deepEqual((await search('?q=nothing-like-this&tab=services')).json().agents, []);
  });

  it('refuses a missing or blank q, an unknown tab and bad limits with 400; a bad credential with 401', async () => {
    for (const query of ['', '?q=', '?q=%20%20', '?q=x&tab=groups', '?q=x&limit=0', '?q=x&limit=51', '?q=x&offset=-1', `?q=${'x'.repeat(201)}`]) {
      expectError(await search(query), 400, 'BAD_REQUEST');
    }
    expectError(await search('?q=rust', 'ags_wrong'), 401, 'UNAUTHORIZED');
  });
});
