/**
 * Reading posts in bulk. Every list is loaded the same way, in a fixed number of queries whatever
 * the page size: the ids in order (one query), then the posts with their authors and, for
 * reposts, the original post and its author (one query), then the viewer's votes on and bookmarks of
 * all of them (one query, only for a signed-in viewer).
 */
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import { lowerLike } from '../../db/like.ts';
import { ownTables } from '../../db/tables.ts';
import type { ProfilesReadModel } from '../users/index.ts';
import { notHiddenByModerators, type ModerationStatesReadModel } from '../moderation/index.ts';
import { attachedMediaOf, type MediaUrl, type PostMedia } from './media.ts';
import type { VoteValue } from './posts-store.ts';
import type { SocialTables } from './tables.ts';

/** Posts, follows and votes, with their authors' profiles to join. */
type FeedTables = SocialTables & ProfilesReadModel & ModerationStatesReadModel;

export interface PostCore {
  id: string;
  kind: 'post' | 'repost' | 'quote';
  body: string;
  topic: string;
  hashtags: string[];
  repost_of: string | null;
  like_count: number;
  dislike_count: number;
  comment_count: number;
  repost_count: number;
  created_at: string;
  content_warning: string | null;
  media: PostMedia[];
  author_id: string;
  author_username: string;
  author_display_name: string;
  author_type: string;
  author_avatar_url: string | null;
}

export interface HydratedPost extends PostCore {
  /** The reposted post; null for an ordinary post, or when the quoted post was deleted. */
  original: PostCore | null;
}

export interface TrendingWindow {
  since: string;
  until: string;
  topic: string | undefined;
  limit: number;
}

export interface ChronologicalPage {
  until: string;
  topic: string | undefined;
  exclude: string[];
  limit: number;
  offset: number;
}

interface FollowingPage {
  followerId: string;
  /** null: however new. */
  until: string | null;
  topic: string | undefined;
  limit: number;
  offset: number;
}

/** A post's place in a feed: enough to order, pin and filter it without loading it. */
export interface FeedEntry {
  id: string;
  created_at: string;
  topic: string;
}

/**
 * Posts whose author's account the moderators limited: they stay on the author's profile, on their
 * own pages and in their followers' following feed, and leave the shared listings (for you,
 * trending, search, followed topics).
 */
const limitedAuthorsOf = (db: Kysely<FeedTables>) => () =>
  db
    .selectFrom('profiles as limited_author')
    .innerJoin('moderation_states as limited', (join) =>
      join.onRef('limited.subject_id', '=', 'limited_author.account_id').on('limited.subject_type', '=', 'account').on('limited.state', '=', 'limited'),
    )
    .select('limited_author.id');

/**
 * The following feed is the posts of the accounts the reader follows, and the posts in the topics
 * they follow by others (limited accounts left out there, as in every shared listing). Each side
 * is asked for its newest `offset + limit` posts, then the two merged (a post on both sides once).
 * SQLite walks each followed author's and topic's posts by index and sorts them. PostgreSQL would
 * rather scan every post newest first and test each one (tens of milliseconds for someone following
 * a few quiet accounts), so it is asked for each author's and each topic's newest posts, then those merged.
 */
const followingPostsBy: Record<DialectName, (db: Kysely<FeedTables>, page: FollowingPage, limitedAuthors: LimitedAuthors) => Promise<FeedEntry[]>> = {
  async sqlite(db, { followerId, until, topic, limit, offset }, limitedAuthors) {
    let byPeople = db
      .selectFrom('follows as f')
      .innerJoin('posts as p', 'p.author_id', 'f.followee_id')
      .select(['p.id', 'p.created_at', 'p.topic'])
      .where('f.follower_id', '=', followerId);
    let byTopics = db
      .selectFrom('topic_follows as t')
      .innerJoin('posts as p', 'p.topic', 't.topic')
      .select(['p.id', 'p.created_at', 'p.topic'])
      .where('t.profile_id', '=', followerId)
      .where('p.author_id', '!=', followerId)
      .where('p.author_id', 'not in', limitedAuthors());
    if (until !== null) {
      byPeople = byPeople.where('p.created_at', '<=', until);
      byTopics = byTopics.where('p.created_at', '<=', until);
    }
    if (topic) {
      byPeople = byPeople.where('p.topic', '=', topic);
      byTopics = byTopics.where('p.topic', '=', topic);
    }
    const people = byPeople
      .orderBy('p.created_at', 'desc')
      .orderBy('p.id', 'desc')
      .limit(offset + limit);
    const topics = byTopics
      .orderBy('p.created_at', 'desc')
      .orderBy('p.id', 'desc')
      .limit(offset + limit);
    return db
      .selectFrom(
        db
          .selectFrom(people.as('people'))
          .selectAll()
          .union(db.selectFrom(topics.as('topics')).selectAll())
          .as('merged'),
      )
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  },
  async postgres(db, { followerId, until, topic, limit, offset }, limitedAuthors) {
    const byPeople = db
      .selectFrom('follows as f')
      .innerJoinLateral(
        (eb) => {
          let newest = eb.selectFrom('posts').select(['posts.id', 'posts.created_at', 'posts.topic']).whereRef('posts.author_id', '=', 'f.followee_id');
          if (until !== null) newest = newest.where('posts.created_at', '<=', until);
          if (topic) newest = newest.where('posts.topic', '=', topic);
          return newest
            .orderBy('posts.created_at', 'desc')
            .orderBy('posts.id', 'desc')
            .limit(offset + limit)
            .as('p');
        },
        (join) => join.onTrue(),
      )
      .select(['p.id', 'p.created_at', 'p.topic'])
      .where('f.follower_id', '=', followerId);
    const byTopics = db
      .selectFrom('topic_follows as t')
      .innerJoinLateral(
        (eb) => {
          let newest = eb
            .selectFrom('posts')
            .select(['posts.id', 'posts.created_at', 'posts.topic'])
            .whereRef('posts.topic', '=', 't.topic')
            .where('posts.author_id', '!=', followerId)
            .where('posts.author_id', 'not in', limitedAuthors());
          if (until !== null) newest = newest.where('posts.created_at', '<=', until);
          return newest
            .orderBy('posts.created_at', 'desc')
            .orderBy('posts.id', 'desc')
            .limit(offset + limit)
            .as('p');
        },
        (join) => join.onTrue(),
      )
      .select(['p.id', 'p.created_at', 'p.topic'])
      .where('t.profile_id', '=', followerId)
      .$if(topic !== undefined && topic !== '', (q) => q.where('t.topic', '=', topic!));
    return db
      .selectFrom(byPeople.union(byTopics).as('merged'))
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  },
};

type LimitedAuthors = ReturnType<typeof limitedAuthorsOf>;

/** SQL of the reader's votes and bookmarks query by engine and number of posts asked about (the parameters are its only difference). */
const marksSql = new Map<string, string>();

export function createFeedStore(database: Db, dialect: DialectName, mediaUrl: MediaUrl) {
  const db = ownTables<FeedTables>(database);
  const limitedAuthors = limitedAuthorsOf(db);
  return {
    /** Most likes plus comments among posts created in (since, until]; posts nobody engaged with are not trending. */
    async trendingIds({ since, until, topic, limit }: TrendingWindow): Promise<string[]> {
      let query = db
        .selectFrom('posts')
        .select('id')
        .where('created_at', '>', since)
        .where('created_at', '<=', until)
        .where((eb) => eb(eb('like_count', '+', eb.ref('comment_count')), '>', 0))
        .where('author_id', 'not in', limitedAuthors());
      if (topic) query = query.where('topic', '=', topic);
      const rows = await query
        .orderBy((eb) => eb('like_count', '+', eb.ref('comment_count')), 'desc')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },

    /** Newest first, ties by id: a total order, so consecutive pages never overlap. */
    async chronologicalIds({ until, topic, exclude, limit, offset }: ChronologicalPage): Promise<string[]> {
      let query = db.selectFrom('posts').select('id').where('created_at', '<=', until).where('author_id', 'not in', limitedAuthors());
      if (topic) query = query.where('topic', '=', topic);
      if (exclude.length > 0) query = query.where('id', 'not in', exclude);
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
      return rows.map((r) => r.id);
    },

    /**
     * Posts per topic that its feed shows anyone (moderators' hidden posts and the posts of limited
     * accounts left out, as the feed leaves them out), in one grouped query; topics without any are absent.
     */
    async topicPostCounts(): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom('posts')
        .select(['topic', (eb) => eb.fn.countAll<string | number>().as('count')])
        .where('id', 'not in', (eb) => eb.selectFrom('moderation_states').select('subject_id').where('subject_type', '=', 'post').where('state', '=', 'hidden'))
        .where('author_id', 'not in', limitedAuthors())
        .groupBy('topic')
        .execute();
      return new Map(rows.map((row) => [row.topic, Number(row.count)]));
    },

    /** Posts by the people `followerId` follows, newest first (created at `until` or before, unless null). */
    followingPosts: (followerId: string, until: string | null, topic: string | undefined, limit: number, offset: number): Promise<FeedEntry[]> =>
      followingPostsBy[dialect](db, { followerId, until, topic, limit, offset }, limitedAuthors),

    /** Ids of the posts of `authorIds` created at `since` or later, oldest first: what a live stream sends next. */
    async idsSince(authorIds: readonly string[], topics: readonly string[], since: string, limit: number): Promise<string[]> {
      if (authorIds.length === 0 && topics.length === 0) return [];
      const rows = await db
        .selectFrom('posts')
        .select('id')
        .where((eb) =>
          eb.or([...(authorIds.length > 0 ? [eb('author_id', 'in', [...authorIds])] : []), ...(topics.length > 0 ? [eb('topic', 'in', [...topics])] : [])]),
        )
        .where('created_at', '>=', since)
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },

    /** One author's posts, reposts and quotes, newest first, ties by id. */
    async authorPostIds(authorId: string, limit: number, offset: number): Promise<string[]> {
      const rows = await db
        .selectFrom('posts')
        .select('id')
        .where('author_id', '=', authorId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((r) => r.id);
    },

    async postExists(id: string): Promise<boolean> {
      return (await db.selectFrom('posts').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
    },

    /**
     * `pattern` from containsPattern(); newest first. Leaves out, for `viewerId`, the posts (and reposts
     * and quotes of posts) by accounts they muted or blocked, as their feeds do.
     */
    async searchIds(pattern: string, limit: number, offset: number, viewerId: string | null): Promise<string[]> {
      let query = db.selectFrom('posts').select('id').where(lowerLike('body', pattern)).where('author_id', 'not in', limitedAuthors());
      if (viewerId !== null) {
        const hidden = db
          .selectFrom('mutes')
          .select('target_id')
          .where('profile_id', '=', viewerId)
          .union(db.selectFrom('blocks').select('target_id').where('profile_id', '=', viewerId));
        query = query
          .where('author_id', 'not in', hidden)
          .where((eb) =>
            eb.or([
              eb('repost_of', 'is', null),
              eb('repost_of', 'not in', eb.selectFrom('posts as original').select('original.id').where('original.author_id', 'in', hidden)),
            ]),
          );
      }
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
      return rows.map((r) => r.id);
    },

    /** Why moderators hid the post, or null when it is not hidden. */
    hiddenReason: async (postId: string) =>
      (
        await db
          .selectFrom('moderation_states')
          .select('reason')
          .where('subject_type', '=', 'post')
          .where('subject_id', '=', postId)
          .where('state', '=', 'hidden')
          .executeTakeFirst()
      )?.reason ?? null,

    /**
     * The posts of `ids` that exist, in the order of `ids`. Every list and page of posts is loaded
     * here, so leaving out what moderators hid here takes it out of all of them (`withHidden`: the
     * author's and moderators' own look at one).
     */
    async hydrate(ids: readonly string[], withHidden = false): Promise<HydratedPost[]> {
      if (ids.length === 0) return [];
      let query = db
        .selectFrom('posts as p')
        .innerJoin('profiles as a', 'a.id', 'p.author_id')
        .leftJoin('posts as o', 'o.id', 'p.repost_of')
        .leftJoin('profiles as oa', 'oa.id', 'o.author_id')
        .select([
          'p.id',
          'p.kind',
          'p.body',
          'p.topic',
          'p.hashtags',
          'p.repost_of',
          'p.like_count',
          'p.dislike_count',
          'p.comment_count',
          'p.repost_count',
          'p.created_at',
          'p.content_warning',
        ])
        .select([
          'a.id as author_id',
          'a.username as author_username',
          'a.display_name as author_display_name',
          'a.type as author_type',
          'a.avatar_url as author_avatar_url',
        ])
        .select(['o.id as o_id', 'o.kind as o_kind', 'o.body as o_body', 'o.topic as o_topic', 'o.hashtags as o_hashtags', 'o.repost_of as o_repost_of'])
        .select([
          'o.like_count as o_like_count',
          'o.dislike_count as o_dislike_count',
          'o.comment_count as o_comment_count',
          'o.repost_count as o_repost_count',
          'o.created_at as o_created_at',
          'o.content_warning as o_content_warning',
        ])
        .select(['oa.id as oa_id', 'oa.username as oa_username', 'oa.display_name as oa_display_name', 'oa.type as oa_type', 'oa.avatar_url as oa_avatar_url'])
        .where('p.id', 'in', [...new Set(ids)]);
      if (!withHidden) query = query.where(notHiddenByModerators('post', 'p.id'));
      const rows = await query.execute();
      const media = await attachedMediaOf(
        database,
        rows.flatMap((row) => (row.o_id === null ? [row.id] : [row.id, row.o_id])),
        mediaUrl,
      );
      const byId = new Map<string, HydratedPost>();
      for (const row of rows) {
        const original: PostCore | null =
          row.o_id === null || row.oa_id === null
            ? null
            : {
                id: row.o_id,
                kind: row.o_kind!,
                body: row.o_body!,
                topic: row.o_topic!,
                hashtags: JSON.parse(row.o_hashtags!) as string[],
                repost_of: row.o_repost_of,
                like_count: row.o_like_count!,
                dislike_count: row.o_dislike_count!,
                comment_count: row.o_comment_count!,
                repost_count: row.o_repost_count!,
                created_at: row.o_created_at!,
                content_warning: row.o_content_warning,
                media: media.get(row.o_id) ?? [],
                author_id: row.oa_id,
                author_username: row.oa_username!,
                author_display_name: row.oa_display_name!,
                author_type: row.oa_type!,
                author_avatar_url: row.oa_avatar_url,
              };
        byId.set(row.id, {
          id: row.id,
          kind: row.kind,
          body: row.body,
          topic: row.topic,
          hashtags: JSON.parse(row.hashtags) as string[],
          repost_of: row.repost_of,
          like_count: row.like_count,
          dislike_count: row.dislike_count,
          comment_count: row.comment_count,
          repost_count: row.repost_count,
          created_at: row.created_at,
          content_warning: row.content_warning,
          media: media.get(row.id) ?? [],
          author_id: row.author_id,
          author_username: row.author_username,
          author_display_name: row.author_display_name,
          author_type: row.author_type,
          author_avatar_url: row.author_avatar_url,
          original,
        });
      }
      return ids.flatMap((id) => byId.get(id) ?? []);
    },

    /**
     * The reader's votes on `postIds` and which of them they bookmarked, in one query. Asked on every
     * signed-in feed request, so its SQL is built once per number of posts: building and compiling the
     * query cost more than running it.
     */
    async readerMarksOf(profileId: string, postIds: string[]): Promise<{ votes: Map<string, VoteValue>; bookmarks: Set<string> }> {
      const votes = new Map<string, VoteValue>();
      const bookmarks = new Set<string>();
      if (postIds.length === 0) return { votes, bookmarks };
      const key = `${dialect}:${postIds.length}`;
      let text = marksSql.get(key);
      if (text === undefined) {
        // A bookmark is the row whose value is 0: no vote is.
        text = db
          .selectFrom('post_votes')
          .select(['post_id', 'value'])
          .where('profile_id', '=', profileId)
          .where('post_id', 'in', postIds)
          .unionAll(
            db
              .selectFrom('bookmarks')
              .select(['post_id', sql<VoteValue>`0`.as('value')])
              .where('profile_id', '=', profileId)
              .where('post_id', 'in', postIds),
          )
          .compile().sql;
        marksSql.set(key, text);
      }
      const { rows } = await db.executeQuery<{ post_id: string; value: VoteValue | 0 }>(
        CompiledQuery.raw(text, [profileId, ...postIds, profileId, ...postIds]),
      );
      for (const row of rows) {
        if (Number(row.value) === 0) bookmarks.add(row.post_id);
        else votes.set(row.post_id, row.value as VoteValue);
      }
      return { votes, bookmarks };
    },
  };
}

export type FeedStore = ReturnType<typeof createFeedStore>;
