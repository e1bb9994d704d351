/** Bookmarks and muted words: a person's private lists, read by nobody else. */
import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import { notHiddenByModerators, type ModerationStatesReadModel } from '../moderation/index.ts';
import type { SocialTables } from './tables.ts';

export function createPrivateListsStore(database: Db) {
  const db = ownTables<SocialTables & ModerationStatesReadModel>(database);
  return {
    /** Returns whether a bookmark was added (false: it was there already). */
    async add(profileId: string, postId: string, now: string): Promise<boolean> {
      const inserted = await db
        .insertInto('bookmarks')
        .values({ profile_id: profileId, post_id: postId, created_at: now })
        .onConflict((oc) => oc.columns(['profile_id', 'post_id']).doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    remove: (profileId: string, postId: string) => db.deleteFrom('bookmarks').where('profile_id', '=', profileId).where('post_id', '=', postId).execute(),

    /**
     * The ids of the posts `profileId` bookmarked, the latest bookmark first, ties by post id. Leaves out
     * here, so pages are whole, the posts moderators hid and those of accounts they blocked or that
     * blocked them (either side of a block keeps the two apart).
     */
    async idsOf(profileId: string, limit: number, offset: number): Promise<string[]> {
      const rows = await db
        .selectFrom('bookmarks as b')
        .innerJoin('posts as p', 'p.id', 'b.post_id')
        .select('b.post_id')
        .where('b.profile_id', '=', profileId)
        .where('p.author_id', 'not in', db.selectFrom('blocks').select('target_id').where('profile_id', '=', profileId))
        .where('p.author_id', 'not in', db.selectFrom('blocks').select('profile_id').where('target_id', '=', profileId))
        .where(notHiddenByModerators('post', 'p.id'))
        .orderBy('b.created_at', 'desc')
        .orderBy('b.post_id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((row) => row.post_id);
    },

    /** Which of `postIds` `profileId` bookmarked. */
    async among(profileId: string, postIds: readonly string[]): Promise<Set<string>> {
      if (postIds.length === 0) return new Set();
      const rows = await db
        .selectFrom('bookmarks')
        .select('post_id')
        .where('profile_id', '=', profileId)
        .where('post_id', 'in', [...postIds])
        .execute();
      return new Set(rows.map((row) => row.post_id));
    },

    /** A person's muted words, in alphabetical order. */
    async mutedWordsOf(profileId: string): Promise<string[]> {
      const rows = await db.selectFrom('muted_words').select('word').where('profile_id', '=', profileId).orderBy('word').execute();
      return rows.map((row) => row.word);
    },

    /** Replaces a person's muted words with `words` (lowercase, each once); in the caller's transaction. */
    async setMutedWords(profileId: string, words: readonly string[], now: string): Promise<void> {
      await db.deleteFrom('muted_words').where('profile_id', '=', profileId).execute();
      if (words.length > 0)
        await db
          .insertInto('muted_words')
          .values(words.map((word) => ({ profile_id: profileId, word, created_at: now })))
          .execute();
    },
  };
}

export type PrivateListsStore = ReturnType<typeof createPrivateListsStore>;
