import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import type { Migration } from '../migration.ts';

const EXPIRING_OUTCOMES = `kind = 'outcome' AND signature_verified = 1 AND expires_at IS NOT NULL`;

/**
 * Two changes that make a receipt's insert cheaper (bench/RESULTS.md, "Trust receipts: ingestion"):
 *
 *  - The sums of migration 0011 are kept by the writers of receipts, in their insert's transaction
 *    (modules/receipts/sums.ts), so the triggers go. On SQLite each trigger made every receipt insert
 *    open a statement journal, which nearly doubled its cost.
 *  - The two indexes over expiring outcomes keep only what finds the rows: (subject, expiry) for a
 *    read's correction, (expiry) for the sweep. Both read the few rows in the window since the last
 *    sweep from the table; covering every grouping column made their entries ~190 bytes, split pages
 *    often and cost a fifth of the WAL pages a receipt writes.
 *
 * Nodes still on the old code insert without adding to the sums once this has run: a deploy across it
 * stops receipt ingestion on old nodes first (docs/trust.md).
 */
export const receiptSumsByWriters: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const statements = [
      ...(dialect === 'postgres'
        ? ['DROP TRIGGER trust_receipts_summed ON trust_receipts', 'DROP FUNCTION trust_receipts_summed()']
        : ['DROP TRIGGER trust_receipts_count', 'DROP TRIGGER trust_receipts_evidence']),
      'DROP INDEX trust_receipts_expiring_by_subject',
      'DROP INDEX trust_receipts_expiring',
      `CREATE INDEX trust_receipts_expiring_by_subject ON trust_receipts (subject_pubkey, expires_at) WHERE ${EXPIRING_OUTCOMES}`,
      `CREATE INDEX trust_receipts_expiring ON trust_receipts (expires_at) WHERE ${EXPIRING_OUTCOMES}`,
    ];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
