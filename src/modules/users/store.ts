import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db, Tx } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import type { ProfilesTable, UsersTables } from './tables.ts';

export type ProfileRow = Selectable<ProfilesTable>;

export function createUsersStore(database: Db) {
  const db = ownTables<UsersTables>(database);
  return {
    findByUsername: (username: string) => db.selectFrom('profiles').selectAll().where('username', '=', username).executeTakeFirst(),
    findByAccount: (accountId: string) => db.selectFrom('profiles').selectAll().where('account_id', '=', accountId).executeTakeFirst(),
    /** The account whose profile has this username (compared case-insensitively: usernames are stored lowercase). */
    accountIdByUsername: async (username: string) =>
      (await db.selectFrom('profiles').select('account_id').where('username', '=', username.toLowerCase()).executeTakeFirst())?.account_id,
    /** Until when a deleted account's username is held back, if it still is at `now`. */
    reservedUntil: async (username: string, now: string) =>
      (await db.selectFrom('reserved_usernames').select('reserved_until').where('username', '=', username).where('reserved_until', '>', now).executeTakeFirst())
        ?.reserved_until ?? null,
    /**
     * Deletes the account's profile and its agents' profiles (their posts, comments, votes and follows
     * go with them) and holds their usernames back until `reservedUntil`.
     */
    deleteProfiles: (accountId: string, agentIds: string[], reservedUntil: string) =>
      db.transaction().execute(async (tx) => {
        const profiles = await tx
          .selectFrom('profiles')
          .select(['id', 'username'])
          .where((eb) => (agentIds.length > 0 ? eb.or([eb('account_id', '=', accountId), eb('agent_id', 'in', agentIds)]) : eb('account_id', '=', accountId)))
          .execute();
        for (const profile of profiles) {
          await tx
            .insertInto('reserved_usernames')
            .values({ username: profile.username, account_id: accountId, reserved_until: reservedUntil })
            .onConflict((oc) => oc.column('username').doUpdateSet({ account_id: accountId, reserved_until: reservedUntil }))
            .execute();
        }
        if (profiles.length > 0)
          await tx
            .deleteFrom('profiles')
            .where(
              'id',
              'in',
              profiles.map((profile) => profile.id),
            )
            .execute();
      }),
    insert: (row: Insertable<ProfilesTable>) => db.insertInto('profiles').values(row).execute(),
    update: (accountId: string, changes: Updateable<ProfilesTable>) =>
      db.updateTable('profiles').set(changes).where('account_id', '=', accountId).returningAll().executeTakeFirst(),

    /**
     * Moves the follow counters of both profiles by `change` (1: a follow added, -1: one removed), in
     * the caller's transaction that adds or removes the follow, so counters and follows never disagree.
     */
    async adjustFollowCounts(tx: Tx, followerId: string, followeeId: string, change: 1 | -1): Promise<void> {
      const profiles = ownTables<UsersTables>(tx);
      const op = change === 1 ? '+' : '-';
      await profiles
        .updateTable('profiles')
        .set((eb) => ({ following_count: eb('following_count', op, 1) }))
        .where('id', '=', followerId)
        .execute();
      await profiles
        .updateTable('profiles')
        .set((eb) => ({ followers_count: eb('followers_count', op, 1) }))
        .where('id', '=', followeeId)
        .execute();
    },
  };
}

export type UsersStore = ReturnType<typeof createUsersStore>;
