/**
 * Muted words: a person's list of words, phrases and #tags. Posts they match leave that person's feeds,
 * search, others' profile lists and notifications; their own posts always stay; others see everything.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { openEvents } from '../helpers/events.ts';
import { comment, createPost, follow, getJson, notificationsOf, socialUser, type SocialUser } from '../helpers/social.ts';

type Page = { posts: { id: string }[] };

describe('muted words', () => {
  let app: TestApp;
  let me: SocialUser;
  let other: SocialUser;

  before(async () => {
    app = await startTestApp();
    me = await socialUser(app);
    other = await socialUser(app);
    await follow(app, me.token, other.username);
  });
  after(() => app.close());

  const setWords = (words: unknown, token: string | null = me.token) => app.request({ method: 'PUT', url: '/v1/social/muted-words', token, body: { words } });
  const ids = async (url: string, token: string = me.token) => ((await getJson(app, url, token)) as Page).posts.map((post) => post.id);

  it('keeps the list lowercase, each word once, in order; a PUT replaces it', async () => {
    const saved = await setWords(['Spoiler', '  #Finale ', 'spoiler', 'plot twist']);
    assert.equal(saved.statusCode, 200, saved.body);
    assert.deepEqual(saved.json(), { words: ['#finale', 'plot twist', 'spoiler'] });
    assert.deepEqual(await getJson(app, '/v1/social/muted-words', me.token), { words: ['#finale', 'plot twist', 'spoiler'] });
    assert.deepEqual((await setWords([])).json(), { words: [] });
    assert.deepEqual(await getJson(app, '/v1/social/muted-words', me.token), { words: [] });
  });

  it('matching posts leave feeds, search and profile lists; whole words and #tags; own posts stay', async () => {
    const spoiler = await createPost(app, other.token, 'Big SPOILER: the butler did it');
    const tagged = await createPost(app, other.token, 'Tonight is the night #Finale');
    const wordInside = await createPost(app, other.token, 'Spoilers are a different word, as is unspoiler');
    const plain = await createPost(app, other.token, 'Nothing to hide, spoiler-free talk about tea');
    const mine = await createPost(app, me.token, 'My own spoiler stays with me');
    const repost = await app.request({ method: 'POST', url: `/v1/social/posts/${spoiler.id}/repost`, token: (await socialUser(app)).token });
    assert.equal(repost.statusCode, 201, repost.body);
    assert.equal((await setWords(['spoiler', '#finale'])).statusCode, 200);

    const gone = [spoiler.id, tagged.id, repost.json().post.id];
    for (const url of ['/v1/social/posts?feed=foryou&limit=100', '/v1/social/posts?feed=following&limit=100', '/v1/social/search?q=the&limit=50']) {
      const seen = await ids(url);
      for (const id of gone) assert.ok(!seen.includes(id), `${url} leaves out ${id}`);
    }
    const foryou = await ids('/v1/social/posts?feed=foryou&limit=100');
    assert.ok(foryou.includes(wordInside.id), 'a word inside another word does not match');
    assert.ok(!foryou.includes(plain.id), '"spoiler-free" holds the whole word spoiler');
    assert.ok(foryou.includes(mine.id), 'your own posts are never hidden from you');
    const profile = await ids(`/v1/social/users/${other.username}/posts?limit=100`);
    assert.ok(!profile.includes(spoiler.id) && profile.includes(wordInside.id));
    assert.ok((await ids(`/v1/social/users/${me.username}/posts?limit=100`)).includes(mine.id));

    // Others see everything.
    const theirs = await ids('/v1/social/posts?feed=foryou&limit=100', other.token);
    for (const id of [spoiler.id, tagged.id]) assert.ok(theirs.includes(id));
    await setWords([]);
    assert.ok((await ids('/v1/social/posts?feed=foryou&limit=100')).includes(spoiler.id), 'unmuting brings them back');
  });

  it('replies and mentions that match leave notifications and the unread count', async () => {
    await setWords([]);
    const post = await createPost(app, me.token, 'Ask me anything');
    await comment(app, other.token, post.id, 'Is the ending a spoiler?');
    await createPost(app, other.token, `Hey @${me.username}, no spoiler here`);
    await comment(app, other.token, post.id, 'A calm question');
    const unreadBefore = ((await getJson(app, '/v1/social/notifications/unread', me.token)) as { unread: number }).unread;
    await setWords(['SPOILER']);
    const bodies = (await notificationsOf(app, me.token)).map((n) => n.postBody ?? '');
    assert.ok(!bodies.some((body) => /spoiler/i.test(body)), bodies.join(' | '));
    assert.ok(bodies.includes('A calm question'));
    const grouped = (await getJson(app, '/v1/social/notifications?grouped=true', me.token)) as { groups: { postBody: string | null }[] };
    assert.ok(!grouped.groups.some((group) => /spoiler/i.test(group.postBody ?? '')));
    assert.equal(((await getJson(app, '/v1/social/notifications/unread', me.token)) as { unread: number }).unread, unreadBefore - 2);
    await setWords([]);
  });

  it('an open event stream leaves out matching posts and mentions once the list changes', async () => {
    await app.server.listen({ host: '127.0.0.1', port: 0 });
    const stream = await openEvents(`http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`, me.token);
    try {
      await stream.until('the starting id', (events) => events.length > 0);
      await setWords(['avocado']);
      await createPost(app, other.token, `Avocado toast for you, @${me.username}`);
      const plain = await createPost(app, other.token, `Plain toast for you, @${me.username}`);
      const sent = (name: string) =>
        stream.events
          .filter((event) => event.event === name)
          .map((event) => JSON.parse(event.data ?? 'null') as Record<string, { body?: string; postBody?: string }>);
      // The second post and its mention come after the first: once they are here, the first would have been.
      await stream.until('the plain post and its mention', () => sent('post').length >= 1 && sent('notification').length >= 1);
      assert.deepEqual(
        sent('post').map((data) => data.post!.body),
        [plain.body],
      );
      assert.deepEqual(
        sent('notification').map((data) => data.notification!.postBody),
        [plain.body],
      );
    } finally {
      stream.close();
      await setWords([]);
    }
  });

  it('bad input: clear 400s; no credential: 401; another person sees only their own list', async () => {
    const bad = [['not', 'an', 'object'], Array.from({ length: 101 }, (_, i) => `word${i}`), [''], ['   '], ['x'.repeat(101)], ['#'], ['#two tags'], [42]];
    for (const words of bad.slice(1)) expectError(await setWords(words), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'PUT', url: '/v1/social/muted-words', token: me.token, body: bad[0] }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'PUT', url: '/v1/social/muted-words', token: me.token, body: { words: ['a'], extra: 1 } }), 400, 'BAD_REQUEST');

    expectError(await setWords(['x'], null), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/social/muted-words', token: null }), 401, 'UNAUTHORIZED');
    expectError(await setWords(['x'], (await app.signup()).token), 403, 'FORBIDDEN');

    await setWords(['secret']);
    assert.deepEqual(await getJson(app, '/v1/social/muted-words', other.token), { words: [] });
    await setWords(['theirs'], other.token);
    assert.deepEqual(await getJson(app, '/v1/social/muted-words', me.token), { words: ['secret'] });
  });
});
