/**
 * The tables the social module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
import type { Generated } from 'kysely';
import type { ReadOnlyTable } from '../../db/tables.ts';

export interface PostsTable {
  id: string;
  /** profiles.id: the social identity, not the account. */
  author_id: string;
  /** `post`, `repost` (pure: empty body, one per person and post) or `quote` (a repost with a body). */
  kind: 'post' | 'repost' | 'quote';
  body: string;
  topic: string;
  /** JSON array of lowercase tags found in the body. */
  hashtags: string;
  repost_of: string | null;
  /** Counters written in the same transaction as the vote, comment or repost that changes them. */
  like_count: Generated<number>;
  dislike_count: Generated<number>;
  comment_count: Generated<number>;
  repost_count: Generated<number>;
  created_at: string;
  /** Shown before the post, which stays collapsed until the reader opens it; null for none. */
  content_warning: string | null;
}

export interface PostVotesTable {
  post_id: string;
  profile_id: string;
  value: 1 | -1;
  created_at: string;
}

export interface CommentsTable {
  id: string;
  post_id: string;
  /** The comment this one answers, in the same post; null for a comment on the post itself. */
  parent_id: string | null;
  author_id: string;
  body: string;
  like_count: Generated<number>;
  dislike_count: Generated<number>;
  created_at: string;
}

export interface CommentVotesTable {
  comment_id: string;
  profile_id: string;
  value: 1 | -1;
  created_at: string;
}

export interface FollowsTable {
  follower_id: string;
  followee_id: string;
  created_at: string;
}

export interface TopicFollowsTable {
  profile_id: string;
  topic: string;
  created_at: string;
}

export interface NotificationsTable {
  id: string;
  recipient_id: string;
  actor_id: string;
  /** `moderation`: a moderator's action on the recipient's post, comment, agent or account; its actor is the recipient and `post_body` says what and why. */
  type: 'like' | 'reply' | 'follow' | 'repost' | 'mention' | 'moderation';
  post_id: string | null;
  comment_id: string | null;
  /** First 100 code points of the post, taken when the notification is made (posts are never edited). */
  post_body: string | null;
  read: Generated<0 | 1>;
  created_at: string;
}

export interface HashtagsTable {
  tag: string;
  post_count: number;
  last_used_at: string;
}

/** A mute (`mutes`) or a block (`blocks`): `profile_id` muted or blocked `target_id`. */
export interface ShunTable {
  profile_id: string;
  target_id: string;
  created_at: string;
}

/** A post `profile_id` bookmarked: private to them. */
export interface BookmarksTable {
  profile_id: string;
  post_id: string;
  created_at: string;
}

/** A word, phrase or `#tag` (lowercase) whose posts `profile_id` does not see. */
export interface MutedWordsTable {
  profile_id: string;
  word: string;
  created_at: string;
}

export interface SocialTables {
  posts: PostsTable;
  post_votes: PostVotesTable;
  comments: CommentsTable;
  comment_votes: CommentVotesTable;
  follows: FollowsTable;
  topic_follows: TopicFollowsTable;
  notifications: NotificationsTable;
  hashtags: HashtagsTable;
  mutes: ShunTable;
  blocks: ShunTable;
  bookmarks: BookmarksTable;
  muted_words: MutedWordsTable;
}

/** Read by the moderation store: whose a reported post or comment is (through its author's profile). */
export type PostAuthorsReadModel = {
  posts: ReadOnlyTable<Pick<PostsTable, 'id' | 'author_id' | 'body' | 'created_at'>>;
  comments: ReadOnlyTable<Pick<CommentsTable, 'id' | 'post_id' | 'author_id' | 'body' | 'created_at'>>;
};
