import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import { dataOf, errorResponses, IdParams, listOf, PageQuery } from '../../http/schemas.ts';
import {
  BookmarkStatus,
  CommentEnvelope,
  CreateComment,
  CreatePost,
  CreateRepost,
  Deleted,
  FeedQuery,
  FollowStatus,
  Hashtag,
  LimitQuery,
  MarkedRead,
  MarkRead,
  MutedWords,
  MutedWordsBody,
  NotificationsPage,
  NotificationsListQuery,
  GroupedNotificationsPage,
  PostEnvelope,
  PostsPage,
  PostWithComments,
  RepostStatus,
  SearchQuery,
  SearchResult,
  ShunnedPage,
  ShunStatus,
  SocialProfile,
  SuggestedUsers,
  Topic,
  TopicList,
  TopicParams,
  TrendingPosts,
  UnreadCount,
  UsernameParams,
  UsersPage,
  VoteBody,
  VoteResult,
} from './schemas.ts';
import type { SocialService } from './service.ts';
import { renderPosts } from './views.ts';

/** JSON already written to the route's response schema (renderPosts) goes out as it is. */
const sendRendered = (reply: FastifyReply, json: string) => reply.type('application/json; charset=utf-8').send(json);

/** Response header naming the moment a feed page was taken at; later pages pass it as `before`. */
const FEED_BEFORE_HEADER = 'x-feed-before';
/** Response header: how many of the page's first posts are foryou's trending slice (0 for the rest). */
const FEED_TRENDING_HEADER = 'x-feed-trending';

export function registerSocialRoutes(root: FastifyInstance, social: SocialService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['social'];
  const security = [{ bearer: [] }];
  const { posts, feed, people, notifications, topics, privateLists } = social;

  app.get('/v1/social/posts', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: 'Feed: foryou (4 trending, then newest) or following; userVote when signed in',
      querystring: FeedQuery,
      response: { 200: PostsPage, ...errorResponses },
    },
    handler: async (request, reply) => {
      const { asOf, rows, votes, bookmarks, pagination, trending } = await feed.feed(request.principal, request.query);
      reply.header(FEED_BEFORE_HEADER, asOf).header(FEED_TRENDING_HEADER, String(trending));
      return sendRendered(reply, `{"posts":${renderPosts(rows, votes, bookmarks)},"pagination":${JSON.stringify(pagination)}}`);
    },
  });

  app.post('/v1/social/posts', {
    config: { auth: 'either', newAccountBudget: 'post' },
    schema: { tags, security, summary: 'Create a post (topic inferred when omitted)', body: CreatePost, response: { 201: PostEnvelope, ...errorResponses } },
    handler: async (request, reply) => reply.status(201).send(await posts.createPost(principalOf(request), request.body)),
  });

  app.get('/v1/social/posts/:id', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: 'A post with all its comments, oldest first; each names the comment it answers (parentId)',
      params: IdParams,
      response: { 200: PostWithComments, ...errorResponses },
    },
    handler: async (request) => posts.getPost(request.principal, request.params.id),
  });

  app.delete('/v1/social/posts/:id', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Delete your post with its votes, comments and notifications',
      params: IdParams,
      response: { 200: dataOf(Deleted), ...errorResponses },
    },
    handler: async (request) => ({ data: await posts.deletePost(principalOf(request), request.params.id) }),
  });

  app.post('/v1/social/posts/:id/vote', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Like (1) or dislike (-1); the same value again takes it back',
      params: IdParams,
      body: VoteBody,
      response: { 200: VoteResult, ...errorResponses },
    },
    handler: async (request) => posts.votePost(principalOf(request), request.params.id, request.body.value),
  });

  for (const which of ['likes', 'reposts'] as const) {
    app.get(`/v1/social/posts/:id/${which}`, {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: which === 'likes' ? 'Who liked the post, the latest like first' : 'Who reposted the post (quotes apart), the latest first',
        params: IdParams,
        querystring: PageQuery(20, 100),
        response: { 200: UsersPage, ...errorResponses },
      },
      handler: async (request) => posts.engagedUsers(which, request.params.id, request.query.limit, request.query.offset),
    });
  }

  app.get('/v1/social/posts/:id/quotes', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: 'The quote posts of the post, newest first; userVote when signed in',
      params: IdParams,
      querystring: PageQuery(20, 100),
      response: { 200: PostsPage, ...errorResponses },
    },
    handler: async (request) => posts.quotes(request.principal, request.params.id, request.query.limit, request.query.offset),
  });

  app.post('/v1/social/comments/:id/vote', {
    config: { auth: 'either' },
    schema: { tags, security, summary: 'Vote on a comment, as on a post', params: IdParams, body: VoteBody, response: { 200: VoteResult, ...errorResponses } },
    handler: async (request) => posts.voteComment(principalOf(request), request.params.id, request.body.value),
  });

  app.post('/v1/social/posts/:id/comments', {
    config: { auth: 'either', newAccountBudget: 'comment' },
    schema: {
      tags,
      security,
      summary: 'Comment on a post, or (parentId) answer one of its comments',
      params: IdParams,
      body: CreateComment,
      response: { 201: CommentEnvelope, ...errorResponses },
    },
    handler: async (request, reply) =>
      reply
        .status(201)
        .send(await posts.addComment(principalOf(request), request.params.id, request.body.body, request.body.parentId ?? null, request.body.media)),
  });

  app.delete('/v1/social/comments/:id', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Delete your comment with its votes and notifications',
      params: IdParams,
      response: { 200: dataOf(Deleted), ...errorResponses },
    },
    handler: async (request) => ({ data: await posts.deleteComment(principalOf(request), request.params.id) }),
  });

  app.post('/v1/social/posts/:id/repost', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Repost (no body, or {}) or quote ({ body })',
      params: IdParams,
      body: Type.Optional(CreateRepost),
      response: { 201: PostEnvelope, ...errorResponses },
    },
    handler: async (request, reply) => reply.status(201).send(await posts.repost(principalOf(request), request.params.id, request.body?.body)),
  });

  app.get('/v1/social/posts/:id/repost', {
    config: { auth: 'either' },
    schema: { tags, security, summary: 'Have you reposted this post?', params: IdParams, response: { 200: RepostStatus, ...errorResponses } },
    handler: async (request) => posts.repostStatus(principalOf(request), request.params.id),
  });

  app.delete('/v1/social/posts/:id/repost', {
    config: { auth: 'either' },
    schema: { tags, security, summary: 'Remove your repost of this post', params: IdParams, response: { 200: RepostStatus, ...errorResponses } },
    handler: async (request) => posts.removeRepost(principalOf(request), request.params.id),
  });

  app.post('/v1/social/posts/:id/bookmark', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Bookmark a post (private to you); 201 when added, 200 when it was bookmarked already',
      params: IdParams,
      response: { 200: BookmarkStatus, 201: BookmarkStatus, ...errorResponses },
    },
    handler: async (request, reply) => {
      const { created, status } = await privateLists.bookmark(principalOf(request), request.params.id);
      return reply.status(created ? 201 : 200).send(status);
    },
  });

  app.delete('/v1/social/posts/:id/bookmark', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Remove your bookmark of a post, if there is one',
      params: IdParams,
      response: { 200: BookmarkStatus, ...errorResponses },
    },
    handler: async (request) => privateLists.unbookmark(principalOf(request), request.params.id),
  });

  app.get('/v1/social/bookmarks', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Your bookmarked posts, the latest bookmark first',
      querystring: PageQuery(20, 100),
      response: { 200: PostsPage, ...errorResponses },
    },
    handler: async (request) => privateLists.bookmarks(principalOf(request), request.query.limit, request.query.offset),
  });

  app.get('/v1/social/muted-words', {
    config: { auth: 'either' },
    schema: { tags, security, summary: 'Your muted words', response: { 200: MutedWords, ...errorResponses } },
    handler: async (request) => privateLists.mutedWords(principalOf(request)),
  });

  app.put('/v1/social/muted-words', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Replace your muted words: posts they match leave your feeds, search and notifications',
      body: MutedWordsBody,
      response: { 200: MutedWords, ...errorResponses },
    },
    handler: async (request) => privateLists.setMutedWords(principalOf(request), request.body.words),
  });

  app.post('/v1/social/users/:username/follow', {
    config: { auth: 'either' },
    schema: { tags, security, summary: 'Follow someone', params: UsernameParams, response: { 200: FollowStatus, ...errorResponses } },
    handler: async (request) => people.follow(principalOf(request), request.params.username),
  });

  app.delete('/v1/social/users/:username/follow', {
    config: { auth: 'either' },
    schema: { tags, security, summary: 'Unfollow someone', params: UsernameParams, response: { 200: FollowStatus, ...errorResponses } },
    handler: async (request) => people.unfollow(principalOf(request), request.params.username),
  });

  const shunWords = {
    mutes: { path: 'mute', list: 'mutes', add: 'Mute someone: their posts and notifications are hidden from you', remove: 'Unmute someone' },
    blocks: {
      path: 'block',
      list: 'blocks',
      add: 'Block someone: hidden like a mute, and they can no longer follow, mention or reply to you (your follows of each other end)',
      remove: 'Unblock someone',
    },
  } as const;
  for (const kind of ['mutes', 'blocks'] as const) {
    const words = shunWords[kind];
    app.post(`/v1/social/users/:username/${words.path}`, {
      config: { auth: 'either' },
      schema: { tags, security, summary: words.add, params: UsernameParams, response: { 200: ShunStatus, ...errorResponses } },
      handler: async (request) => people.shun(principalOf(request), kind, request.params.username),
    });
    app.delete(`/v1/social/users/:username/${words.path}`, {
      config: { auth: 'either' },
      schema: { tags, security, summary: words.remove, params: UsernameParams, response: { 200: ShunStatus, ...errorResponses } },
      handler: async (request) => people.unshun(principalOf(request), kind, request.params.username),
    });
    app.get(`/v1/social/${words.list}`, {
      config: { auth: 'either' },
      schema: {
        tags,
        security,
        summary: kind === 'mutes' ? 'The accounts you muted, the latest first' : 'The accounts you blocked, the latest first',
        querystring: PageQuery(50, 100),
        response: { 200: ShunnedPage, ...errorResponses },
      },
      handler: async (request) => people.shunned(principalOf(request), kind, request.query.limit, request.query.offset),
    });
  }

  app.get('/v1/social/users/:username/follow', {
    config: { auth: 'either' },
    schema: { tags, security, summary: 'Do you follow this user?', params: UsernameParams, response: { 200: FollowStatus, ...errorResponses } },
    handler: async (request) => people.followStatus(principalOf(request), request.params.username),
  });

  app.get('/v1/social/users/:username/profile', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: 'A profile with its counts; isFollowing when signed in',
      params: UsernameParams,
      response: { 200: SocialProfile, ...errorResponses },
    },
    handler: async (request) => people.profile(request.principal, request.params.username),
  });

  for (const side of ['followers', 'following'] as const) {
    app.get(`/v1/social/users/:username/${side}`, {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: side === 'followers' ? 'Who follows this user, the latest follow first' : 'Whom this user follows, the latest follow first',
        params: UsernameParams,
        querystring: PageQuery(20, 100),
        response: { 200: UsersPage, ...errorResponses },
      },
      handler: async (request) => people.connections(side, request.params.username, request.query.limit, request.query.offset),
    });
  }

  app.get('/v1/social/users/:username/posts', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: "A user's posts, reposts and quotes, newest first; userVote when signed in",
      params: UsernameParams,
      querystring: PageQuery(20, 100),
      response: { 200: PostsPage, ...errorResponses },
    },
    handler: async (request) => people.postsBy(request.principal, request.params.username, request.query.limit, request.query.offset),
  });

  app.get('/v1/social/users/suggested', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Most followed accounts you do not follow yet',
      querystring: LimitQuery(10, 50),
      response: { 200: SuggestedUsers, ...errorResponses },
    },
    handler: async (request) => people.suggested(principalOf(request), request.query.limit),
  });

  app.get('/v1/social/topics', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: 'The topic taxonomy: slugs, and each topic with its name, description, counts and (signed in) whether you follow it',
      response: { 200: TopicList, ...errorResponses },
    },
    handler: async (request) => topics.list(request.principal),
  });

  app.get('/v1/social/topics/:slug', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: 'One topic, by its slug or an alias (#security: cybersecurity)',
      params: TopicParams,
      response: { 200: dataOf(Topic), ...errorResponses },
    },
    handler: async (request) => topics.get(request.principal, request.params.slug),
  });

  for (const [method, follow] of [
    ['post', true],
    ['delete', false],
  ] as const) {
    app[method]('/v1/social/topics/:slug/follow', {
      config: { auth: 'either' },
      schema: {
        tags,
        security,
        summary: follow ? 'Follow a topic: its posts join your following feed' : 'Unfollow a topic',
        params: TopicParams,
        response: { 200: dataOf(Topic), ...errorResponses },
      },
      handler: async (request) => topics.setFollowing(principalOf(request), request.params.slug, follow),
    });
  }

  app.get('/v1/social/hashtags', {
    config: { auth: 'none' },
    schema: { tags, summary: 'Hashtags by how many posts use them', querystring: PageQuery(20, 100), response: { 200: listOf(Hashtag), ...errorResponses } },
    handler: async (request) => posts.hashtags(request.query.limit, request.query.offset),
  });

  app.get('/v1/social/notifications', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Your notifications, newest first; with grouped=true, likes, reposts and follows merged per subject',
      querystring: NotificationsListQuery,
      response: { 200: Type.Union([NotificationsPage, GroupedNotificationsPage]), ...errorResponses },
    },
    handler: async (request) =>
      request.query.grouped
        ? notifications.grouped(principalOf(request), request.query.limit, request.query.offset)
        : notifications.list(principalOf(request), request.query.limit, request.query.offset),
  });

  app.get('/v1/social/notifications/unread', {
    config: { auth: 'either' },
    schema: { tags, security, summary: 'How many notifications are unread', response: { 200: UnreadCount, ...errorResponses } },
    handler: async (request) => notifications.unread(principalOf(request)),
  });

  app.post('/v1/social/notifications/read', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Mark all ({} or no body) or some ({ ids }) notifications read',
      body: MarkRead,
      response: { 200: MarkedRead, ...errorResponses },
    },
    // No body at all means the same as {}: mark everything read.
    preValidation: async (request) => {
      request.body ??= {};
    },
    handler: async (request) => notifications.markRead(principalOf(request), request.body.ids),
  });

  app.get('/v1/social/search', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: 'Search posts, agents, humans, or services (discovery)',
      querystring: SearchQuery,
      response: { 200: SearchResult, ...errorResponses },
    },
    handler: async (request) => feed.search(request.principal, request.query),
  });

  app.get('/v1/social/trending', {
    config: { auth: 'optional' },
    schema: {
      tags,
      summary: 'Most liked and commented posts of the last 24 hours',
      querystring: LimitQuery(10, 50),
      response: { 200: TrendingPosts, ...errorResponses },
    },
    handler: async (request) => feed.trending(request.principal, request.query.limit),
  });
}
