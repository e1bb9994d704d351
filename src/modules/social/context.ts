/**
 * What the social services share: the stores (on the database, or bound to one transaction),
 * the caller's social identity, and the caches of the feed's hot reads.
 */
import type { DatabaseHandle, Db, Tx } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import type { Signals } from '../../db/signals.ts';
import type { Principal } from '../../lib/principal.ts';
import type { Clock } from '../../lib/clock.ts';
import { forbidden } from '../../lib/errors.ts';
import type { Attachment, MediaService } from '../media/index.ts';
import { createFeedStore, type HydratedPost, type PostCore } from './feed-store.ts';
import { createNotificationsStore } from './notifications-store.ts';
import { createPeopleStore, type Identity } from './people-store.ts';
import { createPostsStore, type VoteValue } from './posts-store.ts';
import { createPrivateListsStore } from './private-lists-store.ts';
import { createReadCache } from './read-cache.ts';
import { createShunsStore } from './shuns-store.ts';
import { createTopicsStore } from './topics-store.ts';
import { createTimelines } from './timelines.ts';
import { mutedWordsMatcher } from './text.ts';
import { idsWithOriginals, postView, type BookmarkLookup, type PostView, type VoteLookup } from './views.ts';

/** Discovery's search, for the `services` tab of social search. */
export type ServiceSearch = (
  q: string,
  limit: number,
  offset: number,
  principal: Principal | null,
) => Promise<{ agents: unknown[]; pagination: { limit: number; offset: number; hasMore: boolean; total?: number } }>;

export interface SocialDeps {
  database: Pick<DatabaseHandle, 'db' | 'dialect' | 'transaction'>;
  clock: Clock;
  searchServices: ServiceSearch;
  /**
   * Moves the follow counters on both profiles (users) by `change`, in the caller's transaction,
   * which adds or removes the follow.
   */
  adjustFollowCounts(tx: Tx, followerId: string, followeeId: string, change: 1 | -1): Promise<void>;
  /** Told after a follow changes the counters on these accounts' profile rows, so caches of them are dropped. */
  profilesChanged(accountIds: string[]): Promise<void>;
  /** How long trending ids and live feed pages are reused when no write of this process changed them (default 5 s). */
  feedCacheMs?: number;
  /** Tells other nodes which following timelines to drop. */
  signals: Signals;
  /** A signal that could not be sent to other nodes. */
  onSignalError?: (error: unknown) => void;
  /** The longest a following timeline is kept without a signal (default 60 s; 0 keeps none). */
  timelineMaxAgeMs?: number;
  /** The media module: pictures of posts and comments are uploads, attached and released in the transaction that writes the post. */
  media: Pick<MediaService, 'attachable' | 'attach' | 'release' | 'urlOf'>;
  /** Whether the principal is one of the instance's moderators (they see hidden posts). */
  isModerator?: (principal: Principal) => Promise<boolean>;
}

const storesOn = (db: Db, dialect: DialectName, media: SocialDeps['media']) => ({
  posts: createPostsStore(db, media.urlOf),
  feed: createFeedStore(db, dialect, media.urlOf),
  people: createPeopleStore(db),
  notifications: createNotificationsStore(db),
  shuns: createShunsStore(db),
  topics: createTopicsStore(db),
  privateLists: createPrivateListsStore(db),
});

/** The stores bound to one transaction, and the users module's follow counters and the media module's pictures moved in it. */
const storesIn = (tx: Tx, dialect: DialectName, adjustFollowCounts: SocialDeps['adjustFollowCounts'], media: SocialDeps['media']) => ({
  ...storesOn(tx, dialect, media),
  adjustFollowCounts: (followerId: string, followeeId: string, change: 1 | -1) => adjustFollowCounts(tx, followerId, followeeId, change),
  attachMedia: (accountId: string, subjectId: string, items: readonly Attachment[]) => media.attach(tx, accountId, subjectId, items),
  releaseMedia: (subjectIds: string[]) => media.release(tx, subjectIds),
});

export type SocialStores = ReturnType<typeof storesIn>;

/** null: anonymous, so views carry no userVote; a signed-in viewer without a profile has voted on nothing. */
export type Viewer = { profileId: string | null } | null;

export async function votesOf(viewer: Viewer, load: (profileId: string) => Promise<Map<string, VoteValue>>): Promise<Map<string, VoteValue> | null> {
  if (!viewer) return null;
  return viewer.profileId ? load(viewer.profileId) : new Map();
}

/**
 * Whether a post stays in `profileId`'s lists under their muted `words`: one that matches leaves, by its
 * text or by the text it reposts or quotes; what they wrote themselves always stays.
 */
export function mutedWordsFilter(profileId: string, words: readonly string[]): (row: HydratedPost) => boolean {
  if (words.length === 0) return () => true;
  const matches = mutedWordsMatcher(words);
  const mutes = (post: PostCore) => post.author_id !== profileId && matches(post.body);
  return (row) => !mutes(row) && !(row.original && mutes(row.original));
}

/** A live feed page as every reader sees it, before their own votes are added. */
export interface FeedPage {
  asOf: string;
  rows: HydratedPost[];
  hasMore: boolean;
  /** foryou: how many of the page's first posts are the trending slice. */
  trending?: number;
}

const NO_PROFILE_MESSAGE = 'This needs a social profile: create one with POST /v1/users';
const PROFILE_IDS_KEPT = 10_000;

export function createSocialContext({
  database,
  clock,
  searchServices,
  adjustFollowCounts,
  profilesChanged,
  feedCacheMs = 5000,
  signals,
  onSignalError,
  timelineMaxAgeMs = 60_000,
  isModerator = async () => false,
  media,
}: SocialDeps) {
  const stores = storesOn(database.db, database.dialect, media);
  const trending = createReadCache<string[]>(clock, feedCacheMs, 200);
  const pages = createReadCache<FeedPage>(clock, feedCacheMs, 500);
  // Per reader, so kept apart: many readers must not push the shared foryou pages out.
  const followingPages = createReadCache<FeedPage>(clock, feedCacheMs, 2000);
  const topicPostCounts = createReadCache<Map<string, number>>(clock, feedCacheMs, 1);
  const timelines = createTimelines({
    clock,
    signals,
    source: {
      followees: (readerId) => stores.people.followeesOf(readerId),
      followedTopics: (readerId) => stores.topics.followedBy(readerId),
      newest: (readerId, topic, limit) => stores.feed.followingPosts(readerId, null, topic, limit, 0),
    },
    maxAgeMs: timelineMaxAgeMs,
    ...(onSignalError ? { onError: onSignalError } : {}),
  });

  // An account's profile id never changes (profiles are never deleted apart from their account),
  // so readers find theirs without a query. Accounts without a profile are not remembered: they may make one.
  const profileIds = new Map<string, string>();
  async function profileIdOf(accountId: string): Promise<string | null> {
    const known = profileIds.get(accountId);
    if (known) return known;
    const identity = await stores.people.identityOfAccount(accountId);
    if (!identity) return null;
    if (profileIds.size >= PROFILE_IDS_KEPT) profileIds.delete(profileIds.keys().next().value!);
    profileIds.set(accountId, identity.id);
    return identity.id;
  }

  /** The viewer's votes on and bookmarks of `rows` and their originals: one query when the viewer has a profile. */
  async function marksOn(rows: HydratedPost[], viewer: Viewer): Promise<{ votes: VoteLookup; bookmarks: BookmarkLookup }> {
    if (!viewer) return { votes: null, bookmarks: null };
    if (!viewer.profileId) return { votes: new Map(), bookmarks: new Set() };
    return stores.feed.readerMarksOf(viewer.profileId, idsWithOriginals(rows));
  }

  async function viewsOf(rows: HydratedPost[], viewer: Viewer): Promise<PostView[]> {
    const { votes, bookmarks } = await marksOn(rows, viewer);
    return rows.map((row) => postView(row, votes, bookmarks));
  }

  /** Whether a post stays in `profileId`'s lists under their muted words (loaded here). */
  async function mutedWordsFilterOf(profileId: string | null | undefined): Promise<(row: HydratedPost) => boolean> {
    return profileId ? mutedWordsFilter(profileId, await stores.privateLists.mutedWordsOf(profileId)) : () => true;
  }

  return {
    clock,
    stores,
    media,
    isModerator,
    searchServices,
    profilesChanged,
    trending,
    pages,
    followingPages,
    topicPostCounts,
    timelines,
    /**
     * After any write that changes posts, their counters or their order: cached reads are stale.
     * `authors` and `topics`: whose posts were added or removed and in which topics, so the
     * following timelines that show them go too.
     */
    postsChanged(authors: readonly string[] = [], topics: readonly string[] = []): void {
      trending.clear();
      pages.clear();
      followingPages.clear();
      topicPostCounts.clear();
      if (authors.length > 0 || topics.length > 0) timelines.postsChanged(authors, topics);
    },
    /** Runs `work` in one transaction with every store bound to it. */
    write: <T>(work: (tx: SocialStores) => Promise<T>): Promise<T> =>
      database.transaction((tx) => work(storesIn(tx, database.dialect, adjustFollowCounts, media))),
    viewerOf: async (principal: Principal | null): Promise<Viewer> => (principal ? { profileId: await profileIdOf(principal.accountId) } : null),
    marksOn,
    mutedWordsFilterOf,
    /** Views of `rows`, with the viewer's votes and bookmarks (one query) when the viewer has a profile. */
    viewsOf,
    /** Views of the posts of `ids` that exist, in that order. */
    postsFor: async (ids: readonly string[], viewer: Viewer): Promise<PostView[]> => viewsOf(await stores.feed.hydrate(ids), viewer),
    /** Acting socially (posting, voting, following...) needs a profile: 403 with the way to make one. */
    async actorOf(principal: Principal): Promise<Identity> {
      const identity = await stores.people.identityOfAccount(principal.accountId);
      if (!identity) throw forbidden(NO_PROFILE_MESSAGE);
      return identity;
    },
    /** The profile id of a caller who must have one, without a query once known. */
    async profileIdOf(principal: Principal): Promise<string> {
      const id = await profileIdOf(principal.accountId);
      if (!id) throw forbidden(NO_PROFILE_MESSAGE);
      return id;
    },
  };
}

export type SocialContext = ReturnType<typeof createSocialContext>;
