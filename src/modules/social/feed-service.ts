/** Feeds, trending and search. */
import { containsPattern } from '../../db/like.ts';
import type { Principal } from '../../lib/principal.ts';
import { isoNow } from '../../lib/clock.ts';
import { badRequest, unauthorized } from '../../lib/errors.ts';
import { mutedWordsFilter, type FeedPage, type SocialContext } from './context.ts';
import type { HydratedPost } from './feed-store.ts';
import type { FeedQueryInput } from './schemas.ts';
import { assertTopic } from './topics.ts';
import { userSummaryView, type BookmarkLookup, type VoteLookup } from './views.ts';

const HOUR_MS = 3600 * 1000;
/** Spec "Limits": the feed's trending slice is its first 4 posts over 12 hours; trending itself looks at 24 hours. */
const FEED_TRENDING_SLICE = 4;
const FEED_TRENDING_WINDOW_MS = 12 * HOUR_MS;
const TRENDING_WINDOW_MS = 24 * HOUR_MS;
const TRENDING_MAX = 50;

const before = (iso: string, ms: number) => new Date(Date.parse(iso) - ms).toISOString();

export function createFeedService(ctx: SocialContext) {
  const { stores, clock } = ctx;

  /**
   * The feed's trending slice as of `asOf`. The live feed (no `before`) shares a cached ranking;
   * a feed pinned to an earlier moment ranks the posts of its own window.
   */
  function feedTrending(topic: string | undefined, asOf: string, live: boolean): Promise<string[]> {
    const load = (until: string) => stores.feed.trendingIds({ since: before(until, FEED_TRENDING_WINDOW_MS), until, topic, limit: FEED_TRENDING_SLICE });
    return live ? ctx.trending.get(`feed:${topic ?? ''}`, () => load(asOf)) : load(asOf);
  }

  /**
   * One page of `foryou` as of `asOf`: up to 4 trending posts, then every other post newest first.
   * Offsets index that one list, so no page repeats the trending posts.
   */
  async function forYouPage(asOf: string, live: boolean, topic: string | undefined, limit: number, offset: number): Promise<FeedPage> {
    const trending = await feedTrending(topic, asOf, live);
    const head = trending.slice(offset, offset + limit);
    const wanted = limit - head.length;
    const rest = await stores.feed.chronologicalIds({
      until: asOf,
      topic,
      exclude: trending,
      limit: wanted + 1,
      offset: Math.max(0, offset - trending.length),
    });
    const rows = await stores.feed.hydrate([...head, ...rest.slice(0, wanted)]);
    return { asOf, rows, hasMore: offset + limit < trending.length || rest.length > wanted, trending: head.length };
  }

  /**
   * One page of `following`: its ids (one more than `limit`, to tell whether there is a next page)
   * from the reader's timeline when it holds them. Live pages share the posts loaded for them while
   * the timeline is unchanged, as the live `foryou` pages do. A post the timeline names but the
   * database no longer has (its author's account was deleted) sends the page to the database.
   */
  async function followingPage(profileId: string, asOf: string, live: boolean, topic: string | undefined, limit: number, offset: number) {
    const kept = await ctx.timelines.page(profileId, topic, asOf, offset, limit + 1);
    if (kept) {
      const load = async (): Promise<FeedPage> => ({ asOf, rows: await stores.feed.hydrate(kept.ids.slice(0, limit)), hasMore: kept.ids.length > limit });
      const page = live ? await ctx.followingPages.get(`${profileId}:${topic ?? ''}:${limit}:${offset}:${kept.version}`, load) : await load();
      if (page.rows.length === Math.min(limit, kept.ids.length)) return { rows: page.rows, hasMore: page.hasMore };
    }
    const ids = (await stores.feed.followingPosts(profileId, asOf, topic, limit + 1, offset)).map((entry) => entry.id);
    return { rows: await stores.feed.hydrate(ids.slice(0, limit)), hasMore: ids.length > limit };
  }

  /**
   * Leaves out the posts (and reposts of posts) by accounts the viewer muted or blocked, and those their
   * muted words match. Done on the
   * page after it is loaded, so pages stay shared; a page may then hold fewer posts than asked.
   */
  async function withoutHidden(rows: HydratedPost[], profileId: string | null | undefined): Promise<HydratedPost[]> {
    if (!profileId || rows.length === 0) return rows;
    const { accounts, words } = await stores.shuns.hiddenAndMutedWordsOf(profileId);
    const hidden = new Set(accounts);
    const keep = mutedWordsFilter(profileId, words);
    return rows.filter((row) => !hidden.has(row.author_id) && !(row.original && hidden.has(row.original.author_id)) && keep(row));
  }

  return {
    /**
     * `before` pins the feed to a moment: posts created later are left out and the trending slice is
     * ranked over that moment's window, so a client paging with the moment of its first page (the
     * answer's `asOf`) sees no post twice and skips none while new ones arrive. Live pages (no
     * `before`) are shared by every reader for a few seconds; each reader adds their own votes.
     */
    async feed(
      principal: Principal | null,
      query: FeedQueryInput,
    ): Promise<{
      asOf: string;
      rows: HydratedPost[];
      votes: VoteLookup;
      bookmarks: BookmarkLookup;
      pagination: { limit: number; offset: number; hasMore: boolean };
      trending: number;
    }> {
      const { limit, offset, topic } = query;
      assertTopic(topic, '/querystring/topic');
      const now = isoNow(clock);
      // A moment in the future would let posts made after this page into later pages.
      const pinned = query.before !== undefined && Date.parse(query.before) < Date.parse(now) ? new Date(query.before).toISOString() : null;

      if (query.feed === 'following') {
        if (!principal) throw unauthorized('The following feed needs a credential');
        const profileId = await ctx.profileIdOf(principal);
        const asOf = pinned ?? now;
        const page = await followingPage(profileId, asOf, pinned === null, topic, limit, offset);
        const rows = await withoutHidden(page.rows, profileId);
        const hasMore = page.hasMore;
        const { votes, bookmarks } = await ctx.marksOn(rows, { profileId });
        return { asOf, rows, votes, bookmarks, pagination: { limit, offset, hasMore }, trending: 0 };
      }

      const [viewer, page] = await Promise.all([
        ctx.viewerOf(principal),
        pinned
          ? forYouPage(pinned, false, topic, limit, offset)
          : ctx.pages.get(`${topic ?? ''}:${limit}:${offset}`, () => forYouPage(now, true, topic, limit, offset)),
      ]);
      const rows = await withoutHidden(page.rows, viewer?.profileId);
      const { votes, bookmarks } = await ctx.marksOn(rows, viewer);
      return {
        asOf: page.asOf,
        rows,
        votes,
        bookmarks,
        pagination: { limit, offset, hasMore: page.hasMore },
        trending: page.trending ?? 0,
      };
    },

    /** The most liked and commented posts of the last 24 hours. */
    async trending(principal: Principal | null, limit: number) {
      const [viewer, page] = await Promise.all([
        ctx.viewerOf(principal),
        ctx.pages.get(`trending:${limit}`, async () => {
          const asOf = isoNow(clock);
          const ids = await ctx.trending.get('trending', () =>
            stores.feed.trendingIds({ since: before(asOf, TRENDING_WINDOW_MS), until: asOf, topic: undefined, limit: TRENDING_MAX }),
          );
          return { asOf, rows: await stores.feed.hydrate(ids.slice(0, limit)), hasMore: false };
        }),
      ]);
      return { posts: await ctx.viewsOf(await withoutHidden(page.rows, viewer?.profileId), viewer) };
    },

    async search(principal: Principal | null, query: { q: string; tab?: 'posts' | 'agents' | 'humans' | 'services'; limit: number; offset: number }) {
      const { limit, offset } = query;
      const q = query.q.trim();
      if (!q) throw badRequest('q must not be blank', [{ path: '/querystring/q', message: 'must not be blank' }]);
      const pattern = containsPattern(q);
      switch (query.tab ?? 'posts') {
        case 'posts': {
          const viewer = await ctx.viewerOf(principal);
          const ids = await stores.feed.searchIds(pattern, limit + 1, offset, viewer?.profileId ?? null);
          // Muted words are applied to the page found, as the feeds do: it may hold fewer posts than asked.
          const [rows, keep] = await Promise.all([stores.feed.hydrate(ids.slice(0, limit)), ctx.mutedWordsFilterOf(viewer?.profileId)]);
          return { posts: await ctx.viewsOf(rows.filter(keep), viewer), pagination: { limit, offset, hasMore: ids.length > limit } };
        }
        case 'agents':
        case 'humans': {
          const rows = await stores.people.search(query.tab === 'agents' ? 'agent' : 'human', pattern, limit + 1, offset);
          return { users: rows.slice(0, limit).map(userSummaryView), pagination: { limit, offset, hasMore: rows.length > limit } };
        }
        case 'services':
          return ctx.searchServices(q, limit, offset, principal);
      }
    },
  };
}

export type FeedService = ReturnType<typeof createFeedService>;
