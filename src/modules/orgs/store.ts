import type { Db } from '../../db/database.ts';
import { ownTables } from '../../db/tables.ts';
import type { UsernamesReadModel } from '../users/index.ts';
import type { OrgMembersTable, OrgsTable, OrgsTables } from './tables.ts';

export function createOrgsStore(database: Db) {
  const db = ownTables<OrgsTables & UsernamesReadModel>(database);
  return {
    async insertWithOwner(org: OrgsTable) {
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('orgs').values(org).execute();
        await tx.insertInto('org_members').values({ org_id: org.id, account_id: org.created_by, role: 'owner', created_at: org.created_at }).execute();
      });
    },
    find: (id: string) => db.selectFrom('orgs').selectAll().where('id', '=', id).executeTakeFirst(),
    members: (orgId: string) =>
      db
        .selectFrom('org_members')
        .leftJoin('profiles', 'profiles.account_id', 'org_members.account_id')
        .select(['org_members.account_id', 'org_members.role', 'org_members.created_at', 'profiles.username'])
        .where('org_id', '=', orgId)
        .orderBy('org_members.created_at')
        .orderBy('org_members.account_id')
        .execute(),
    membership: (orgId: string, accountId: string) =>
      db.selectFrom('org_members').selectAll().where('org_id', '=', orgId).where('account_id', '=', accountId).executeTakeFirst(),
    addMember: (row: OrgMembersTable) => db.insertInto('org_members').values(row).execute(),
    removeMember: (orgId: string, accountId: string) => db.deleteFrom('org_members').where('org_id', '=', orgId).where('account_id', '=', accountId).execute(),
    /**
     * Ends every membership of an account. An organization it was the only owner of keeps an owner:
     * the member who joined first (of those left) becomes one. One left without members stays, empty.
     */
    removeAccount: (accountId: string) =>
      db.transaction().execute(async (tx) => {
        const soleOwned = await tx
          .selectFrom('org_members as mine')
          .select('mine.org_id')
          .where('mine.account_id', '=', accountId)
          .where('mine.role', '=', 'owner')
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('org_members as co')
                  .select('co.account_id')
                  .whereRef('co.org_id', '=', 'mine.org_id')
                  .where('co.role', '=', 'owner')
                  .where('co.account_id', '!=', accountId),
              ),
            ),
          )
          .execute();
        for (const { org_id } of soleOwned) {
          const heir = await tx
            .selectFrom('org_members')
            .select('account_id')
            .where('org_id', '=', org_id)
            .where('account_id', '!=', accountId)
            .orderBy('created_at')
            .orderBy('account_id')
            .limit(1)
            .executeTakeFirst();
          if (heir) await tx.updateTable('org_members').set({ role: 'owner' }).where('org_id', '=', org_id).where('account_id', '=', heir.account_id).execute();
        }
        await tx.deleteFrom('org_members').where('account_id', '=', accountId).execute();
      }),
    ownerCount: async (orgId: string) => {
      const row = await db
        .selectFrom('org_members')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('org_id', '=', orgId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type OrgsStore = ReturnType<typeof createOrgsStore>;
