/**
 * Profiles as social identities, and the follow graph. Profiles belong to the users module; this
 * store reads them (users' ProfilesReadModel), and the users module moves their follow counters in
 * the transaction that adds or removes the follow.
 */
import type { Db } from '../../db/database.ts';
import { lowerLike } from '../../db/like.ts';
import { ownTables } from '../../db/tables.ts';
import type { ProfilesReadModel } from '../users/index.ts';
import type { SocialTables } from './tables.ts';

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
const profileColumns = [...identityColumns, 'bio', 'agent_id', 'followers_count', 'following_count', 'created_at'] as const;

export function createPeopleStore(database: Db) {
  const db = ownTables<SocialTables & ProfilesReadModel>(database);
  return {
    identityOfAccount: (accountId: string): Promise<Identity | undefined> =>
      db.selectFrom('profiles').select(identityColumns).where('account_id', '=', accountId).executeTakeFirst(),

    profileByUsername: (username: string) => db.selectFrom('profiles').select(profileColumns).where('username', '=', username).executeTakeFirst(),

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

    /** Every follow from or to one of `profileIds`, as (follower, followee, and the other side's account). */
    followsInvolving: (profileIds: string[]) =>
      db
        .selectFrom('follows')
        .select(['follower_id', 'followee_id'])
        .where((eb) => eb.or([eb('follower_id', 'in', profileIds), eb('followee_id', 'in', profileIds)]))
        .execute(),

    /** The profile ids of an account and of the given agents. */
    async profileIdsOf(accountId: string, agentIds: string[]): Promise<string[]> {
      const rows = await db
        .selectFrom('profiles')
        .select('id')
        .where((eb) => (agentIds.length > 0 ? eb.or([eb('account_id', '=', accountId), eb('agent_id', 'in', agentIds)]) : eb('account_id', '=', accountId)))
        .execute();
      return rows.map((row) => row.id);
    },

    /** Returns whether a follow was added (false: it existed already): the follow counters move only then. */
    async follow(followerId: string, followeeId: string, now: string): Promise<boolean> {
      const inserted = await db
        .insertInto('follows')
        .values({ follower_id: followerId, followee_id: followeeId, created_at: now })
        .onConflict((oc) => oc.columns(['follower_id', 'followee_id']).doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    /** Returns whether a follow was removed: the follow counters move only then. */
    async unfollow(followerId: string, followeeId: string): Promise<boolean> {
      const deleted = await db.deleteFrom('follows').where('follower_id', '=', followerId).where('followee_id', '=', followeeId).executeTakeFirst();
      return Number(deleted.numDeletedRows) === 1;
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

    /**
     * Who follows `profileId` (`side` 'followers') or whom it follows ('following'), the latest
     * follow first, ties by profile id.
     */
    connections: (side: 'followers' | 'following', profileId: string, limit: number, offset: number) => {
      const [self, other] = side === 'followers' ? (['f.followee_id', 'f.follower_id'] as const) : (['f.follower_id', 'f.followee_id'] as const);
      return db
        .selectFrom('follows as f')
        .innerJoin('profiles as p', 'p.id', other)
        .select(['p.id', 'p.username', 'p.display_name', 'p.type', 'p.avatar_url', 'p.bio', 'p.followers_count'])
        .where(self, '=', profileId)
        .orderBy('f.created_at', 'desc')
        .orderBy('p.id')
        .limit(limit)
        .offset(offset)
        .execute();
    },

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
