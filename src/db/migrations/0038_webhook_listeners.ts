import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Webhook agents whose deliveries go to a `listen` session on the owner's machine instead of their
 * endpoint (docs/cli.md, "agentry listen"): one row per agent, renewed by each of the session's long
 * polls. Past `until` the session is gone and the endpoint gets the deliveries again.
 */
export const webhookListeners: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhook_listeners')
      .addColumn('agent_id', 'text', (c) => c.primaryKey())
      .addColumn('until', 'text', (c) => c.notNull())
      .execute();
  },
};
