import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Bookmarks (a person's private list of posts, newest bookmarked first; they go with the post or the
 * profile) and muted words (a person's words and #tags whose posts leave their feeds and notifications).
 * Owned by the social module.
 */
export const bookmarksMutedWords: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('bookmarks')
      .addColumn('profile_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('post_id', 'text', (c) => c.notNull().references('posts.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('bookmarks_pk', ['profile_id', 'post_id'])
      .execute();
    await db.schema.createIndex('bookmarks_profile_created').on('bookmarks').columns(['profile_id', 'created_at', 'post_id']).execute();
    // The post side of the foreign key: deleting a post finds its bookmarks without a scan.
    await db.schema.createIndex('bookmarks_post').on('bookmarks').column('post_id').execute();

    await db.schema
      .createTable('muted_words')
      .addColumn('profile_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('word', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('muted_words_pk', ['profile_id', 'word'])
      .execute();
  },
};
