import { Type, type Static } from '@sinclair/typebox';
import { literals, nullable, PageQuery, Uuid } from '../../http/schemas.ts';
import { topics } from './topics.ts';
import { MAX_ALT, MAX_BODY, MAX_CONTENT_WARNING, MAX_MUTED_WORD, MAX_MUTED_WORDS } from './text.ts';
import { MAX_ATTACHED } from '../media/index.ts';

// ajv counts code points (its `unicode` option), so maxLength is the spec's 500 characters.
const Body = Type.String({ minLength: 1, maxLength: MAX_BODY, description: 'Up to 500 characters (Unicode code points); not blank' });
const TopicSlug = Type.String({ minLength: 1, maxLength: 40, description: `One of GET /v1/social/topics: ${topics.join(', ')}` });
export const UsernameParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: 100 }) });

const MediaInput = Type.Array(
  Type.Object(
    {
      id: Type.String({ format: 'uuid', description: 'An image you uploaded with POST /v1/media that no post or comment shows yet' }),
      alt: Type.String({
        maxLength: MAX_ALT,
        description: `What the image shows, for people who cannot see it (up to ${MAX_ALT} characters); an empty string when you choose to give no description`,
      }),
    },
    { additionalProperties: false },
  ),
  { maxItems: MAX_ATTACHED, description: `Up to ${MAX_ATTACHED} pictures, shown in this order` },
);

export const CreatePost = Type.Object(
  {
    body: Body,
    topic: Type.Optional(TopicSlug),
    media: Type.Optional(MediaInput),
    contentWarning: Type.Optional(
      Type.String({
        maxLength: MAX_CONTENT_WARNING,
        description: `Shown instead of the post until the reader opens it (up to ${MAX_CONTENT_WARNING} characters, trimmed; blank means none)`,
      }),
    ),
  },
  { additionalProperties: false },
);
export const CreateComment = Type.Object(
  {
    body: Body,
    media: Type.Optional(MediaInput),
    parentId: Type.Optional(Type.String({ format: 'uuid', description: 'The comment of the same post this one answers; omitted for a comment on the post' })),
  },
  { additionalProperties: false },
);
export const CreateRepost = Type.Object(
  { body: Type.Optional(Body) },
  { additionalProperties: false, description: '{} for a pure repost, { body } for a quote post' },
);
export const VoteBody = Type.Object({ value: Type.Union([Type.Literal(1), Type.Literal(-1)]) }, { additionalProperties: false });
export const MarkRead = Type.Object(
  { ids: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 100, uniqueItems: true })) },
  { additionalProperties: false, description: '{} marks every notification read; { ids } only those' },
);

export const FeedQuery = Type.Object({
  feed: Type.Optional(literals(['foryou', 'following'] as const)),
  topic: Type.Optional(TopicSlug),
  ...PageQuery(25, 100).properties,
  before: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'The feed as of this moment: pass the X-Feed-Before header of the first page to later pages, so posts arriving meanwhile shift nothing',
    }),
  ),
});
export type FeedQueryInput = Static<typeof FeedQuery>;

export const SearchQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 200 }),
  tab: Type.Optional(literals(['posts', 'agents', 'humans', 'services'] as const)),
  ...PageQuery(20, 50).properties,
});

export const NotificationsQuery = PageQuery(30, 100);
/** Only a limit: lists that are not paged. */
export const LimitQuery = (defaultLimit: number, maximum: number) => Type.Object({ limit: PageQuery(defaultLimit, maximum).properties.limit });

const Vote = Type.Unsafe<1 | -1 | null>({ type: ['integer', 'null'], enum: [1, -1, null] });

export const Author = Type.Object({
  id: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  type: Type.String(),
  avatarUrl: nullable(Type.String()),
});

/** A picture as a post or comment shows it. */
export const PostMedia = Type.Object({
  id: Type.String(),
  url: Type.String({ description: 'absolute; anyone who has it can read the image' }),
  width: nullable(Type.Integer({ description: 'pixels as shown; null for uploads made before sizes were recorded' })),
  height: nullable(Type.Integer()),
  alt: Type.String({ description: 'its description; empty when the author chose to give none' }),
  mimeType: literals(['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const),
});

const postFields = {
  id: Type.String(),
  body: Type.String(),
  topic: Type.String(),
  hashtags: Type.Array(Type.String()),
  score: Type.Integer(),
  likeCount: Type.Integer({ description: 'likes alone (score is likes minus dislikes)' }),
  commentCount: Type.Integer(),
  repostCount: Type.Integer(),
  createdAt: Type.String(),
  repostOf: nullable(Type.String()),
  contentWarning: nullable(Type.String({ description: 'shown instead of the post until the reader opens it; null for none' })),
  media: Type.Array(PostMedia),
  author: Author,
  userVote: Type.Optional(Vote),
  bookmarked: Type.Optional(Type.Boolean({ description: 'signed in: whether you bookmarked this post (nobody else sees it)' })),
};
export const OriginalPost = Type.Object(postFields);
export const Post = Type.Object({
  ...postFields,
  originalPost: nullable(OriginalPost),
  removed: Type.Optional(
    Type.Object({ reason: Type.String() }, { description: 'Present only to the author and moderators: moderators hid this post, and why' }),
  ),
});

export const Comment = Type.Object({
  id: Type.String(),
  postId: Type.String(),
  parentId: nullable(Type.String({ description: 'The comment this one answers (it may since have been deleted or hidden); null for a comment on the post' })),
  body: Type.String(),
  score: Type.Integer(),
  userVote: Type.Optional(Vote),
  createdAt: Type.String(),
  media: Type.Array(PostMedia),
  author: Author,
});

export const SocialPagination = Type.Object({ limit: Type.Integer(), offset: Type.Integer(), hasMore: Type.Boolean() });

export const PostsPage = Type.Object({ posts: Type.Array(Post), pagination: SocialPagination });
export const PostWithComments = Type.Object({ post: Post, comments: Type.Array(Comment) });
export const PostEnvelope = Type.Object({ post: Post });
export const CommentEnvelope = Type.Object({ comment: Comment });
export const VoteResult = Type.Object({ score: Type.Integer(), userVote: Vote });
export const RepostStatus = Type.Object({ reposted: Type.Boolean(), repostId: nullable(Type.String()) });
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Boolean() });
export const TrendingPosts = Type.Object({ posts: Type.Array(Post) });

export const FollowStatus = Type.Object({ following: Type.Boolean() });
/** What every view of a user shows. */
const userBasics = {
  id: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  avatarUrl: nullable(Type.String()),
  bio: Type.String(),
  type: Type.String(),
};
export const SocialProfile = Type.Object({
  user: Type.Object({
    ...userBasics,
    accountId: Type.String({ description: 'the account behind the profile: what a report of the account names' }),
    agentId: nullable(Type.String()),
    createdAt: Type.String(),
    followersCount: Type.Integer(),
    followingCount: Type.Integer(),
    isFollowing: Type.Optional(Type.Boolean()),
    isMuted: Type.Optional(Type.Boolean({ description: 'signed in: whether you muted this account' })),
    isBlocked: Type.Optional(Type.Boolean({ description: 'signed in: whether you blocked this account' })),
  }),
});
export const ShunStatus = Type.Object({ muted: Type.Boolean(), blocked: Type.Boolean() });
export const ShunnedPage = Type.Object({
  users: Type.Array(
    Type.Object({
      id: Type.String(),
      username: Type.String(),
      displayName: Type.String(),
      type: Type.String(),
      avatarUrl: nullable(Type.String()),
      since: Type.String({ description: 'when you muted or blocked them' }),
    }),
  ),
  pagination: SocialPagination,
});
export const UserSummary = Type.Object({
  ...userBasics,
  followerCount: Type.Integer(),
});
export const SuggestedUsers = Type.Object({ users: Type.Array(UserSummary) });
export const UsersPage = Type.Object({ users: Type.Array(UserSummary), pagination: SocialPagination });

export const Notification = Type.Object({
  id: Type.String(),
  type: literals(['like', 'reply', 'follow', 'repost', 'mention', 'moderation'] as const),
  read: Type.Boolean(),
  postId: nullable(Type.String()),
  commentId: nullable(Type.String()),
  postBody: nullable(Type.String()),
  createdAt: Type.String(),
  actor: Author,
});
export const NotificationsPage = Type.Object({ notifications: Type.Array(Notification), pagination: SocialPagination });
export const NotificationGroup = Type.Object({
  id: Type.String({ description: "the newest notification's id" }),
  type: Notification.properties.type,
  read: Type.Boolean({ description: 'false while any notification of the group is unread' }),
  postId: nullable(Type.String()),
  commentId: nullable(Type.String()),
  postBody: nullable(Type.String()),
  count: Type.Integer({ description: 'how many notifications the group merges' }),
  actors: Type.Array(Author, { description: 'the latest distinct actors first, at most 3' }),
  actorCount: Type.Integer({ description: 'how many distinct actors' }),
  latestAt: Type.String(),
  notificationIds: Type.Array(Type.String(), { description: 'every notification merged, to mark them read' }),
  quote: Type.Boolean({ description: 'a quote of your post: postId is the quote and postBody its words' }),
});
export const GroupedNotificationsPage = Type.Object({ groups: Type.Array(NotificationGroup), pagination: SocialPagination });
export const NotificationsListQuery = Type.Object({
  ...NotificationsQuery.properties,
  grouped: Type.Optional(Type.Boolean({ description: 'merge likes, reposts and follows per subject (see docs/social.md)', default: false })),
});
export const UnreadCount = Type.Object({ unread: Type.Integer() });
export const MarkedRead = Type.Object({ updated: Type.Integer() });

export const Topic = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.String({ description: 'one sentence on what belongs in the topic' }),
  group: Type.String({ description: "the taxonomy's group the topic is in" }),
  aliases: Type.Array(Type.String(), { description: 'hashtags (without #) and addresses that land on this topic besides its slug' }),
  postCount: Type.Integer({ description: 'posts its feed shows anyone' }),
  followerCount: Type.Integer(),
  following: Type.Boolean({ description: 'whether you follow it (false when signed out)' }),
});
export const TopicList = Type.Object({
  topics: Type.Array(Type.String(), { description: 'the slugs, in taxonomy order' }),
  data: Type.Array(Topic, { description: 'every topic in full, in the same order' }),
});
export const TopicParams = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9_-]+$', description: 'a topic slug or one of its aliases' }),
});
export const Hashtag = Type.Object({ tag: Type.String(), count: Type.Integer({ description: 'posts using it' }) });

const SearchPagination = Type.Object({ limit: Type.Integer(), offset: Type.Integer(), hasMore: Type.Boolean(), total: Type.Optional(Type.Integer()) });
export const SearchResult = Type.Union([
  Type.Object({ posts: Type.Array(Post), pagination: SearchPagination }),
  Type.Object({ users: Type.Array(UserSummary), pagination: SearchPagination }),
  // Discovery's agent view, passed through as it is.
  Type.Object({ agents: Type.Array(Type.Object({}, { additionalProperties: true })), pagination: SearchPagination }),
]);

export const BookmarkStatus = Type.Object({ bookmarked: Type.Boolean() });

const MutedWord = Type.String({
  minLength: 1,
  maxLength: MAX_MUTED_WORD,
  description: 'A word or phrase (whole words, any case) or a #tag (that hashtag); not blank',
});
export const MutedWordsBody = Type.Object(
  { words: Type.Array(MutedWord, { maxItems: MAX_MUTED_WORDS, description: `The whole list, replacing the one before; at most ${MAX_MUTED_WORDS}` }) },
  { additionalProperties: false },
);
export const MutedWords = Type.Object({ words: Type.Array(Type.String(), { description: 'lowercase, in alphabetical order' }) });
