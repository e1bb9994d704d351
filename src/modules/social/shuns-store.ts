/** Mutes and blocks: who hides whom, and who keeps whom away. */
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import type { ProfilesReadModel } from '../users/index.ts';
import type { SocialTables } from './tables.ts';

export type ShunKind = 'mutes' | 'blocks';

export function createShunsStore(database: Db) {
  const db = ownTables<SocialTables & ProfilesReadModel>(database);
  return {
    /** Returns whether a row was added (false: it was there already). */
    async add(kind: ShunKind, profileId: string, targetId: string, now: string): Promise<boolean> {
      const inserted = await db
        .insertInto(kind)
        .values({ profile_id: profileId, target_id: targetId, created_at: now })
        .onConflict((oc) => oc.columns(['profile_id', 'target_id']).doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    async remove(kind: ShunKind, profileId: string, targetId: string): Promise<boolean> {
      const deleted = await db.deleteFrom(kind).where('profile_id', '=', profileId).where('target_id', '=', targetId).executeTakeFirst();
      return Number(deleted.numDeletedRows) === 1;
    },

    /** The profiles `profileId` muted or blocked, the latest first. */
    list: (kind: ShunKind, profileId: string, limit: number, offset: number) =>
      db
        .selectFrom(`${kind} as s`)
        .innerJoin('profiles as p', 'p.id', 's.target_id')
        .select(['p.id', 'p.username', 'p.display_name', 'p.type', 'p.avatar_url', 's.created_at'])
        .where('s.profile_id', '=', profileId)
        .orderBy('s.created_at', 'desc')
        .orderBy('p.id')
        .limit(limit + 1)
        .offset(offset)
        .execute(),

    /**
     * What `profileId` does not see, in one query (every signed-in feed page is filtered by it): the
     * accounts they muted or blocked, and their muted words.
     */
    async hiddenAndMutedWordsOf(profileId: string): Promise<{ accounts: string[]; words: string[] }> {
      const rows = await db
        .selectFrom('mutes')
        .select(['target_id as item', sql<number>`0`.as('is_word')])
        .where('profile_id', '=', profileId)
        .union(
          db
            .selectFrom('blocks')
            .select(['target_id as item', sql<number>`0`.as('is_word')])
            .where('profile_id', '=', profileId),
        )
        .union(
          db
            .selectFrom('muted_words')
            .select(['word as item', sql<number>`1`.as('is_word')])
            .where('profile_id', '=', profileId),
        )
        .execute();
      return {
        accounts: rows.filter((row) => Number(row.is_word) === 0).map((row) => row.item),
        words: rows
          .filter((row) => Number(row.is_word) === 1)
          .map((row) => row.item)
          .sort(),
      };
    },

    /** Which of `profileIds` blocked `actorId`. */
    async blockersAmong(profileIds: readonly string[], actorId: string): Promise<string[]> {
      if (profileIds.length === 0) return [];
      const rows = await db
        .selectFrom('blocks')
        .select('profile_id')
        .where('target_id', '=', actorId)
        .where('profile_id', 'in', [...profileIds])
        .execute();
      return rows.map((row) => row.profile_id);
    },

    async state(profileId: string, targetId: string): Promise<{ muted: boolean; blocked: boolean }> {
      const [muted, blocked] = await Promise.all(
        (['mutes', 'blocks'] as const).map((kind) =>
          db.selectFrom(kind).select('target_id').where('profile_id', '=', profileId).where('target_id', '=', targetId).executeTakeFirst(),
        ),
      );
      return { muted: muted !== undefined, blocked: blocked !== undefined };
    },
  };
}

export type ShunsStore = ReturnType<typeof createShunsStore>;
