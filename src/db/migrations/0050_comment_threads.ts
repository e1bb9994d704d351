import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Threads: a comment may answer another comment of the same post (`parent_id`). No foreign key: when
 * a comment is deleted its replies stay, under a placeholder for the comment they answered.
 */
export const commentThreads: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE comments ADD COLUMN parent_id TEXT`.execute(db);
  },
};
