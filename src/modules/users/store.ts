import type { Db } from '../../db/database.ts';
import type { ProfilesTable } from './tables.ts';
import type { Insertable, Selectable, Updateable } from 'kysely';

export type ProfileRow = Selectable<ProfilesTable>;

export function createUsersStore(db: Db) {
  return {
    findByUsername: (username: string) => db.selectFrom('profiles').selectAll().where('username', '=', username).executeTakeFirst(),
    findByAccount: (accountId: string) => db.selectFrom('profiles').selectAll().where('account_id', '=', accountId).executeTakeFirst(),
    insert: (row: Insertable<ProfilesTable>) => db.insertInto('profiles').values(row).execute(),
    update: (accountId: string, changes: Updateable<ProfilesTable>) =>
      db.updateTable('profiles').set(changes).where('account_id', '=', accountId).returningAll().executeTakeFirst(),
  };
}

export type UsersStore = ReturnType<typeof createUsersStore>;
