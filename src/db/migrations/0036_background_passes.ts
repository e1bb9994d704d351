import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Where nodes sharing one database agree on who runs the next scheduled pass of a background job
 * (src/db/background-passes.ts): one row per job, its last pass's number and when the next is due.
 * Rows are made by the first node that schedules the job.
 */
export const backgroundPasses: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('background_passes')
      .addColumn('job', 'text', (c) => c.primaryKey())
      .addColumn('pass', 'integer', (c) => c.notNull())
      .addColumn('next_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};
