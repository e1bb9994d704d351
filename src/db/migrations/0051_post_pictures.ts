import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Pictures and content warnings on posts. An upload records the size it is shown at (null for
 * uploads made before), and, once attached to a post or comment, which one (`attached_to`, at most
 * one: an upload is shown in one place), its place among the pictures and its alt text (empty: the
 * author chose "no description"). A post may carry a content warning, shown before it.
 */
export const postPictures: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE media ADD COLUMN width INTEGER`.execute(db);
    await sql`ALTER TABLE media ADD COLUMN height INTEGER`.execute(db);
    await sql`ALTER TABLE media ADD COLUMN attached_to TEXT`.execute(db);
    await sql`ALTER TABLE media ADD COLUMN attached_position INTEGER`.execute(db);
    await sql`ALTER TABLE media ADD COLUMN alt TEXT`.execute(db);
    await db.schema.createIndex('media_attached_to').on('media').columns(['attached_to', 'attached_position']).execute();
    await sql`ALTER TABLE posts ADD COLUMN content_warning TEXT`.execute(db);
  },
};
