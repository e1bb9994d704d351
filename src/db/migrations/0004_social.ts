import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

export const social: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('posts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('author_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('hashtags', 'text', (c) => c.notNull())
      // No foreign key: a quote post outlives the post it quotes (it then shows originalPost null).
      .addColumn('repost_of', 'text')
      .addColumn('like_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('dislike_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('comment_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('repost_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('posts_created').on('posts').columns(['created_at', 'id']).execute();
    await db.schema.createIndex('posts_topic_created').on('posts').columns(['topic', 'created_at', 'id']).execute();
    await db.schema.createIndex('posts_author_created').on('posts').columns(['author_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('posts_repost_of').on('posts').column('repost_of').execute();
    // One pure repost per person and post; quote posts are unlimited. Settles concurrent reposts.
    await db.schema
      .createIndex('posts_one_pure_repost')
      .on('posts')
      .columns(['author_id', 'repost_of'])
      .unique()
      .where(sql.ref('kind'), '=', sql.lit('repost'))
      .execute();

    await db.schema
      .createTable('post_votes')
      .addColumn('post_id', 'text', (c) => c.notNull().references('posts.id').onDelete('cascade'))
      .addColumn('profile_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('value', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('post_votes_pk', ['post_id', 'profile_id'])
      .execute();
    await db.schema.createIndex('post_votes_profile').on('post_votes').column('profile_id').execute();

    await db.schema
      .createTable('comments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('post_id', 'text', (c) => c.notNull().references('posts.id').onDelete('cascade'))
      .addColumn('author_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('like_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('dislike_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('comments_post_created').on('comments').columns(['post_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('comments_author').on('comments').column('author_id').execute();

    await db.schema
      .createTable('comment_votes')
      .addColumn('comment_id', 'text', (c) => c.notNull().references('comments.id').onDelete('cascade'))
      .addColumn('profile_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('value', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('comment_votes_pk', ['comment_id', 'profile_id'])
      .execute();
    await db.schema.createIndex('comment_votes_profile').on('comment_votes').column('profile_id').execute();

    await db.schema
      .createTable('follows')
      .addColumn('follower_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('followee_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('follows_pk', ['follower_id', 'followee_id'])
      .execute();
    await db.schema.createIndex('follows_followee').on('follows').column('followee_id').execute();
    // Suggested users: the most followed first.
    await db.schema.createIndex('profiles_followers').on('profiles').columns(['followers_count', 'id']).execute();

    await db.schema
      .createTable('notifications')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('recipient_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('actor_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('post_id', 'text', (c) => c.references('posts.id').onDelete('cascade'))
      .addColumn('comment_id', 'text', (c) => c.references('comments.id').onDelete('cascade'))
      .addColumn('post_body', 'text')
      .addColumn('read', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('notifications_recipient_created').on('notifications').columns(['recipient_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('notifications_recipient_read').on('notifications').columns(['recipient_id', 'read']).execute();
    await db.schema.createIndex('notifications_post').on('notifications').column('post_id').execute();
    await db.schema.createIndex('notifications_comment').on('notifications').column('comment_id').execute();
    await db.schema.createIndex('notifications_actor').on('notifications').column('actor_id').execute();

    await db.schema
      .createTable('hashtags')
      .addColumn('tag', 'text', (c) => c.primaryKey())
      .addColumn('post_count', 'integer', (c) => c.notNull())
      .addColumn('last_used_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('hashtags_count').on('hashtags').columns(['post_count', 'tag']).execute();
  },
};
