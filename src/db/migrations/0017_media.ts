import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Uploaded images, kept in the database so every node serves every upload. `bytes` is the size,
 * summed per owner for the quota without reading the data.
 */
export const media: Migration = {
  async up(db: Kysely<unknown>, dialect) {
    await db.schema
      .createTable('media')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('owner_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('bytes', 'integer', (c) => c.notNull())
      .addColumn('data', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('media_owner_created').on('media').columns(['owner_id', 'created_at', 'id']).execute();
  },
};
