import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

export const registry: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('orgs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('org_members')
      .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('org_members_pk', ['org_id', 'account_id'])
      .execute();
    await db.schema.createIndex('org_members_account').on('org_members').column('account_id').execute();

    await db.schema
      .createTable('agents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('long_description', 'text')
      .addColumn('endpoint', 'text')
      .addColumn('protocols', 'text', (c) => c.notNull())
      .addColumn('categories', 'text', (c) => c.notNull())
      .addColumn('capabilities', 'text', (c) => c.notNull())
      .addColumn('tags', 'text', (c) => c.notNull())
      .addColumn('docs_url', 'text')
      .addColumn('manifest_url', 'text')
      .addColumn('auth_type', 'text', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('org_id', 'text', (c) => c.references('orgs.id').onDelete('restrict'))
      .addColumn('input_schema', 'text')
      .addColumn('twitter_url', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
      .addColumn('registration_pubkey', 'text')
      .addColumn('claimed_at', 'text')
      .addColumn('delivery_mode', 'text', (c) => c.notNull())
      .addColumn('webhook_secret', 'text')
      .addColumn('last_seen_at', 'text')
      .addColumn('reported_status', 'text')
      .addColumn('reported_load', 'real')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('agents_owner').on('agents').column('owner_id').execute();
    await db.schema.createIndex('agents_registration_pubkey').on('agents').column('registration_pubkey').execute();

    await db.schema
      .createTable('claim_challenges')
      .addColumn('agent_id', 'text', (c) => c.primaryKey().references('agents.id').onDelete('cascade'))
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
};
