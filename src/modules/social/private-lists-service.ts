/** Bookmarks and muted words: a person's own lists, which nobody else can read. */
import type { Principal } from '../../lib/principal.ts';
import { isoNow } from '../../lib/clock.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import type { SocialContext } from './context.ts';
import { extractHashtags, isBlank } from './text.ts';

/** Lowercase and each once; a `#tag` must be one a post could carry. */
function normalizedWords(words: readonly string[]): string[] {
  const normalized = new Set<string>();
  words.forEach((raw, index) => {
    const word = raw.trim().toLowerCase();
    const path = `/body/words/${index}`;
    if (isBlank(word)) throw badRequest('A muted word must not be blank', [{ path, message: 'must not be blank' }]);
    if (word.startsWith('#') && extractHashtags(word)[0] !== word.slice(1))
      throw badRequest('A muted #tag is # and one hashtag: letters, digits or _, with a letter', [{ path, message: 'is not a hashtag' }]);
    normalized.add(word);
  });
  return [...normalized].sort();
}

export function createPrivateListsService(ctx: SocialContext) {
  const { stores, clock } = ctx;

  /**
   * The post, when the actor may see it: neither missing, nor hidden by moderators, nor written by
   * someone who blocked them. Anything else is not found, so a bookmark tells nothing about it.
   */
  async function visibleTo(actorId: string, id: string): Promise<string> {
    const postId = id.toLowerCase();
    const [post] = isUuid(id) ? await stores.feed.hydrate([postId]) : [];
    if (!post || (post.author_id !== actorId && (await stores.shuns.blockersAmong([post.author_id], actorId)).length > 0)) throw notFound('Post not found');
    return postId;
  }

  return {
    /** Bookmarks a post; again is no error. `created`: whether this call added it. */
    async bookmark(principal: Principal, id: string) {
      const actor = await ctx.actorOf(principal);
      const postId = await visibleTo(actor.id, id);
      const created = await stores.privateLists.add(actor.id, postId, isoNow(clock));
      return { created, status: { bookmarked: true } };
    },

    /** Removes a bookmark, if there was one: also of a post since deleted, hidden or blocked. */
    async unbookmark(principal: Principal, id: string) {
      const actor = await ctx.actorOf(principal);
      if (isUuid(id)) await stores.privateLists.remove(actor.id, id.toLowerCase());
      return { bookmarked: false };
    },

    /** The caller's bookmarks, the latest first, as the feed shows posts. */
    async bookmarks(principal: Principal, limit: number, offset: number) {
      const actor = await ctx.actorOf(principal);
      const ids = await stores.privateLists.idsOf(actor.id, limit + 1, offset);
      return { posts: await ctx.postsFor(ids.slice(0, limit), { profileId: actor.id }), pagination: { limit, offset, hasMore: ids.length > limit } };
    },

    async mutedWords(principal: Principal) {
      const actor = await ctx.actorOf(principal);
      return { words: await stores.privateLists.mutedWordsOf(actor.id) };
    },

    /** Replaces the caller's muted words with `words`. */
    async setMutedWords(principal: Principal, words: readonly string[]) {
      const actor = await ctx.actorOf(principal);
      const normalized = normalizedWords(words);
      const now = isoNow(clock);
      await ctx.write((tx) => tx.privateLists.setMutedWords(actor.id, normalized, now));
      // Tells the caller's open event streams, on every node, to read what they hide again, as a mute does.
      await ctx.timelines.followerChanged(actor.id);
      return { words: normalized };
    },
  };
}

export type PrivateListsService = ReturnType<typeof createPrivateListsService>;
