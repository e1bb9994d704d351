import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

export const receipts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('trust_receipts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('receipt_id', 'text', (c) => c.notNull().unique())
      .addColumn('correlation_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('task_class', 'text', (c) => c.notNull())
      .addColumn('issuer_agent', 'text', (c) => c.notNull())
      .addColumn('issuer_pubkey', 'text', (c) => c.notNull())
      .addColumn('subject_agent', 'text', (c) => c.notNull())
      .addColumn('subject_pubkey', 'text', (c) => c.notNull())
      .addColumn('issued_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('signature_verified', 'integer', (c) => c.notNull())
      .addColumn('outcome_value', 'real')
      .addColumn('envelope', 'text', (c) => c.notNull())
      .addColumn('received_at', 'text', (c) => c.notNull())
      .execute();

    // Listing by subject (optionally one task class), newest first; ids break ties.
    await db.schema.createIndex('trust_receipts_subject').on('trust_receipts').columns(['subject_pubkey', 'task_class', 'received_at', 'id']).execute();
    await db.schema.createIndex('trust_receipts_subject_recent').on('trust_receipts').columns(['subject_pubkey', 'received_at', 'id']).execute();
    await db.schema.createIndex('trust_receipts_correlation').on('trust_receipts').columns(['correlation_id', 'kind', 'issued_at']).execute();
    // Scoring reads only verified outcomes; this partial index covers the whole aggregate.
    await db.schema
      .createIndex('trust_receipts_scoring')
      .on('trust_receipts')
      .columns(['subject_pubkey', 'task_class', 'issuer_pubkey', 'issuer_agent', 'outcome_value', 'expires_at'])
      .where(sql.ref('signature_verified'), '=', 1)
      .where(sql.ref('kind'), '=', 'outcome')
      .execute();
  },
};
