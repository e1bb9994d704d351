/**
 * What every writer of receipts does in its insert's transaction: add the receipts it inserted to the
 * sums trust and list totals read (migration 0011). Two statements per transaction, whatever the
 * number of receipts in it, each taking one parameter: the JSON array of the inserted rows' ids.
 *
 * Until migration 0012 triggers did this, row by row. On SQLite a trigger makes every insert open a
 * statement journal (the insert might fail after the trigger wrote), which spilled to a temporary file
 * once a transaction's journal passed 64 KiB: the insert's CPU nearly doubled, half of it in the
 * kernel (bench/RESULTS.md, "Trust receipts: ingestion"). Statements after the rows journal a few pages once per
 * transaction instead.
 *
 * The same SQL text runs on the SQLite insert worker's own connection (sqlite-insert-worker.ts),
 * and through Kysely for PostgreSQL, the worker's fallback and bulk loads.
 */
import { CompiledQuery, sql, type Insertable } from 'kysely';
import type { Tx } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import { SWEEP_LOCK_CLASS, SWEEP_LOCK_OBJECT } from '../../db/advisory-locks.ts';
import { ownTables } from '../../db/tables.ts';
import type { ReceiptsTables, TrustReceiptsTable } from './tables.ts';

type NewReceiptRow = Insertable<TrustReceiptsTable>;

/** The ids passed as one JSON array: one placeholder whatever their number. */
const insertedIds: Record<DialectName, string> = {
  sqlite: 'SELECT value FROM json_each(?)',
  postgres: 'SELECT jsonb_array_elements_text(CAST($1 AS jsonb))',
};

// Sum rows are written in key order, so two PostgreSQL nodes inserting at once lock them in one order: no deadlock.
const countsSql = (ids: string) => `INSERT INTO trust_receipt_counts (subject_pubkey, task_class, kind, receipts)
  SELECT subject_pubkey, task_class, kind, count(*) FROM trust_receipts
  WHERE id IN (${ids})
  GROUP BY subject_pubkey, task_class, kind
  ORDER BY subject_pubkey, task_class, kind
  ON CONFLICT (subject_pubkey, task_class, kind) DO UPDATE SET receipts = trust_receipt_counts.receipts + excluded.receipts`;

/**
 * Evidence is a verified outcome about another key (whether its issuer is registered is decided on
 * read: an issuer may register later). One at or before the sweep's watermark, a position in
 * (expiry, id) order, would never be swept out again, so it is not added. The test after the
 * watermark is store.ts's afterPosition, spelled in SQL for the insert worker.
 */
const evidenceSql = (ids: string) => `INSERT INTO trust_evidence (subject_pubkey, task_class, issuer_pubkey, issuer_agent, receipts, value_sum)
  SELECT r.subject_pubkey, r.task_class, r.issuer_pubkey, r.issuer_agent, count(*), coalesce(sum(r.outcome_value), 0)
  FROM trust_receipts AS r CROSS JOIN trust_evidence_sweep AS mark
  WHERE r.id IN (${ids})
    AND r.kind = 'outcome' AND r.signature_verified = 1 AND r.issuer_pubkey <> r.subject_pubkey
    AND (r.expires_at IS NULL OR r.expires_at > mark.expired_through OR (r.expires_at = mark.expired_through AND r.id > mark.expired_through_id))
  GROUP BY r.subject_pubkey, r.task_class, r.issuer_pubkey, r.issuer_agent
  ORDER BY r.subject_pubkey, r.task_class, r.issuer_pubkey, r.issuer_agent
  ON CONFLICT (subject_pubkey, task_class, issuer_pubkey, issuer_agent)
  DO UPDATE SET receipts = trust_evidence.receipts + excluded.receipts, value_sum = trust_evidence.value_sum + excluded.value_sum`;

/** The statements, in this dialect's placeholder syntax; each takes the JSON array of inserted ids. */
export const sumStatements = (dialect: DialectName): string[] => [countsSql(insertedIds[dialect]), evidenceSql(insertedIds[dialect])];

/**
 * PostgreSQL: the lock between inserts (shared) and the sweep (exclusive), held to the end of the
 * transaction. The sweep takes it while it moves the watermark, so a receipt committed during a
 * sweep is either swept or left for reads to subtract, never missed (SQLite has one writer at a time
 * and needs none). An insert takes it as its first act: taken any later, an insert holding receiptId
 * entries could wait for it behind a sweep that waits for another insert, a deadlock.
 */
export async function takeSweepLock(tx: Tx, dialect: DialectName, mode: 'shared' | 'exclusive'): Promise<void> {
  if (dialect !== 'postgres') return;
  const lock = mode === 'shared' ? sql.raw('pg_advisory_xact_lock_shared') : sql.raw('pg_advisory_xact_lock');
  await sql`SELECT ${lock}(${sql.lit(SWEEP_LOCK_CLASS)}, ${sql.raw(SWEEP_LOCK_OBJECT)})`.execute(tx);
}

/** Adds receipts this transaction inserted (row ids) to the sums. */
async function addToSums(tx: Tx, dialect: DialectName, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const parameters = [JSON.stringify(ids)];
  for (const statement of sumStatements(dialect)) await tx.executeQuery(CompiledQuery.raw(statement, parameters));
}

/**
 * A batch is inserted in receiptId order, so two PostgreSQL nodes inserting the same receipts lock
 * their receiptId entries in one order (and then their sum rows in one order, above): no deadlock.
 */
const byReceiptId = (a: NewReceiptRow, b: NewReceiptRow) => (a.receipt_id < b.receipt_id ? -1 : a.receipt_id > b.receipt_id ? 1 : 0);

/**
 * Inserts receipts and adds them to the sums, in this order, as the whole of a transaction that
 * writes receipts through Kysely (PostgreSQL's batches, the SQLite worker's fallback, bulk loads).
 * A receipt whose receiptId is already stored is skipped. Answers the row ids inserted.
 */
export async function insertReceipts(tx: Tx, dialect: DialectName, rows: NewReceiptRow[]): Promise<Set<string>> {
  await takeSweepLock(tx, dialect, 'shared');
  const inserted = await ownTables<ReceiptsTables>(tx)
    .insertInto('trust_receipts')
    .values([...rows].sort(byReceiptId))
    .onConflict((oc) => oc.column('receipt_id').doNothing())
    .returning('id')
    .execute();
  const ids = inserted.map((row) => row.id);
  await addToSums(tx, dialect, ids);
  return new Set(ids);
}
