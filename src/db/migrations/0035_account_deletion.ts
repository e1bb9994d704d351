import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Account deletion (docs/security.md, "Deleting an account"):
 *  - `accounts.deleted_at`: a deleted account's row stays, emptied of its email, password and
 *    identity-provider link, because what others hold (tasks they did for it, receipts, ledger
 *    postings) still names it; nothing can sign in as it.
 *  - `reserved_usernames`: the username a deleted account had, refused to anyone else until
 *    `reserved_until`, so no one takes over a name others knew.
 */
export const accountDeletion: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('accounts').addColumn('deleted_at', 'text').execute();
    await db.schema
      .createTable('reserved_usernames')
      .addColumn('username', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('reserved_until', 'text', (c) => c.notNull())
      .execute();
  },
};
