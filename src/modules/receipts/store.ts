import { type Insertable, type Selectable } from 'kysely';
import { createBatcher } from '../../db/batcher.ts';
import type { Db } from '../../db/database.ts';
import { createSqliteInsert, type InsertOutcome as GenericInsertOutcome } from '../../db/sqlite-insert.ts';
import type { TrustReceiptsTable } from '../../db/schema.ts';
import type { IssuerEvidence, RegisteredIssuer, RegisteredKeys } from './trust.ts';

export type ReceiptRow = Selectable<TrustReceiptsTable>;
export type NewReceiptRow = Insertable<TrustReceiptsTable>;

export interface ReceiptFilter {
  subjectPubkey?: string;
  correlationId?: string;
  taskClass?: string;
  kind?: string;
}

export type InsertOutcome = GenericInsertOutcome<NewReceiptRow, ReceiptRow>;

export interface ReceiptsStoreOptions {
  /** The SQLite database file: receipts are then inserted from a worker thread (db/sqlite-insert.ts). */
  sqliteFile?: string | null;
  onInsertWorkerError?(error: unknown): void;
}

export function createReceiptsStore(db: Db, { sqliteFile = null, onInsertWorkerError }: ReceiptsStoreOptions = {}) {
  const filtered = (filter: ReceiptFilter) => {
    let query = db.selectFrom('trust_receipts');
    if (filter.subjectPubkey) query = query.where('subject_pubkey', '=', filter.subjectPubkey);
    if (filter.correlationId) query = query.where('correlation_id', '=', filter.correlationId);
    if (filter.taskClass) query = query.where('task_class', '=', filter.taskClass);
    if (filter.kind) query = query.where('kind', '=', filter.kind as ReceiptRow['kind']);
    return query;
  };

  /**
   * Inserts many receipts in one transaction. A receipt whose receiptId is already stored (earlier,
   * or earlier in the same batch) is not written; its stored row comes back for comparison.
   */
  async function insertHere(rows: NewReceiptRow[]): Promise<InsertOutcome[]> {
    return db.transaction().execute(async (tx) => {
      const inserted = await tx
        .insertInto('trust_receipts')
        .values(rows)
        .onConflict((oc) => oc.column('receipt_id').doNothing())
        .returning('id')
        .execute();
      const insertedIds = new Set(inserted.map((row) => row.id));
      const missing = rows.filter((row) => !insertedIds.has(row.id)).map((row) => row.receipt_id);
      const existing = missing.length > 0 ? await tx.selectFrom('trust_receipts').selectAll().where('receipt_id', 'in', missing).execute() : [];
      const existingByReceiptId = new Map(existing.map((row) => [row.receipt_id, row]));
      return rows.map((row): InsertOutcome => {
        if (insertedIds.has(row.id)) return { inserted: true, row };
        const stored = existingByReceiptId.get(row.receipt_id);
        if (!stored) throw new Error(`receipt ${row.receipt_id} neither inserted nor found`);
        return { inserted: false, existing: stored };
      });
    });
  }

  const offThread = sqliteFile
    ? createSqliteInsert<NewReceiptRow, ReceiptRow>({ path: sqliteFile, table: 'trust_receipts', uniqueColumn: 'receipt_id', fallback: insertHere, onWorkerError: onInsertWorkerError })
    : null;

  return {
    /** Stores a receipt, or answers the one already stored under its receiptId; concurrent calls share a commit. */
    insert: offThread ? offThread.insert : createBatcher(insertHere),
    close: async () => offThread?.close(),

    async list(filter: ReceiptFilter, limit: number, offset: number) {
      const [rows, count] = await Promise.all([
        filtered(filter).selectAll().orderBy('received_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
        filtered(filter).select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.total) };
    },

    /**
     * The earliest verified receipt of one kind in a flow. One query per kind, so receipts of one
     * kind (anyone may post many: correlation ids are not secret) can never crowd out another.
     */
    earliestVerified: (correlationId: string, kind: ReceiptRow['kind']) =>
      db
        .selectFrom('trust_receipts')
        .selectAll()
        .where('correlation_id', '=', correlationId)
        .where('kind', '=', kind)
        .where('signature_verified', '=', 1)
        .orderBy('issued_at')
        .orderBy('received_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst(),

    /** Verified, unexpired outcome evidence about the given keys, summed per issuer key and class. */
    async evidenceAbout(subjectPubkeys: string[], now: string): Promise<Map<string, IssuerEvidence[]>> {
      const result = new Map<string, IssuerEvidence[]>();
      if (subjectPubkeys.length === 0) return result;
      const rows = await db
        .selectFrom('trust_receipts')
        .select((eb) => [
          'subject_pubkey',
          'task_class',
          'issuer_pubkey',
          'issuer_agent',
          eb.fn.countAll<number | string>().as('receipts'),
          eb.fn.sum<number | string>('outcome_value').as('value_sum'),
        ])
        .where('subject_pubkey', 'in', subjectPubkeys)
        .where('kind', '=', 'outcome')
        .where('signature_verified', '=', 1)
        .where((eb) => eb('issuer_pubkey', '<>', eb.ref('subject_pubkey')))
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .groupBy(['subject_pubkey', 'task_class', 'issuer_pubkey', 'issuer_agent'])
        .execute();
      for (const row of rows) {
        const list = result.get(row.subject_pubkey) ?? [];
        list.push({ taskClass: row.task_class, issuerPubkey: row.issuer_pubkey, issuerAgent: row.issuer_agent, receipts: Number(row.receipts), valueSum: Number(row.value_sum) });
        result.set(row.subject_pubkey, list);
      }
      return result;
    },

    /** Registered agents holding any of these keys: the candidates for "a registered issuer". */
    async agentsWithKeys(pubkeys: string[]): Promise<RegisteredKeys> {
      const byKey = new Map<string, RegisteredIssuer[]>();
      if (pubkeys.length === 0) return byKey;
      const rows = await db.selectFrom('agents').select(['id', 'slug', 'owner_id', 'registration_pubkey']).where('registration_pubkey', 'in', pubkeys).execute();
      for (const row of rows) {
        const pubkey = row.registration_pubkey as string;
        const agents = byKey.get(pubkey) ?? [];
        agents.push({ id: row.id, slug: row.slug, ownerId: row.owner_id, pubkey });
        byKey.set(pubkey, agents);
      }
      return byKey;
    },
  };
}

export type ReceiptsStore = ReturnType<typeof createReceiptsStore>;
