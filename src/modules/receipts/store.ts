import { sql, type Expression, type SqlBool, type ExpressionBuilder, type Insertable, type Kysely, type Selectable } from 'kysely';
import { createBatcher } from '../../db/batcher.ts';
import type { Db, Tx } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import { ownTables } from '../../db/tables.ts';
import { isUuid } from '../../lib/ids.ts';
import type { AgentKeysReadModel } from '../registry/index.ts';
import type { TaskBindingReadModel } from '../tasks/index.ts';
import type { AccountAgentReadModel } from '../auth/index.ts';
import type { ProfileNamesReadModel } from '../users/index.ts';
import { taskClassOf } from '../catalog/index.ts';
import { createSqliteInsert, type InsertOutcome as GenericInsertOutcome } from './sqlite-insert.ts';
import type { ReceiptsTables, TrustReceiptsTable } from './tables.ts';
import { insertReceipts, sumStatements, takeSweepLock } from './sums.ts';
import type { BoundCandidate, IssuerEvidence, RegisteredIssuer, RegisteredKeys, TaskOfReceipt } from './trust.ts';

export type ReceiptRow = Selectable<TrustReceiptsTable>;
export type NewReceiptRow = Insertable<TrustReceiptsTable>;

export interface ReceiptFilter {
  subjectPubkey?: string;
  correlationId?: string;
  taskClass?: string;
  kind?: string;
  /** The names the subject may go by in `subject.agent` (an agent's id and slug): one agent among those sharing its key. */
  subjectAgents?: string[];
}

export type InsertOutcome = GenericInsertOutcome<NewReceiptRow, ReceiptRow>;

/** A stored receipt as the API shows it: its envelope as received, and what the service found. */
export interface StoredReceipt {
  envelope: Record<string, unknown>;
  issuerPubkey: string;
  issuerAgent: string;
  signatureVerified: boolean;
  receivedAt: string;
}

const storedReceiptOf = (row: ReceiptRow): StoredReceipt => ({
  envelope: JSON.parse(row.envelope) as Record<string, unknown>,
  issuerPubkey: row.issuer_pubkey,
  issuerAgent: row.issuer_agent,
  signatureVerified: row.signature_verified === 1,
  receivedAt: row.received_at,
});

export interface ReceiptsStoreOptions {
  /** Required: on PostgreSQL inserts and the sweep take a lock between them (sums.ts). */
  dialect: DialectName;
  /** The SQLite database file: receipts are then inserted from a worker thread (sqlite-insert.ts). */
  sqliteFile?: string | null;
  onInsertWorkerError?(error: unknown): void;
  /** How long the insert worker may sit idle before it stops (default IDLE_WORKER_STOP_MS). */
  idleWorkerStopMs?: number;
}

/**
 * What this store sees: its own tables, which agents hold which registration key (the registry's
 * read model), of tasks and accounts what binds a receipt to a task, and the people's usernames.
 */
type StoreTables = ReceiptsTables & AgentKeysReadModel & TaskBindingReadModel & AccountAgentReadModel & ProfileNamesReadModel;

const parseCapabilities = (text: string): string[] => {
  try {
    const list: unknown = JSON.parse(text);
    return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
};

/**
 * Whether `issuer` (a key column) is one of the requester's keys: the key of an agent the requester's
 * account owns, of the agent the account is (an agent's service account), or a signing key the account
 * registered. `requester` is a column holding the requester's account id.
 */
const isRequesterKey = (issuer: Expression<string>, requester: Expression<string>) =>
  sql<SqlBool>`(EXISTS (SELECT 1 FROM agents owned WHERE owned.registration_pubkey = ${issuer} AND owned.owner_id = ${requester})
    OR EXISTS (SELECT 1 FROM accounts service JOIN agents itself ON itself.id = service.agent_id
               WHERE service.id = ${requester} AND itself.registration_pubkey = ${issuer})
    OR EXISTS (SELECT 1 FROM account_signing_keys signing WHERE signing.pubkey = ${issuer} AND signing.account_id = ${requester}))`;

/** What the maintained evidence sums are grouped by. */
const EVIDENCE_KEY = ['subject_pubkey', 'task_class', 'issuer_pubkey', 'issuer_agent'] as const;

/** The receipt sequencer's next batch: verified receipts not yet logged, in received order. */
const unloggedQuery = (db: Kysely<StoreTables>, limit: number) =>
  db
    .selectFrom('trust_receipts')
    .select(['id', 'envelope'])
    .where('signature_verified', '=', 1)
    .where('log_index', 'is', null)
    .orderBy('received_at')
    .orderBy('id')
    .limit(limit);

/**
 * Gives receipts their log indexes, `ids` in log order from `firstIndex`, unless already logged. A
 * VALUES list names its columns column1, column2 on both engines.
 */
const markLoggedQuery = (ids: string[], firstIndex: number) =>
  sql`UPDATE trust_receipts SET log_index = v.column2
    FROM (VALUES ${sql.join(ids.map((id, i) => sql`(${id}, CAST(${firstIndex + i} AS BIGINT))`))}) AS v
    WHERE trust_receipts.id = v.column1 AND trust_receipts.log_index IS NULL`;

/**
 * Receipts that count in trust and carry an expiry: what the partial indexes of migrations 0012 and
 * 0013 hold. SQLite matches `column = ?` to a partial index's condition by the bound value (it
 * re-plans the statement when that value changes); an `in (?, ?)` list it cannot match.
 */
const expiringOutcomes = (db: Kysely<StoreTables>) =>
  db
    .selectFrom('trust_receipts')
    .where('kind', '=', 'outcome')
    .where('signature_verified', '=', 1)
    .where('expires_at', 'is not', null)
    .where((eb) => eb('issuer_pubkey', '<>', eb.ref('subject_pubkey')));

type ReceiptsWhere = ExpressionBuilder<StoreTables, 'trust_receipts'>;
type Position = { time: string | Expression<string>; id: string | Expression<string> };

/**
 * Receipts after a position in (expiry, id) order, the sweep's watermark. Written as a range on
 * expiry plus a filter, so both expiry indexes are range-scanned from the position's time (sums.ts
 * spells the same test in SQL for the insert worker).
 */
const afterPosition =
  ({ time, id }: Position) =>
  (eb: ReceiptsWhere) =>
    eb.and([eb('expires_at', '>=', time), eb.or([eb('expires_at', '>', time), eb('trust_receipts.id', '>', id)])]);

/** Receipts at or before a position in (expiry, id) order. */
const atOrBeforePosition =
  ({ time, id }: Position) =>
  (eb: ReceiptsWhere) =>
    eb.and([eb('expires_at', '<=', time), eb.or([eb('expires_at', '<', time), eb('trust_receipts.id', '<=', id)])]);

/** Receipts expired by `now` that the sweep has not yet taken out of the sums, after its watermark `mark`. */
const outstandingExpiries = (db: Kysely<StoreTables>, mark: Position, now: string) =>
  expiringOutcomes(db).where(afterPosition(mark)).where('expires_at', '<=', now);

/** The sweep's first read: where a pass of `limit` receipts after the watermark ends. */
const sweepBatchEnd = (db: Kysely<StoreTables>, mark: Position, now: string, limit: number) =>
  outstandingExpiries(db, mark, now)
    .select(['expires_at', 'id'])
    .orderBy('expires_at')
    .orderBy('id')
    .limit(1)
    .offset(limit - 1);

/** How many issuers an explanation lists at most, registered or not (a flood of fresh keys must not make it unbounded). */
export const EXPLAINED_ISSUERS = 500;

export function createReceiptsStore(database: Db, { dialect, sqliteFile = null, onInsertWorkerError, idleWorkerStopMs }: ReceiptsStoreOptions) {
  const db = ownTables<StoreTables>(database);
  const filtered = (filter: ReceiptFilter) => {
    let query = db.selectFrom('trust_receipts');
    if (filter.subjectPubkey) query = query.where('subject_pubkey', '=', filter.subjectPubkey);
    if (filter.correlationId) query = query.where('correlation_id', '=', filter.correlationId);
    if (filter.taskClass) query = query.where('task_class', '=', filter.taskClass);
    if (filter.kind) query = query.where('kind', '=', filter.kind as ReceiptRow['kind']);
    // An agent that does not exist is named by no receipt (and `in ()` is no SQL on PostgreSQL).
    if (filter.subjectAgents)
      query = filter.subjectAgents.length > 0 ? query.where('subject_agent', 'in', filter.subjectAgents) : query.where(sql<boolean>`1 = 0`);
    return query;
  };

  /**
   * A list's `total`. About a subject alone, from the counts kept on insert (a key may have
   * hundreds of thousands of receipts); a flow, or one agent among those sharing a key, is counted
   * from its rows.
   */
  async function countOf(filter: ReceiptFilter): Promise<number> {
    if (filter.subjectPubkey && !filter.correlationId && !filter.subjectAgents) {
      let query = db.selectFrom('trust_receipt_counts').where('subject_pubkey', '=', filter.subjectPubkey);
      if (filter.taskClass) query = query.where('task_class', '=', filter.taskClass);
      if (filter.kind) query = query.where('kind', '=', filter.kind as ReceiptRow['kind']);
      const { total } = await query.select((eb) => eb.fn.sum<number | string | null>('receipts').as('total')).executeTakeFirstOrThrow();
      return Number(total ?? 0);
    }
    const { total } = await filtered(filter)
      .select((eb) => eb.fn.countAll<number | string>().as('total'))
      .executeTakeFirstOrThrow();
    return Number(total);
  }

  /**
   * Inserts many receipts in one transaction. A receipt whose receiptId is already stored (earlier,
   * or earlier in the same batch) is not written; its stored row comes back for comparison.
   */
  async function insertHere(rows: NewReceiptRow[]): Promise<InsertOutcome[]> {
    return database.transaction().execute(async (whole) => {
      const insertedIds = await insertReceipts(whole, dialect, rows);
      const tx = ownTables<StoreTables>(whole);
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
    ? createSqliteInsert<NewReceiptRow, ReceiptRow>({
        path: sqliteFile,
        table: 'trust_receipts',
        uniqueColumn: 'receipt_id',
        idColumn: 'id',
        afterInsert: sumStatements('sqlite'),
        fallback: insertHere,
        onWorkerError: onInsertWorkerError,
        ...(idleWorkerStopMs !== undefined ? { idleStopMs: idleWorkerStopMs } : {}),
      })
    : null;

  return {
    /** The query the evidence sweep starts each pass with, compiled, for the test that reads its plan. */
    backgroundQueries: (now: string) => ({
      sweepBatchEnd: sweepBatchEnd(db, { time: '1970-01-01T00:00:00.000Z', id: '' }, now, 2_000).compile(),
      sequencerBatch: unloggedQuery(db, 1_000).compile(),
      sequencerMark: markLoggedQuery(
        Array.from({ length: 1_000 }, (_, i) => `receipt-${i}`),
        0,
      ).compile(db),
    }),

    /** Stores a receipt, or answers the one already stored under its receiptId; concurrent calls share a commit. */
    insert: offThread ? offThread.insert : createBatcher(insertHere),
    close: async () => offThread?.close(),

    async list(filter: ReceiptFilter, limit: number, offset: number): Promise<{ receipts: StoredReceipt[]; total: number }> {
      const [rows, total] = await Promise.all([
        filtered(filter).selectAll().orderBy('received_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
        countOf(filter),
      ]);
      return { receipts: rows.map(storedReceiptOf), total };
    },

    /**
     * The earliest verified receipt of one kind in a flow. One query per kind, so receipts of one
     * kind (anyone may post many: correlation ids are not secret) can never crowd out another.
     */
    earliestVerified: async (correlationId: string, kind: ReceiptRow['kind']): Promise<StoredReceipt | undefined> => {
      const row = await db
        .selectFrom('trust_receipts')
        .selectAll()
        .where('correlation_id', '=', correlationId)
        .where('kind', '=', kind)
        .where('signature_verified', '=', 1)
        .orderBy('issued_at')
        .orderBy('received_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      return row && storedReceiptOf(row);
    },

    /**
     * Verified, unexpired outcome evidence from registered keys about the given keys, summed per
     * issuer key and class: the maintained sums (migration 0011) less what expired since the last
     * sweep. One statement, so the sums and the watermark come from one snapshot. Which registered
     * agent an issuer is, and whether it counts, is decided by the caller (trust.ts).
     */
    async evidenceAbout(subjectPubkeys: string[], now: string, options: { unregistered?: boolean } = {}): Promise<Map<string, IssuerEvidence[]>> {
      const result = new Map<string, IssuerEvidence[]>();
      if (subjectPubkeys.length === 0) return result;
      const watermark = {
        time: db.selectFrom('trust_evidence_sweep').select('expired_through').$asScalar(),
        id: db.selectFrom('trust_evidence_sweep').select('expired_through_id').$asScalar(),
      };
      const expiredSinceSweep = expiringOutcomes(db)
        .select((eb) => [...EVIDENCE_KEY, eb.fn.countAll<number | string>().as('receipts'), eb.fn.sum<number | string>('outcome_value').as('value_sum')])
        .where('subject_pubkey', 'in', subjectPubkeys)
        .where(afterPosition(watermark))
        .where('expires_at', '<=', now)
        .groupBy(EVIDENCE_KEY)
        .as('expired');
      const rows = await db
        .selectFrom('trust_evidence as sums')
        .leftJoin(expiredSinceSweep, (join) =>
          join
            .onRef('expired.subject_pubkey', '=', 'sums.subject_pubkey')
            .onRef('expired.task_class', '=', 'sums.task_class')
            .onRef('expired.issuer_pubkey', '=', 'sums.issuer_pubkey')
            .onRef('expired.issuer_agent', '=', 'sums.issuer_agent'),
        )
        .select(['sums.subject_pubkey', 'sums.task_class', 'sums.issuer_pubkey', 'sums.issuer_agent', 'sums.receipts', 'sums.value_sum'])
        .select(['expired.receipts as expired_receipts', 'expired.value_sum as expired_value_sum'])
        .where('sums.subject_pubkey', 'in', subjectPubkeys)
        // Receipts from keys no agent registered weigh nothing, and anyone can mint such keys by the
        // thousand: filtered here, per row by index, so a flood of them costs a read nothing.
        // Account signing keys (migration 0033) are registered issuers as well. An explanation asks
        // for the others, the largest first and a bounded number of them.
        .where(({ exists, selectFrom, or, not }) => {
          const registered = or([
            exists(selectFrom('agents').select('agents.id').whereRef('agents.registration_pubkey', '=', 'sums.issuer_pubkey')),
            exists(selectFrom('account_signing_keys').select('account_signing_keys.id').whereRef('account_signing_keys.pubkey', '=', 'sums.issuer_pubkey')),
          ]);
          return options.unregistered ? not(registered) : registered;
        })
        .$if(options.unregistered === true, (query) => query.orderBy('sums.receipts', 'desc').limit(EXPLAINED_ISSUERS))
        .execute();
      for (const row of rows) {
        const receipts = Number(row.receipts) - Number(row.expired_receipts ?? 0);
        if (receipts <= 0) continue;
        const list = result.get(row.subject_pubkey) ?? [];
        list.push({
          taskClass: row.task_class,
          issuerPubkey: row.issuer_pubkey,
          issuerAgent: row.issuer_agent,
          receipts,
          valueSum: row.value_sum - Number(row.expired_value_sum ?? 0),
        });
        result.set(row.subject_pubkey, list);
      }
      return result;
    },

    /**
     * Takes receipts that expired after the watermark, up to `now`, out of the sums and moves the
     * watermark to the last of them: at most `limit` receipts a pass (the pass holds the write
     * lock). Answers whether receipts expired by `now` may be left for another pass.
     */
    async sweepExpiredEvidence(now: string, limit: number) {
      if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`sweep limit must be a positive integer, not ${limit}`);
      return database.transaction().execute(async (whole) => {
        await takeSweepLock(whole, dialect, 'exclusive');
        const tx = ownTables<StoreTables>(whole);
        const mark = await tx.selectFrom('trust_evidence_sweep').select(['expired_through', 'expired_through_id']).executeTakeFirstOrThrow();
        // The watermark only ever moves to a receipt found here, after it: never back, even when
        // this node's clock is behind the one that last moved it (the receipts between would be
        // subtracted twice).
        const position = { time: mark.expired_through, id: mark.expired_through_id };
        const outstanding = () => outstandingExpiries(tx, position, now);
        const limitReached = await sweepBatchEnd(tx, position, now, limit).executeTakeFirst();
        const last =
          limitReached ?? (await outstanding().select(['expires_at', 'id']).orderBy('expires_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst());
        if (!last) return { more: false };
        const through = { time: last.expires_at!, id: last.id };
        const swept = () => outstanding().where(atOrBeforePosition(through));
        const groups = swept()
          .select((eb) => [...EVIDENCE_KEY, eb.fn.countAll<number | string>().as('receipts'), eb.fn.sum<number>('outcome_value').as('value_sum')])
          .groupBy(EVIDENCE_KEY)
          .as('expired');
        await tx
          .updateTable('trust_evidence')
          .from(groups)
          .set((eb) => ({
            receipts: eb('trust_evidence.receipts', '-', eb.ref('expired.receipts')),
            value_sum: eb('trust_evidence.value_sum', '-', eb.fn.coalesce('expired.value_sum', sql.lit(0))),
          }))
          .whereRef('trust_evidence.subject_pubkey', '=', 'expired.subject_pubkey')
          .whereRef('trust_evidence.task_class', '=', 'expired.task_class')
          .whereRef('trust_evidence.issuer_pubkey', '=', 'expired.issuer_pubkey')
          .whereRef('trust_evidence.issuer_agent', '=', 'expired.issuer_agent')
          .execute();
        await tx.deleteFrom('trust_evidence').where('receipts', '<=', 0).where('subject_pubkey', 'in', swept().select('subject_pubkey')).execute();
        await tx.updateTable('trust_evidence_sweep').set({ expired_through: through.time, expired_through_id: through.id }).execute();
        return { more: limitReached !== undefined };
      });
    },

    /** Verified receipts not yet in the receipt log, in received order: the sequencer's next batch. */
    unlogged: (tx: Tx, limit: number): Promise<{ id: string; envelope: string }[]> => unloggedQuery(ownTables<StoreTables>(tx), limit).execute(),

    /** Records the log indexes given to receipts (ids in log order from `firstIndex`), in one statement. */
    async markLogged(tx: Tx, ids: string[], firstIndex: number): Promise<void> {
      if (ids.length === 0) return;
      const { numAffectedRows } = await markLoggedQuery(ids, firstIndex).execute(tx);
      if (Number(numAffectedRows) !== ids.length) throw new Error(`receipt log: ${ids.length} receipts sequenced but ${String(numAffectedRows)} marked`);
    },

    /** A receipt by the service's id or the issuer's receiptId: whether it verified, its log index, and its stored text (the log entry). */
    async logPosition(idOrReceiptId: string): Promise<{ verified: boolean; logIndex: number | null; envelope: string } | undefined> {
      const key = idOrReceiptId.toLowerCase();
      const row = await db
        .selectFrom('trust_receipts')
        .select(['signature_verified', 'log_index', 'envelope'])
        .where((eb) => eb.or([eb('id', '=', idOrReceiptId), eb('receipt_id', '=', key)]))
        .executeTakeFirst();
      return row && { verified: row.signature_verified === 1, logIndex: row.log_index === null ? null : Number(row.log_index), envelope: row.envelope };
    },

    /**
     * Verified, unexpired outcomes about these keys that may be bound to tasks: their correlation id
     * is a finished task assigned to an agent under the receipt's subject key, and their issuer is
     * one of the requester's keys (filtered here, so a flood from other keys costs nothing). Read
     * from the tasks each key took (an index range per agent), bounded by real work. Whether each
     * binds is for `taskBinding` to say.
     */
    async boundCandidates(subjectPubkeys: string[], now: string): Promise<Map<string, BoundCandidate[]>> {
      const result = new Map<string, BoundCandidate[]>();
      if (subjectPubkeys.length === 0) return result;
      const rows = await db
        .selectFrom('agents as taker')
        .innerJoin('tasks', 'tasks.assigned_agent_id', 'taker.id')
        .innerJoin('trust_receipts as r', (join) => join.onRef('r.correlation_id', '=', 'tasks.id').onRef('r.subject_pubkey', '=', 'taker.registration_pubkey'))
        .select([
          'r.receipt_id',
          'r.correlation_id',
          'r.task_class',
          'r.issuer_pubkey',
          'r.issuer_agent',
          'r.subject_pubkey',
          'r.issued_at',
          'r.outcome_value',
          'tasks.status',
          'tasks.task_class as requested_class',
          'taker.capabilities',
          'taker.key_verified_at',
        ])
        .where('taker.registration_pubkey', 'in', subjectPubkeys)
        .where('tasks.status', 'in', ['completed', 'failed'])
        .where('r.kind', '=', 'outcome')
        .where('r.signature_verified', '=', 1)
        .where((eb) => eb.or([eb('r.expires_at', 'is', null), eb('r.expires_at', '>', now)]))
        .where(isRequesterKey(sql.ref('r.issuer_pubkey'), sql.ref('tasks.requester_id')))
        .execute();
      for (const row of rows) {
        const list = result.get(row.subject_pubkey) ?? [];
        list.push({
          receiptId: row.receipt_id,
          correlationId: row.correlation_id,
          taskClass: row.task_class,
          issuerPubkey: row.issuer_pubkey,
          issuerAgent: row.issuer_agent,
          issuedAt: row.issued_at,
          value: Number(row.outcome_value ?? 0),
          task: {
            status: row.status,
            agentPubkey: row.subject_pubkey,
            agentKeyProven: row.key_verified_at !== null,
            issuerIsRequester: true,
            taskClass: taskClassOf(row.requested_class, parseCapabilities(row.capabilities)),
          },
        });
        result.set(row.subject_pubkey, list);
      }
      return result;
    },

    /** The task a receipt's correlation id names, as it matters to that receipt's issuer (undefined: no such task). */
    async taskOfReceipt(correlationId: string, issuerPubkey: string): Promise<TaskOfReceipt | undefined> {
      const row = await db
        .selectFrom('tasks')
        .leftJoin('agents as taker', 'taker.id', 'tasks.assigned_agent_id')
        .select(['tasks.status', 'tasks.task_class', 'taker.registration_pubkey', 'taker.key_verified_at', 'taker.capabilities'])
        .select(isRequesterKey(sql.val(issuerPubkey), sql.ref('tasks.requester_id')).as('issuer_is_requester'))
        .where('tasks.id', '=', correlationId)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        status: row.status,
        agentPubkey: row.registration_pubkey ?? null,
        agentKeyProven: row.key_verified_at !== null && row.key_verified_at !== undefined,
        issuerIsRequester: Boolean(row.issuer_is_requester),
        taskClass: taskClassOf(row.task_class, row.capabilities ? parseCapabilities(row.capabilities) : []),
      };
    },

    /** Signing keys of an account, newest first. */
    /** The names an agent goes by in receipts it is named in: its id and slug (none for an unknown id). */
    async agentNames(agentId: string): Promise<string[]> {
      // Agent ids are UUIDs (a uuid column on PostgreSQL): anything else names no agent.
      if (!isUuid(agentId)) return [];
      const row = await db.selectFrom('agents').select(['id', 'slug']).where('id', '=', agentId).executeTakeFirst();
      return row ? [row.id, row.slug] : [];
    },

    /** The usernames of these accounts' profiles, by account id (an account without a profile is left out). */
    async usernamesOf(accountIds: string[]): Promise<Map<string, string>> {
      if (accountIds.length === 0) return new Map();
      const rows = await db.selectFrom('profiles').select(['account_id', 'username']).where('account_id', 'in', accountIds).execute();
      return new Map(rows.map((row) => [row.account_id, row.username]));
    },

    signingKeysOf: (accountId: string) =>
      db.selectFrom('account_signing_keys').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id').execute(),

    /** Registers a signing key on an account; false when some account (this one or another) already holds it. */
    async addSigningKey(row: { id: string; account_id: string; pubkey: string; created_at: string }): Promise<boolean> {
      const inserted = await db
        .insertInto('account_signing_keys')
        .values(row)
        .onConflict((oc) => oc.column('pubkey').doNothing())
        .returning('id')
        .executeTakeFirst();
      return inserted !== undefined;
    },

    removeSigningKey: async (accountId: string, id: string): Promise<boolean> =>
      Number((await db.deleteFrom('account_signing_keys').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()).numDeletedRows) > 0,

    /** Registered agents holding any of these keys: the candidates for "a registered issuer". */
    async agentsWithKeys(pubkeys: string[]): Promise<RegisteredKeys> {
      const byKey = new Map<string, RegisteredIssuer[]>();
      if (pubkeys.length === 0) return byKey;
      const rows = await db
        .selectFrom('agents')
        .select(['id', 'slug', 'name', 'owner_id', 'registration_pubkey', 'key_verified_at', 'visibility'])
        .where('registration_pubkey', 'in', pubkeys)
        .orderBy('id')
        .execute();
      for (const row of rows) {
        const pubkey = row.registration_pubkey as string;
        const agents = byKey.get(pubkey) ?? [];
        const provenPublic = row.key_verified_at !== null && row.visibility === 'public';
        agents.push({ id: row.id, slug: row.slug, name: row.name, ownerId: row.owner_id, pubkey, provenPublic });
        byKey.set(pubkey, agents);
      }
      // An account's signing key stands for its account: never a public agent a page may name.
      const accountKeys = await db.selectFrom('account_signing_keys').select(['account_id', 'pubkey']).where('pubkey', 'in', pubkeys).execute();
      for (const row of accountKeys) {
        const issuers = byKey.get(row.pubkey) ?? [];
        issuers.unshift({ id: `account:${row.account_id}`, slug: '', name: '', ownerId: row.account_id, pubkey: row.pubkey, provenPublic: false });
        byKey.set(row.pubkey, issuers);
      }
      return byKey;
    },
  };
}

export type ReceiptsStore = ReturnType<typeof createReceiptsStore>;
