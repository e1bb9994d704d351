import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * The unique index on trust_receipts.log_index holds logged receipts only. Holding every receipt
 * waiting for the log too, it looked to both planners like a one-row lookup for `log_index IS NULL`:
 * the sequencer's batch read and its marking went through it instead of the partial index of
 * receipts waiting for the log and the primary key, at a cost growing with the backlog.
 */
export const receiptLogIndexPartial: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`DROP INDEX trust_receipts_log_index`.execute(db);
    await sql`CREATE UNIQUE INDEX trust_receipts_log_index ON trust_receipts (log_index) WHERE log_index IS NOT NULL`.execute(db);
  },
};
