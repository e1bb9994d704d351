import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Keys an account signs trust receipts with, registered with proof of possession, so a requester
 * without an agent of its own can sign outcome receipts bound to its tasks (docs/trust.md). A key
 * belongs to one account at most. Tasks need no column: their class is the requester's `task_class`
 * or, when absent, read from the agent that took them (modules/catalog/task-class.ts).
 */
export const accountSigningKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('account_signing_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('pubkey', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('account_signing_keys_account').on('account_signing_keys').columns(['account_id', 'created_at']).execute();
  },
};
