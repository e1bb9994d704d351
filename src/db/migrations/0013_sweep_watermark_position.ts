import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import { SWEEP_LOCK_CLASS, SWEEP_LOCK_OBJECT } from '../advisory-locks.ts';
import type { Migration } from '../migration.ts';

const EXPIRING_OUTCOMES = `kind = 'outcome' AND signature_verified = 1 AND expires_at IS NOT NULL`;

/**
 * The sweep's watermark becomes a position in (expiry, id) order instead of a time. A time could
 * only move past every receipt expiring at that instant at once, so a pass took all the receipts
 * that shared an expiry, however many: anyone can post a million verified receipts that expire at
 * the same round hour, and one pass would then hold the write lock for all of them. With the id
 * beside the time a pass stops after its batch wherever it falls.
 *
 * `expired_through_id` is the id of the last receipt at `expired_through` that has been taken out.
 * Until now every receipt at that time had been (or, inserted later, had never been added), so the
 * last of them in id order becomes the position. The sweep's index gains the id so that it reads
 * receipts in that order. Nodes running older code must be stopped first (docs/trust.md).
 */
export const sweepWatermarkPosition: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const statements = [
      // As a sweep does: no insert or sweep may read the watermark while it is converted.
      ...(dialect === 'postgres' ? [`SELECT pg_advisory_xact_lock(${SWEEP_LOCK_CLASS}, ${SWEEP_LOCK_OBJECT})`] : []),
      `ALTER TABLE trust_evidence_sweep ADD COLUMN expired_through_id TEXT NOT NULL DEFAULT ''`,
      `UPDATE trust_evidence_sweep SET expired_through_id = coalesce(
        (SELECT max(id) FROM trust_receipts WHERE ${EXPIRING_OUTCOMES} AND expires_at = trust_evidence_sweep.expired_through), '')`,
      'DROP INDEX trust_receipts_expiring',
      `CREATE INDEX trust_receipts_expiring ON trust_receipts (expires_at, id) WHERE ${EXPIRING_OUTCOMES}`,
    ];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};
