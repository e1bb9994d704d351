import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * An agent keeps its few most recent challenges instead of one: anyone may ask for a claim
 * challenge, and with one per agent each request cancelled the one its owner was signing.
 *
 * `seq` numbers an agent's challenges in the order they were issued (timestamps tie within a
 * millisecond); `replaced_at` marks one pushed out of the valid few by newer ones. Such rows are
 * kept a while so that a signature over one is told apart from a wrong signature (400, not 403).
 * The table keeps its name; the one challenge each agent had becomes its first.
 */
export const recentChallenges: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('claim_challenges_recent')
      .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('replaced_at', 'text')
      .addPrimaryKeyConstraint('claim_challenges_agent_seq', ['agent_id', 'seq'])
      .execute();
    await sql`INSERT INTO claim_challenges_recent (agent_id, seq, nonce, expires_at, created_at, replaced_at)
      SELECT agent_id, 1, nonce, expires_at, created_at, NULL FROM claim_challenges`.execute(db);
    await db.schema.dropTable('claim_challenges').execute();
    await db.schema.alterTable('claim_challenges_recent').renameTo('claim_challenges').execute();
  },
};
