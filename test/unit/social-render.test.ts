import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import type { HydratedPost, PostCore } from '../../src/modules/social/feed-store.ts';
import { PostsPage } from '../../src/modules/social/schemas.ts';
import { postView, renderPosts } from '../../src/modules/social/views.ts';

const core = (id: string, extra: Partial<PostCore> = {}): PostCore => ({
  id,
  kind: 'post',
  body: `Body of ${id} with "quotes", a \\ backslash, an emoji \u{1F600} and a line\nbreak \u2028`,
  topic: 'general',
  hashtags: ['one', 'two'],
  repost_of: null,
  like_count: 3,
  dislike_count: 1,
  comment_count: 2,
  repost_count: 1,
  created_at: '2026-11-21T12:00:00.000Z',
  content_warning: id === 'a' ? 'Spiders, "close up"' : null,
  media:
    id === 'c' ? [{ id: 'm1', url: 'https://example.test/media/m1', width: 16, height: 12, alt: 'A "quoted" picture\nof a line', mimeType: 'image/png' }] : [],
  author_id: `author-${id}`,
  author_username: `user_${id}`,
  author_display_name: `User ${id}`,
  author_type: 'human',
  author_avatar_url: id === 'a' ? 'https://example.test/a.png' : null,
  ...extra,
});

const rows: HydratedPost[] = [
  { ...core('a'), original: null },
  { ...core('b', { kind: 'repost', body: '', repost_of: 'c' }), original: core('c') },
  { ...core('d', { kind: 'quote', repost_of: 'gone' }), original: null },
];

/** What Fastify answers for `page` through the route's response schema. */
async function serializedBySchema(page: unknown): Promise<unknown> {
  const app = Fastify();
  app.get('/', { schema: { response: { 200: PostsPage } } }, async () => page);
  const response = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  return response.json();
}

describe('social feed rendering', () => {
  const pagination = { limit: 3, offset: 0, hasMore: false };

  for (const [name, votes] of [
    ['an anonymous reader (no userVote at all)', null],
    [
      'a reader with votes on a post and on an original',
      new Map<string, 1 | -1>([
        ['a', 1],
        ['c', -1],
      ]),
    ],
    ['a reader without votes (userVote null)', new Map<string, 1 | -1>()],
  ] as const) {
    it(`writes what the response schema writes for ${name}`, async () => {
      const expected = await serializedBySchema({ posts: rows.map((row) => postView(row, votes)), pagination });
      const rendered: { posts: { userVote?: number | null }[] } = JSON.parse(
        `{"posts":${renderPosts(rows, votes)},"pagination":${JSON.stringify(pagination)}}`,
      );
      assert.deepEqual(rendered, expected);
      if (votes)
        assert.deepEqual(
          rendered.posts.map((p) => p.userVote),
          [votes.get('a') ?? null, null, null],
        );
      else assert.ok(rendered.posts.every((p) => !('userVote' in p)));
    });
  }

  it('reuses a row for another reader without leaking the first one’s votes', () => {
    const first = JSON.parse(renderPosts(rows, new Map([['a', 1]])));
    const second = JSON.parse(renderPosts(rows, new Map([['a', -1]])));
    assert.deepEqual([first[0].userVote, second[0].userVote], [1, -1]);
    assert.deepEqual(renderPosts([], null), '[]');
  });
});
