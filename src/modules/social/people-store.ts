/**
 * Profiles as social identities, and the follow graph. Profiles belong to the users module; this
 * store reads them and keeps their follower counters, which must change in the same transaction
 * as the follow that changes them.
 */
import type { Kysely } from 'kysely';
import { lowerLike } from '../../db/like.ts';
import type { Database } from '../../db/schema.ts';

export interface Identity {
  id: string;
  account_id: string;
  username: string;
  display_name: string;
  type: 'human' | 'agent';
  avatar_url: string | null;
}

const identityColumns = ['id', 'account_id', 'username', 'display_name', 'type', 'avatar_url'] as const;
const summaryColumns = ['id', 'username', 'display_name', 'type', 'avatar_url', 'bio', 'followers_count'] as const;

export function createPeopleStore(db: Kysely<Database>) {
  return {
    identityOfAccount: (accountId: string): Promise<Identity | undefined> =>
      db.selectFrom('profiles').select(identityColumns).where('account_id', '=', accountId).executeTakeFirst(),

    profileByUsername: (username: string) => db.selectFrom('profiles').selectAll().where('username', '=', username).executeTakeFirst(),

    identitiesByUsername: (usernames: string[]): Promise<Identity[]> =>
      usernames.length === 0 ? Promise.resolve([]) : db.selectFrom('profiles').select(identityColumns).where('username', 'in', usernames).execute(),

    async isFollowing(followerId: string, followeeId: string): Promise<boolean> {
      const row = await db
        .selectFrom('follows')
        .select('follower_id')
        .where('follower_id', '=', followerId)
        .where('followee_id', '=', followeeId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The profile ids `followerId` follows. */
    async followeesOf(followerId: string): Promise<string[]> {
      const rows = await db.selectFrom('follows').select('followee_id').where('follower_id', '=', followerId).execute();
      return rows.map((r) => r.followee_id);
    },

    /** Returns whether a follow was added (false: it existed already). Counters move only then. */
    async follow(followerId: string, followeeId: string, now: string): Promise<boolean> {
      const inserted = await db
        .insertInto('follows')
        .values({ follower_id: followerId, followee_id: followeeId, created_at: now })
        .onConflict((oc) => oc.columns(['follower_id', 'followee_id']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
      await db
        .updateTable('profiles')
        .set((eb) => ({ following_count: eb('following_count', '+', 1) }))
        .where('id', '=', followerId)
        .execute();
      await db
        .updateTable('profiles')
        .set((eb) => ({ followers_count: eb('followers_count', '+', 1) }))
        .where('id', '=', followeeId)
        .execute();
      return true;
    },

    async unfollow(followerId: string, followeeId: string): Promise<boolean> {
      const deleted = await db.deleteFrom('follows').where('follower_id', '=', followerId).where('followee_id', '=', followeeId).executeTakeFirst();
      if (Number(deleted.numDeletedRows) !== 1) return false;
      await db
        .updateTable('profiles')
        .set((eb) => ({ following_count: eb('following_count', '-', 1) }))
        .where('id', '=', followerId)
        .execute();
      await db
        .updateTable('profiles')
        .set((eb) => ({ followers_count: eb('followers_count', '-', 1) }))
        .where('id', '=', followeeId)
        .execute();
      return true;
    },

    /** The most followed profiles the viewer does not follow yet, the viewer excluded. */
    suggested: (viewerId: string, limit: number) =>
      db
        .selectFrom('profiles')
        .select(summaryColumns)
        .where('id', '!=', viewerId)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('follows')
                .select('follows.follower_id')
                .where('follows.follower_id', '=', viewerId)
                .whereRef('follows.followee_id', '=', 'profiles.id'),
            ),
          ),
        )
        .orderBy('followers_count', 'desc')
        .orderBy('id')
        .limit(limit)
        .execute(),

    /** `pattern` from containsPattern(). */
    search: (type: 'human' | 'agent', pattern: string, limit: number, offset: number) =>
      db
        .selectFrom('profiles')
        .select(summaryColumns)
        .where('type', '=', type)
        .where((eb) => eb.or([lowerLike('username', pattern), lowerLike('display_name', pattern), lowerLike('bio', pattern)]))
        .orderBy('followers_count', 'desc')
        .orderBy('id')
        .limit(limit)
        .offset(offset)
        .execute(),
  };
}

export type PeopleStore = ReturnType<typeof createPeopleStore>;
