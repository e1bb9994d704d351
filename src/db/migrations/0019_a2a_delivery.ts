import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * A2A delivery: the credential an agent's A2A endpoint wants (sealed with the service's secrets key,
 * never stored in the clear), and on a delivery job the agent's own task id while the service follows
 * a task the agent accepted but has not finished.
 */
export const a2aDelivery: Migration = {
  async up(db: Kysely<unknown>) {
    const statements = ['ALTER TABLE agents ADD COLUMN auth_credential TEXT', 'ALTER TABLE task_deliveries ADD COLUMN remote_task_id TEXT'];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
