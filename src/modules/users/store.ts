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
