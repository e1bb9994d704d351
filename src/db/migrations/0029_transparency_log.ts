import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

/**
 * Transparency logs (modules/tlog): logs, their keys, entries and stored Merkle hashes; and each
 * verified receipt's place in the receipt log. Receipts already stored have none yet: the receipt
 * sequencer appends every verified receipt waiting without one, in received order, so the first
 * start after this migration logs them all.
 */
export const transparencyLog: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const bytes = dialect === 'postgres' ? 'bytea' : 'blob';
    const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable('tlog_logs')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('origin', 'text', (c) => c.notNull())
      .addColumn('size', bigint, (c) => c.notNull())
      .addColumn('root', bytes, (c) => c.notNull())
      .addColumn('checkpoint', 'text', (c) => c.notNull())
      .addColumn('signed_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('tlog_keys')
      .addColumn('log', 'text', (c) => c.notNull())
      .addColumn('verifier_key', 'text', (c) => c.notNull())
      .addColumn('sealed_seed', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('retired_at', 'text')
      .addPrimaryKeyConstraint('tlog_keys_pk', ['log', 'verifier_key'])
      .execute();
    // One signing key per log at a time.
    await sql`CREATE UNIQUE INDEX tlog_keys_active ON tlog_keys (log) WHERE retired_at IS NULL`.execute(db);
    for (const [table, column] of [
      ['tlog_hashes', 'hash'],
      ['tlog_entries', 'data'],
    ] as const) {
      await db.schema
        .createTable(table)
        .addColumn('log', 'text', (c) => c.notNull())
        .addColumn('idx', bigint, (c) => c.notNull())
        .addColumn(column, bytes, (c) => c.notNull())
        .addPrimaryKeyConstraint(`${table}_pk`, ['log', 'idx'])
        .execute();
    }
    await sql.raw(`ALTER TABLE trust_receipts ADD COLUMN log_index ${bigint}`).execute(db);
    await sql`CREATE UNIQUE INDEX trust_receipts_log_index ON trust_receipts (log_index)`.execute(db);
    // The sequencer's queue: verified receipts not yet logged, in received order.
    await sql`CREATE INDEX trust_receipts_log_pending ON trust_receipts (received_at, id) WHERE signature_verified = 1 AND log_index IS NULL`.execute(db);
  },
};
