/**
 * Posts, comments, votes and hashtag counts. Every counter moves in the statement that locks its
 * row, inside the caller's transaction, so concurrent votes and comments never lose an update.
 */
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import { notHiddenByModerators, type ModerationStatesReadModel } from '../moderation/index.ts';
import type { ProfilesReadModel } from '../users/index.ts';
import { attachedMediaOf, type MediaUrl } from './media.ts';
import type { CommentsTable, PostsTable, SocialTables } from './tables.ts';

type PostRow = Selectable<PostsTable>;
/** A stored post, its hashtags parsed. */
export type Post = Omit<PostRow, 'hashtags'> & { hashtags: string[] };
export type CommentRow = Selectable<CommentsTable>;
export type VoteValue = 1 | -1;

/** Which counters a vote change moves: a like, a dislike, or either taken back. */
export function voteDeltas(before: VoteValue | null, after: VoteValue | null): { likes: number; dislikes: number } {
  return {
    likes: (after === 1 ? 1 : 0) - (before === 1 ? 1 : 0),
    dislikes: (after === -1 ? 1 : 0) - (before === -1 ? 1 : 0),
  };
}

/** Votes: the same value again takes the vote back, the opposite one switches it. */
export const nextVote = (before: VoteValue | null, sent: VoteValue): VoteValue | null => (before === sent ? null : sent);

const postOf = (row: PostRow | undefined): Post | undefined => row && { ...row, hashtags: JSON.parse(row.hashtags) as string[] };

export function createPostsStore(database: Db, mediaUrl: MediaUrl) {
  // Profiles: comments are listed with their authors in the same query.
  const db = ownTables<SocialTables & ProfilesReadModel & ModerationStatesReadModel>(database);
  /** Comments (as `c`) that moderators have not hidden. */
  const visibleComments = () => db.selectFrom('comments as c').where(notHiddenByModerators('comment', 'c.id'));
  return {
    findPost: async (id: string) => postOf(await db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirst()),

    /** `authorId`'s pure repost of `originalId`, if there is one (there is at most one). */
    findPureRepost: async (authorId: string, originalId: string) =>
      postOf(
        await db
          .selectFrom('posts')
          .selectAll()
          .where('author_id', '=', authorId)
          .where('repost_of', '=', originalId)
          .where('kind', '=', 'repost')
          .executeTakeFirst(),
      ),

    insertPost: (row: Insertable<PostsTable>) => db.insertInto('posts').values(row).execute(),

    /** Several posts in one statement. */
    insertPosts: (rows: Insertable<PostsTable>[]) => db.insertInto('posts').values(rows).execute(),

    /** Deletes the post if `authorId` wrote it; its votes, comments and notifications go with it (foreign keys). */
    async deletePost(id: string, authorId: string): Promise<boolean> {
      const deleted = await db.deleteFrom('posts').where('id', '=', id).where('author_id', '=', authorId).executeTakeFirst();
      return Number(deleted.numDeletedRows) === 1;
    },

    /** Pure reposts mean nothing without their original; quote posts keep their own text. Returns the reposters. */
    async deletePureRepostsOf(originalId: string): Promise<string[]> {
      const deleted = await db.deleteFrom('posts').where('repost_of', '=', originalId).where('kind', '=', 'repost').returning('author_id').execute();
      return deleted.map((row) => row.author_id);
    },

    /** Returns whether the post exists; on PostgreSQL it stays locked until the transaction ends. */
    async addReposts(id: string, delta: number): Promise<boolean> {
      const updated = await db
        .updateTable('posts')
        .set((eb) => ({ repost_count: eb('repost_count', '+', delta) }))
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    /**
     * Takes the post's row lock (PostgreSQL) or the write lock (SQLite) before a vote is read, so
     * concurrent votes on one post are applied one after the other. Undefined when there is no such post.
     */
    lockPost: async (id: string) =>
      postOf(
        await db
          .updateTable('posts')
          .set((eb) => ({ like_count: eb.ref('like_count') }))
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst(),
      ),

    addPostVotes: (id: string, delta: { likes: number; dislikes: number }) =>
      db
        .updateTable('posts')
        .set((eb) => ({ like_count: eb('like_count', '+', delta.likes), dislike_count: eb('dislike_count', '+', delta.dislikes) }))
        .where('id', '=', id)
        .returning(['like_count', 'dislike_count'])
        .executeTakeFirstOrThrow(),

    postVoteOf: async (postId: string, profileId: string): Promise<VoteValue | null> =>
      (await db.selectFrom('post_votes').select('value').where('post_id', '=', postId).where('profile_id', '=', profileId).executeTakeFirst())?.value ?? null,

    async setPostVote(postId: string, profileId: string, before: VoteValue | null, after: VoteValue | null, now: string): Promise<void> {
      if (after === null) await db.deleteFrom('post_votes').where('post_id', '=', postId).where('profile_id', '=', profileId).execute();
      else if (before === null) await db.insertInto('post_votes').values({ post_id: postId, profile_id: profileId, value: after, created_at: now }).execute();
      else
        await db.updateTable('post_votes').set({ value: after, created_at: now }).where('post_id', '=', postId).where('profile_id', '=', profileId).execute();
    },

    /** Counts the comment on its post, returning the post (undefined when there is none). */
    countComment: async (postId: string) =>
      postOf(
        await db
          .updateTable('posts')
          .set((eb) => ({ comment_count: eb('comment_count', '+', 1) }))
          .where('id', '=', postId)
          .returningAll()
          .executeTakeFirst(),
      ),

    insertComment: (row: Insertable<CommentsTable>) => db.insertInto('comments').values(row).execute(),

    findComment: (id: string) => db.selectFrom('comments').selectAll().where('id', '=', id).executeTakeFirst(),

    /** A comment anyone may see and answer: not hidden by moderators. */
    findVisibleComment: (id: string) => visibleComments().selectAll('c').where('c.id', '=', id).executeTakeFirst(),

    /** Deletes the comment if `authorId` wrote it; its votes and notifications go with it (foreign keys). */
    async deleteComment(id: string, authorId: string): Promise<boolean> {
      const deleted = await db.deleteFrom('comments').where('id', '=', id).where('author_id', '=', authorId).executeTakeFirst();
      return Number(deleted.numDeletedRows) === 1;
    },

    uncountComment: (postId: string) =>
      db
        .updateTable('posts')
        .set((eb) => ({ comment_count: eb('comment_count', '-', 1) }))
        .where('id', '=', postId)
        .execute(),

    lockComment: (id: string) =>
      db
        .updateTable('comments')
        .set((eb) => ({ like_count: eb.ref('like_count') }))
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst(),

    addCommentVotes: (id: string, delta: { likes: number; dislikes: number }) =>
      db
        .updateTable('comments')
        .set((eb) => ({ like_count: eb('like_count', '+', delta.likes), dislike_count: eb('dislike_count', '+', delta.dislikes) }))
        .where('id', '=', id)
        .returning(['like_count', 'dislike_count'])
        .executeTakeFirstOrThrow(),

    commentVoteOf: async (commentId: string, profileId: string): Promise<VoteValue | null> =>
      (await db.selectFrom('comment_votes').select('value').where('comment_id', '=', commentId).where('profile_id', '=', profileId).executeTakeFirst())
        ?.value ?? null,

    async setCommentVote(commentId: string, profileId: string, before: VoteValue | null, after: VoteValue | null, now: string): Promise<void> {
      if (after === null) await db.deleteFrom('comment_votes').where('comment_id', '=', commentId).where('profile_id', '=', profileId).execute();
      else if (before === null)
        await db.insertInto('comment_votes').values({ comment_id: commentId, profile_id: profileId, value: after, created_at: now }).execute();
      else
        await db
          .updateTable('comment_votes')
          .set({ value: after, created_at: now })
          .where('comment_id', '=', commentId)
          .where('profile_id', '=', profileId)
          .execute();
    },

    /** Who liked (`post_votes` 1) or purely reposted the post, the latest first, ties by profile id. */
    likersOrReposters(which: 'likes' | 'reposts', postId: string, limit: number, offset: number) {
      const columns = ['p.id', 'p.username', 'p.display_name', 'p.type', 'p.avatar_url', 'p.bio', 'p.followers_count'] as const;
      const query =
        which === 'likes'
          ? db
              .selectFrom('post_votes as v')
              .innerJoin('profiles as p', 'p.id', 'v.profile_id')
              .select(columns)
              .where('v.post_id', '=', postId)
              .where('v.value', '=', 1)
              .orderBy('v.created_at', 'desc')
              .orderBy('p.id')
              .limit(limit)
              .offset(offset)
          : db
              .selectFrom('posts as r')
              .innerJoin('profiles as p', 'p.id', 'r.author_id')
              .select(columns)
              .where('r.repost_of', '=', postId)
              .where('r.kind', '=', 'repost')
              .orderBy('r.created_at', 'desc')
              .orderBy('p.id')
              .limit(limit)
              .offset(offset);
      return query.execute();
    },

    /** The ids of the quote posts of `postId`, newest first. */
    quoteIdsOf: async (postId: string, limit: number, offset: number) =>
      (
        await db
          .selectFrom('posts')
          .select('id')
          .where('repost_of', '=', postId)
          .where('kind', '=', 'quote')
          .orderBy('created_at', 'desc')
          .orderBy('id')
          .limit(limit)
          .offset(offset)
          .execute()
      ).map((row) => row.id),

    /** Every comment of a post with its author and pictures, oldest first. */
    async commentsOf(postId: string) {
      const comments = await visibleComments()
        .innerJoin('profiles as a', 'a.id', 'c.author_id')
        .select([
          'c.id',
          'c.post_id',
          'c.parent_id',
          'c.body',
          'c.like_count',
          'c.dislike_count',
          'c.created_at',
          'a.id as author_id',
          'a.username as author_username',
          'a.display_name as author_display_name',
          'a.type as author_type',
          'a.avatar_url as author_avatar_url',
        ])
        .where('c.post_id', '=', postId)
        .orderBy('c.created_at')
        .orderBy('c.id')
        .execute();
      const media = await attachedMediaOf(
        database,
        comments.map((comment) => comment.id),
        mediaUrl,
      );
      return comments.map((comment) => ({ ...comment, media: media.get(comment.id) ?? [] }));
    },

    /** The ids of every comment of a post, hidden ones too: what goes with the post. */
    commentIdsOf: async (postId: string) => (await db.selectFrom('comments').select('id').where('post_id', '=', postId).execute()).map((row) => row.id),

    commentVotesOf: async (profileId: string, commentIds: string[]): Promise<Map<string, VoteValue>> => {
      if (commentIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('comment_votes')
        .select(['comment_id', 'value'])
        .where('profile_id', '=', profileId)
        .where('comment_id', 'in', commentIds)
        .execute();
      return new Map(rows.map((r) => [r.comment_id, r.value]));
    },

    /**
     * Counts one post for each tag in `tags` (a tag may repeat: posts written together count in one
     * statement). Tags are written in sorted order, so two writers lock their rows in the same order.
     */
    async countHashtags(tags: string[], now: string): Promise<void> {
      if (tags.length === 0) return;
      const counts = new Map<string, number>();
      for (const tag of tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
      await db
        .insertInto('hashtags')
        .values([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([tag, count]) => ({ tag, post_count: count, last_used_at: now })))
        .onConflict((oc) =>
          oc.column('tag').doUpdateSet({ post_count: sql`hashtags.post_count + excluded.post_count`, last_used_at: (eb) => eb.ref('excluded.last_used_at') }),
        )
        .execute();
    },

    async uncountHashtags(tags: string[]): Promise<void> {
      if (tags.length === 0) return;
      await db
        .updateTable('hashtags')
        .set((eb) => ({ post_count: eb('post_count', '-', 1) }))
        .where('tag', 'in', tags)
        .execute();
      await db.deleteFrom('hashtags').where('tag', 'in', tags).where('post_count', '<=', 0).execute();
    },

    topHashtags: (limit: number, offset: number) =>
      db.selectFrom('hashtags').select(['tag', 'post_count']).orderBy('post_count', 'desc').orderBy('tag').limit(limit).offset(offset).execute(),

    countAllHashtags: async () =>
      Number(
        (
          await db
            .selectFrom('hashtags')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
  };
}

export type PostsStore = ReturnType<typeof createPostsStore>;
