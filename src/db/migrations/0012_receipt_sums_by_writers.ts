import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from './index.ts';

/**
 * The sums of migration 0011 are now kept by the writers of receipts, in their insert's transaction
 * (modules/receipts/sums.ts), so the triggers go. On SQLite each trigger made every receipt insert
 * open a statement journal, which nearly doubled its cost.
 *
 * Nodes still on the old code insert without adding to the sums once this has run: a deploy across it
 * stops receipt ingestion on old nodes first (docs/trust.md).
 */
export const receiptSumsByWriters: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const statements =
      dialect === 'postgres'
        ? ['DROP TRIGGER trust_receipts_summed ON trust_receipts', 'DROP FUNCTION trust_receipts_summed()']
        : ['DROP TRIGGER trust_receipts_count', 'DROP TRIGGER trust_receipts_evidence'];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
