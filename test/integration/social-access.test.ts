/**
 * The authorization matrix of every social endpoint: who gets what. Callers: the author of the
 * post or the target of the follow, another user with a profile, a signed-in account without a
 * profile, an invalid credential, and nobody.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { comment, createPost, socialUser, type SocialUser } from '../helpers/social.ts';

type Caller = 'author' | 'other' | 'noProfile' | 'invalid' | 'anonymous';
interface Route {
  name: string;
  /** Builds a fresh request (a new post, comment...) so every caller acts on its own object. */
  request: (author: SocialUser) => Promise<{ method: string; url: string; body?: unknown }>;
  expect: Record<Caller, number>;
}

const required = (author: number, other: number) => ({ author, other, noProfile: 403, invalid: 401, anonymous: 401 });
const optional = { author: 200, other: 200, noProfile: 200, invalid: 401, anonymous: 200 };
const open = { author: 200, other: 200, noProfile: 200, invalid: 200, anonymous: 200 };

describe('social authorization matrix', () => {
  let app: TestApp;
  const tokens = {} as Record<Caller, string | null>;
  let author: SocialUser;
  before(async () => {
    app = await startTestApp();
    author = await socialUser(app);
    const other = await socialUser(app);
    tokens.author = author.token;
    tokens.other = other.token;
    tokens.noProfile = (await app.signup()).token;
    tokens.invalid = 'ags_0000000000000000000000000000000000000000000';
    tokens.anonymous = null;
  });
  after(() => app.close());

  const post = async (a: SocialUser) => (await createPost(app, a.token, `a post to act on @${a.username}`)).id;
  const routes: Route[] = [
    { name: 'GET feed (foryou)', request: async () => ({ method: 'GET', url: '/v1/social/posts' }), expect: optional },
    { name: 'GET feed (following)', request: async () => ({ method: 'GET', url: '/v1/social/posts?feed=following' }), expect: required(200, 200) },
    { name: 'POST post', request: async () => ({ method: 'POST', url: '/v1/social/posts', body: { body: 'hello' } }), expect: required(201, 201) },
    { name: 'GET post', request: async (a) => ({ method: 'GET', url: `/v1/social/posts/${await post(a)}` }), expect: optional },
    { name: 'DELETE post', request: async (a) => ({ method: 'DELETE', url: `/v1/social/posts/${await post(a)}` }), expect: required(200, 403) },
    {
      name: 'POST post vote',
      request: async (a) => ({ method: 'POST', url: `/v1/social/posts/${await post(a)}/vote`, body: { value: 1 } }),
      expect: required(200, 200),
    },
    {
      name: 'POST comment vote',
      request: async (a) => ({ method: 'POST', url: `/v1/social/comments/${(await comment(app, a.token, await post(a), 'c')).id}/vote`, body: { value: -1 } }),
      expect: required(200, 200),
    },
    {
      name: 'POST comment',
      request: async (a) => ({ method: 'POST', url: `/v1/social/posts/${await post(a)}/comments`, body: { body: 'hi' } }),
      expect: required(201, 201),
    },
    { name: 'POST repost', request: async (a) => ({ method: 'POST', url: `/v1/social/posts/${await post(a)}/repost`, body: {} }), expect: required(201, 201) },
    {
      name: 'POST quote',
      request: async (a) => ({ method: 'POST', url: `/v1/social/posts/${await post(a)}/repost`, body: { body: 'so true' } }),
      expect: required(201, 201),
    },
    { name: 'GET repost status', request: async (a) => ({ method: 'GET', url: `/v1/social/posts/${await post(a)}/repost` }), expect: required(200, 200) },
    // Removal acts on the caller's own repost: nobody has reposted this one yet.
    { name: 'DELETE repost', request: async (a) => ({ method: 'DELETE', url: `/v1/social/posts/${await post(a)}/repost` }), expect: required(404, 404) },
    // The "author" row follows themselves: 400.
    { name: 'POST follow', request: async (a) => ({ method: 'POST', url: `/v1/social/users/${a.username}/follow` }), expect: required(400, 200) },
    { name: 'DELETE follow', request: async (a) => ({ method: 'DELETE', url: `/v1/social/users/${a.username}/follow` }), expect: required(400, 200) },
    { name: 'GET follow', request: async (a) => ({ method: 'GET', url: `/v1/social/users/${a.username}/follow` }), expect: required(200, 200) },
    { name: 'GET profile', request: async (a) => ({ method: 'GET', url: `/v1/social/users/${a.username}/profile` }), expect: optional },
    { name: 'GET suggested', request: async () => ({ method: 'GET', url: '/v1/social/users/suggested' }), expect: required(200, 200) },
    { name: 'GET topics', request: async () => ({ method: 'GET', url: '/v1/social/topics' }), expect: optional },
    { name: 'GET topic', request: async () => ({ method: 'GET', url: '/v1/social/topics/security' }), expect: optional },
    { name: 'POST topic follow', request: async () => ({ method: 'POST', url: '/v1/social/topics/space/follow' }), expect: required(200, 200) },
    { name: 'DELETE topic follow', request: async () => ({ method: 'DELETE', url: '/v1/social/topics/space/follow' }), expect: required(200, 200) },
    { name: 'GET hashtags', request: async () => ({ method: 'GET', url: '/v1/social/hashtags' }), expect: open },
    { name: 'GET notifications', request: async () => ({ method: 'GET', url: '/v1/social/notifications' }), expect: required(200, 200) },
    { name: 'GET unread', request: async () => ({ method: 'GET', url: '/v1/social/notifications/unread' }), expect: required(200, 200) },
    { name: 'POST mark read', request: async () => ({ method: 'POST', url: '/v1/social/notifications/read', body: {} }), expect: required(200, 200) },
    { name: 'GET search', request: async () => ({ method: 'GET', url: '/v1/social/search?q=post' }), expect: optional },
    { name: 'GET trending', request: async () => ({ method: 'GET', url: '/v1/social/trending' }), expect: optional },
  ];

  for (const route of routes) {
    it(route.name, async () => {
      const got = {} as Record<Caller, number>;
      for (const caller of Object.keys(route.expect) as Caller[]) {
        const request = await route.request(author);
        const response = await app.request({ ...request, token: tokens[caller] });
        got[caller] = response.statusCode;
        if (response.statusCode >= 400) assert.equal(typeof response.json().code, 'string');
      }
      assert.deepEqual(got, route.expect);
    });
  }
});
