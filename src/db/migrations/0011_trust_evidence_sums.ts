import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import { SWEEP_LOCK_CLASS, SWEEP_LOCK_OBJECT } from '../advisory-locks.ts';
import type { Migration } from '../migration.ts';

/**
 * Trust and list totals read sums kept up to date by triggers on `trust_receipts`, instead of
 * aggregating every receipt about a key on each read (115 ms for a key with 100,000 receipts on
 * SQLite; bench/RESULTS.md). Triggers cover every writer: the SQLite insert worker, the batched
 * insert on PostgreSQL, and the benches that seed the table directly.
 *
 *  - `trust_receipt_counts`: receipts per (subject key, task class, kind), for a list's `total`.
 *  - `trust_evidence`: verified outcomes of an issuer about another key, per (subject, class, issuer
 *    key, issuer agent): how many and the sum of their values (what scoring reads; docs/trust.md).
 *  - `trust_evidence_sweep.expired_through`: every receipt that expired at or before this time has
 *    been taken out of `trust_evidence` by the sweep (receipts/evidence-sweep.ts). A read subtracts
 *    the few that expired after it, so trust stays exact between sweeps.
 *
 * On PostgreSQL an insert takes a shared advisory lock and the sweep an exclusive one, so a receipt
 * committed while the sweep moves the watermark is either swept or left for reads to subtract, never
 * missed. The lock is the trigger's first act, before it locks any sum row (the sweep locks only
 * those): no deadlock with the sweep.
 *
 * Only inserts are summed. Receipts are never updated or deleted today; whatever starts to (a
 * retention job, a re-verification) must change the sums in the same transaction.
 */

const EXPIRING_OUTCOMES = `kind = 'outcome' AND signature_verified = 1 AND expires_at IS NOT NULL`;

export const trustEvidenceSums: Migration = {
  async up(db: Kysely<unknown>, dialect: DialectName) {
    const withoutRowid = dialect === 'sqlite' ? ' WITHOUT ROWID' : '';
    const statements = [
      // Nodes still on the old code may be inserting during a rolling deploy: the backfill below and
      // the triggers must see the same rows (the migration runs in one transaction there).
      ...(dialect === 'postgres' ? ['LOCK TABLE trust_receipts IN SHARE ROW EXCLUSIVE MODE'] : []),
      `CREATE TABLE trust_receipt_counts (
         subject_pubkey TEXT NOT NULL, task_class TEXT NOT NULL, kind TEXT NOT NULL, receipts BIGINT NOT NULL,
         PRIMARY KEY (subject_pubkey, task_class, kind))${withoutRowid}`,
      `CREATE TABLE trust_evidence (
         subject_pubkey TEXT NOT NULL, task_class TEXT NOT NULL, issuer_pubkey TEXT NOT NULL, issuer_agent TEXT NOT NULL,
         receipts BIGINT NOT NULL, value_sum DOUBLE PRECISION NOT NULL,
         PRIMARY KEY (subject_pubkey, task_class, issuer_pubkey, issuer_agent))${withoutRowid}`,
      `CREATE TABLE trust_evidence_sweep (id INTEGER PRIMARY KEY CHECK (id = 1), expired_through TEXT NOT NULL)`,
      // '' sorts before every time: until the first sweep, reads subtract every expired receipt.
      `INSERT INTO trust_evidence_sweep (id, expired_through) VALUES (1, '')`,
      `INSERT INTO trust_receipt_counts (subject_pubkey, task_class, kind, receipts)
         SELECT subject_pubkey, task_class, kind, count(*) FROM trust_receipts GROUP BY subject_pubkey, task_class, kind`,
      `INSERT INTO trust_evidence (subject_pubkey, task_class, issuer_pubkey, issuer_agent, receipts, value_sum)
         SELECT subject_pubkey, task_class, issuer_pubkey, issuer_agent, count(*), coalesce(sum(outcome_value), 0) FROM trust_receipts
         WHERE kind = 'outcome' AND signature_verified = 1 AND issuer_pubkey <> subject_pubkey
         GROUP BY subject_pubkey, task_class, issuer_pubkey, issuer_agent`,
      // Scoring no longer reads every outcome; only expiring ones, by subject (reads) and by time (sweep).
      `DROP INDEX trust_receipts_scoring`,
      `CREATE INDEX trust_receipts_expiring_by_subject ON trust_receipts
         (subject_pubkey, expires_at, task_class, issuer_pubkey, issuer_agent, outcome_value) WHERE ${EXPIRING_OUTCOMES}`,
      `CREATE INDEX trust_receipts_expiring ON trust_receipts
         (expires_at, subject_pubkey, task_class, issuer_pubkey, issuer_agent, outcome_value) WHERE ${EXPIRING_OUTCOMES}`,
      ...(dialect === 'postgres' ? postgresTriggers : sqliteTriggers),
    ];
    for (const statement of statements) await sql.raw(statement).execute(db);
  },
};

const countUpsert = `INSERT INTO trust_receipt_counts (subject_pubkey, task_class, kind, receipts) VALUES (NEW.subject_pubkey, NEW.task_class, NEW.kind, 1)
  ON CONFLICT (subject_pubkey, task_class, kind) DO UPDATE SET receipts = trust_receipt_counts.receipts + 1`;

const evidenceUpsert = `INSERT INTO trust_evidence (subject_pubkey, task_class, issuer_pubkey, issuer_agent, receipts, value_sum)
  VALUES (NEW.subject_pubkey, NEW.task_class, NEW.issuer_pubkey, NEW.issuer_agent, 1, coalesce(NEW.outcome_value, 0))
  ON CONFLICT (subject_pubkey, task_class, issuer_pubkey, issuer_agent)
  DO UPDATE SET receipts = trust_evidence.receipts + 1, value_sum = trust_evidence.value_sum + excluded.value_sum`;

/** Weighs in trust: a verified outcome about another key (registration of the issuer is checked on read). */
const counts = (row: string) => `${row}.kind = 'outcome' AND ${row}.signature_verified = 1 AND ${row}.issuer_pubkey <> ${row}.subject_pubkey`;

// SQLite has one writer at a time, so the watermark read in the WHEN clause cannot move before commit.
const sqliteTriggers = [
  `CREATE TRIGGER trust_receipts_count AFTER INSERT ON trust_receipts BEGIN ${countUpsert}; END`,
  `CREATE TRIGGER trust_receipts_evidence AFTER INSERT ON trust_receipts
     WHEN ${counts('NEW')} AND (NEW.expires_at IS NULL OR NEW.expires_at > (SELECT expired_through FROM trust_evidence_sweep))
     BEGIN ${evidenceUpsert}; END`,
];

const postgresTriggers = [
  // The schema's tables, whatever search_path the writer has (a bulk load, a maintenance session).
  `CREATE FUNCTION trust_receipts_summed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
   BEGIN
     PERFORM pg_advisory_xact_lock_shared(${SWEEP_LOCK_CLASS}, ${SWEEP_LOCK_OBJECT});
     ${countUpsert};
     IF ${counts('NEW')} AND (NEW.expires_at IS NULL OR NEW.expires_at > (SELECT expired_through FROM trust_evidence_sweep)) THEN
       ${evidenceUpsert};
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER trust_receipts_summed AFTER INSERT ON trust_receipts FOR EACH ROW EXECUTE FUNCTION trust_receipts_summed()`,
];
