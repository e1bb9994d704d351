import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import type { AccountStandingReadModel } from '../auth/index.ts';
import type { ModeratorRole, ModerationTables } from './tables.ts';

/** Who holds a role: read by the admin routes' guard, written by the admin command and by admins. */
export function createRolesStore(database: Db) {
  const db = ownTables<ModerationTables & AccountStandingReadModel>(database);
  return {
    roleOf: async (accountId: string): Promise<ModeratorRole | null> =>
      (await db.selectFrom('moderator_roles').select('role').where('account_id', '=', accountId).executeTakeFirst())?.role ?? null,

    /** A person's live account by email (the command names people by the email they sign in with). */
    personByEmail: (email: string) =>
      db
        .selectFrom('accounts')
        .select(['id', 'email'])
        .where('email', '=', email.trim().toLowerCase())
        .where('kind', '=', 'person')
        .where('deleted_at', 'is', null)
        .executeTakeFirst(),

    personById: (id: string) =>
      db.selectFrom('accounts').select(['id', 'email']).where('id', '=', id).where('kind', '=', 'person').where('deleted_at', 'is', null).executeTakeFirst(),

    /** Sets the role (replacing another); returns the role held before. */
    grant: (accountId: string, role: ModeratorRole, grantedBy: string | null, now: string) =>
      db.transaction().execute(async (tx) => {
        const before = await tx.selectFrom('moderator_roles').select('role').where('account_id', '=', accountId).executeTakeFirst();
        if (before) await tx.updateTable('moderator_roles').set({ role, granted_by: grantedBy, granted_at: now }).where('account_id', '=', accountId).execute();
        else await tx.insertInto('moderator_roles').values({ account_id: accountId, role, granted_by: grantedBy, granted_at: now }).execute();
        return before?.role ?? null;
      }),

    /** Takes the role away; returns the role held before. */
    revoke: async (accountId: string): Promise<ModeratorRole | null> => {
      const before = await db.selectFrom('moderator_roles').select('role').where('account_id', '=', accountId).executeTakeFirst();
      await db.deleteFrom('moderator_roles').where('account_id', '=', accountId).execute();
      return before?.role ?? null;
    },

    list: () =>
      db
        .selectFrom('moderator_roles as r')
        .leftJoin('accounts as a', 'a.id', 'r.account_id')
        .select(['r.account_id', 'r.role', 'r.granted_by', 'r.granted_at', 'a.email'])
        .orderBy('r.granted_at')
        .orderBy('r.account_id')
        .execute(),

    adminCount: async () =>
      Number(
        (
          await db
            .selectFrom('moderator_roles')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .where('role', '=', 'admin')
            .executeTakeFirstOrThrow()
        ).n,
      ),
  };
}

export type RolesStore = ReturnType<typeof createRolesStore>;
