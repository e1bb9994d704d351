import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * The person answerable for an upload: its uploader, or the owner of the agent whose key uploaded it.
 * The quota is summed, and uploads are listed and deleted, per person, so an agent's uploads count in
 * its owner's quota and its owner sees them.
 */
export const mediaPerson: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('media')
      .addColumn('person_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
      .execute();
    await sql`UPDATE media SET person_id = COALESCE((SELECT owner_account_id FROM accounts WHERE accounts.id = media.owner_id), owner_id)`.execute(db);
    await db.schema.createIndex('media_person_created').on('media').columns(['person_id', 'created_at', 'id']).execute();
  },
};
