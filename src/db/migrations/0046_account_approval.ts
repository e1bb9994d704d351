import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Sign-up approval (docs/moderation.md): under the `signUp: approval` policy a new account has a row
 * here, `pending` until a moderator approves it (the row goes) or rejects it (`rejected`, with the
 * moderators' reason). An account without a row is in good standing. Owned by the moderation module.
 */
export const accountApproval: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('account_approvals')
      .addColumn('account_id', 'text', (c) => c.primaryKey())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('since', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('account_approvals_waiting').on('account_approvals').columns(['state', 'since']).execute();
  },
};
