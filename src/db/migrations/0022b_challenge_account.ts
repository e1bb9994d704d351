import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * The account a claim challenge was issued to (null: asked for without a credential). An account's
 * challenges are kept apart from everyone else's, so no one can replace the ones its owner is signing.
 */
export const challengeAccount: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('claim_challenges').addColumn('account_id', 'text').execute();
    await db.schema.createIndex('claim_challenges_agent_account').on('claim_challenges').columns(['agent_id', 'account_id', 'seq']).execute();
  },
};
