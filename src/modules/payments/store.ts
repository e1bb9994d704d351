import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import { claimLeasedJobs, dueJobs } from '../../db/leased-jobs.ts';
import type { Db, Tx } from '../../db/database.ts';
import type { DialectName } from '../../db/dialect.ts';
import { ownTables } from '../../db/tables.ts';
import type { LedgerEntriesTable, PaymentAccountsTable, PaymentsTables, PaymentTransfersTable, PayoutsTable } from './tables.ts';
import { newId } from '../../lib/ids.ts';

export type PaymentAccountRow = Selectable<PaymentAccountsTable>;
export type LedgerEntryRow = Selectable<LedgerEntriesTable>;
export type TransferRow = Selectable<PaymentTransfersTable>;

const accountOfAgent = (agentId: string) => `agent:${agentId}`;
const accountOfRequester = (accountId: string) => `requester:${accountId}`;
const PLATFORM_FEES = 'platform:fees';
const payoutsAccount = (provider: 'ledger' | 'stripe') => `payouts:${provider}`;

export interface Balance {
  currency: string;
  available: number;
  reserved: number;
  paidOut: number;
}

export interface TaskSettlementPosting {
  taskId: string;
  requesterId: string;
  agentId: string;
  currency: string;
  price: number;
  fee: number;
  /** The connected Stripe account to send the agent's share to after commit, or null to keep it in the ledger. */
  transferTo: string | null;
  now: string;
}

type Entry = { account: string; kind: LedgerEntriesTable['kind']; amount: number };

/** A transaction seen with this module's tables alone. */
type PaymentsTx = Kysely<PaymentsTables>;

/** One balanced posting: the entries of one event, summing to zero, in the caller's transaction. */
async function post(tx: PaymentsTx, entries: Entry[], refs: { taskId?: string; payoutId?: string }, currency: string, now: string): Promise<void> {
  if (entries.reduce((sum, entry) => sum + entry.amount, 0) !== 0) throw new Error('unbalanced ledger posting');
  const postingId = newId();
  await tx
    .insertInto('ledger_entries')
    .values(
      entries.map((entry) => ({
        id: newId(),
        posting_id: postingId,
        task_id: refs.taskId ?? null,
        payout_id: refs.payoutId ?? null,
        account: entry.account,
        kind: entry.kind,
        amount_cents: entry.amount,
        currency,
        created_at: now,
      })),
    )
    .execute();
}

/** Credits an agent's running totals, creating the row on first use (an upsert, race-safe on both engines). */
async function creditBalance(
  tx: PaymentsTx,
  agentId: string,
  currency: string,
  credit: { available: number } | { reserved: number },
  now: string,
): Promise<void> {
  const available = 'available' in credit ? credit.available : 0;
  const reserved = 'reserved' in credit ? credit.reserved : 0;
  await tx
    .insertInto('agent_balances')
    .values({ agent_id: agentId, currency, available_cents: available, reserved_cents: reserved, paid_out_cents: 0, updated_at: now })
    .onConflict((oc) =>
      oc.columns(['agent_id', 'currency']).doUpdateSet({
        available_cents: sql`agent_balances.available_cents + ${available}`,
        reserved_cents: sql`agent_balances.reserved_cents + ${reserved}`,
        updated_at: now,
      }),
    )
    .execute();
}

/** Moves a settled transfer's amount out of the reserve, to paid out or back to available. */
async function releaseReserve(tx: PaymentsTx, transfer: TransferRow, to: 'paid_out_cents' | 'available_cents', now: string): Promise<void> {
  const amount = Number(transfer.amount_cents);
  await tx
    .updateTable('agent_balances')
    .set({ reserved_cents: sql`reserved_cents - ${amount}`, [to]: sql`${sql.ref(to)} + ${amount}`, updated_at: now })
    .where('agent_id', '=', transfer.agent_id)
    .where('currency', '=', transfer.currency)
    .execute();
}

export function createPaymentsStore(database: Db, dialect: DialectName) {
  const db = ownTables<PaymentsTables>(database);
  return {
    /** The query the transfer worker claims with on every wake, compiled, for the test that reads its plan. */
    backgroundQueries: (now: string) => ({ transfersDue: dueJobs(db, 'payment_transfers', now, 8).compile() }),

    findAccount: (agentId: string, tx: Db | Tx = database) =>
      ownTables<PaymentsTables>(tx).selectFrom('payment_accounts').selectAll().where('agent_id', '=', agentId).executeTakeFirst(),

    /** Creates or replaces an agent's payment account; answers whether it was new. */
    async saveAccount(row: Omit<PaymentAccountRow, 'stripe_event_at'>): Promise<boolean> {
      return db.transaction().execute(async (tx) => {
        const existing = await tx.selectFrom('payment_accounts').select('agent_id').where('agent_id', '=', row.agent_id).executeTakeFirst();
        await tx
          .insertInto('payment_accounts')
          .values({ ...row, stripe_event_at: null })
          .onConflict((oc) =>
            oc
              .column('agent_id')
              .doUpdateSet({ provider: row.provider, status: row.status, stripe_account_id: row.stripe_account_id, updated_at: row.updated_at }),
          )
          .execute();
        return !existing;
      });
    },

    /** Applies a Stripe account status unless a newer event was applied already. */
    async applyStripeStatus(stripeAccountId: string, status: PaymentAccountRow['status'], eventCreated: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('payment_accounts')
        .set({ status, stripe_event_at: eventCreated, updated_at: now })
        .where('stripe_account_id', '=', stripeAccountId)
        .where('provider', '=', 'stripe')
        .where((eb) => eb.or([eb('stripe_event_at', 'is', null), eb('stripe_event_at', '<=', eventCreated)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * A completed paid task: the requester's charge, the agent's credit and the platform's fee, and
     * either the agent's available balance or (for an active Stripe account) a reserved amount and a
     * transfer in the outbox. Runs in the completing transaction.
     */
    async postTaskSettlement(callerTx: Tx, p: TaskSettlementPosting): Promise<void> {
      const tx = ownTables<PaymentsTables>(callerTx);
      const credit = p.price - p.fee;
      await post(
        tx,
        [
          { account: accountOfRequester(p.requesterId), kind: 'charge', amount: -p.price },
          { account: accountOfAgent(p.agentId), kind: 'earning', amount: credit },
          { account: PLATFORM_FEES, kind: 'fee', amount: p.fee },
        ],
        { taskId: p.taskId },
        p.currency,
        p.now,
      );
      if (p.transferTo && credit > 0) {
        await creditBalance(tx, p.agentId, p.currency, { reserved: credit }, p.now);
        await tx
          .insertInto('payment_transfers')
          .values({
            id: newId(),
            task_id: p.taskId,
            agent_id: p.agentId,
            destination: p.transferTo,
            amount_cents: credit,
            currency: p.currency,
            state: 'pending',
            attempts: 0,
            run_at: p.now,
            lease_until: null,
            transfer_id: null,
            last_error: null,
            created_at: p.now,
            updated_at: p.now,
          })
          .execute();
      } else {
        await creditBalance(tx, p.agentId, p.currency, { available: credit }, p.now);
      }
    },

    /** What the agents still hold (available or in a transfer), per currency, in cents; only currencies with something left. */
    async unpaidOf(agentIds: string[]): Promise<Array<{ currency: string; cents: number }>> {
      if (agentIds.length === 0) return [];
      const rows = await db.selectFrom('agent_balances').select(['currency', 'available_cents', 'reserved_cents']).where('agent_id', 'in', agentIds).execute();
      const sums = new Map<string, number>();
      for (const row of rows) sums.set(row.currency, (sums.get(row.currency) ?? 0) + Number(row.available_cents) + Number(row.reserved_cents));
      return [...sums].filter(([, cents]) => cents > 0).map(([currency, cents]) => ({ currency, cents }));
    },

    async balanceOf(agentId: string, currency: string): Promise<Balance | null> {
      const row = await db.selectFrom('agent_balances').selectAll().where('agent_id', '=', agentId).where('currency', '=', currency).executeTakeFirst();
      return row ? { currency, available: Number(row.available_cents), reserved: Number(row.reserved_cents), paidOut: Number(row.paid_out_cents) } : null;
    },

    /**
     * An operator's payout: taken from the available balance by one conditional UPDATE, so concurrent
     * payouts can never take more than there is; the posting goes in the same transaction.
     */
    async recordPayout(payout: Omit<Insertable<PayoutsTable>, 'provider'> & { amount_cents: number }): Promise<boolean> {
      return db.transaction().execute(async (tx) => {
        const taken = await tx
          .updateTable('agent_balances')
          .set({
            available_cents: sql`available_cents - ${payout.amount_cents}`,
            paid_out_cents: sql`paid_out_cents + ${payout.amount_cents}`,
            updated_at: payout.created_at,
          })
          .where('agent_id', '=', payout.agent_id)
          .where('currency', '=', payout.currency)
          .where('available_cents', '>=', payout.amount_cents)
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) !== 1) return false;
        await tx
          .insertInto('payouts')
          .values({ ...payout, provider: 'ledger' })
          .execute();
        const amount = payout.amount_cents;
        await post(
          tx,
          [
            { account: accountOfAgent(payout.agent_id), kind: 'payout', amount: -amount },
            { account: payoutsAccount('ledger'), kind: 'payout', amount },
          ],
          { payoutId: payout.id },
          payout.currency,
          payout.created_at,
        );
        return true;
      });
    },

    async entries(filter: { account?: string; taskId?: string }, limit: number, offset: number) {
      let query = db.selectFrom('ledger_entries');
      if (filter.account) query = query.where('account', '=', filter.account);
      if (filter.taskId) query = query.where('task_id', '=', filter.taskId);
      const [rows, count] = await Promise.all([
        query.selectAll().orderBy('created_at', 'desc').orderBy('posting_id').orderBy('id').limit(limit).offset(offset).execute(),
        query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },

    /**
     * An agent's paid tasks, newest first: each earning with the price charged and the fee taken in the
     * same posting (amount = net + fee).
     */
    async earningsOf(agentId: string, limit: number, offset: number) {
      const query = db.selectFrom('ledger_entries').where('account', '=', accountOfAgent(agentId)).where('kind', '=', 'earning');
      const [rows, count] = await Promise.all([
        query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
        query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      const fees = new Map<string, number>();
      if (rows.length > 0) {
        const siblings = await db
          .selectFrom('ledger_entries')
          .select(['posting_id', 'amount_cents'])
          .where(
            'posting_id',
            'in',
            rows.map((row) => row.posting_id),
          )
          .where('kind', '=', 'fee')
          .execute();
        for (const sibling of siblings) fees.set(sibling.posting_id, Number(sibling.amount_cents));
      }
      return {
        rows: rows.map((row) => {
          const net = Number(row.amount_cents);
          const fee = fees.get(row.posting_id) ?? 0;
          return { taskId: row.task_id, amount: net + fee, fee, net, currency: row.currency, createdAt: row.created_at };
        }),
        total: Number(count.n),
      };
    },

    // -- the Stripe transfer outbox ------------------------------------------------------------------

    /** Due transfers, leased to this worker (see claimLeasedJobs). */
    claimDueTransfers: (now: string, leaseUntil: string, limit: number): Promise<TransferRow[]> =>
      claimLeasedJobs(db, dialect, 'payment_transfers', now, leaseUntil, limit),

    /** Stripe accepted the transfer: the reserve becomes paid out, posted once however often this runs. */
    async transferSent(transfer: TransferRow, stripeTransferId: string, now: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const marked = await tx
          .updateTable('payment_transfers')
          .set({ state: 'sent', transfer_id: stripeTransferId, lease_until: null, last_error: null, updated_at: now })
          .where('id', '=', transfer.id)
          .where('state', 'in', ['pending', 'running'])
          .executeTakeFirst();
        if (Number(marked.numUpdatedRows) !== 1) return;
        const amount = Number(transfer.amount_cents);
        await releaseReserve(tx, transfer, 'paid_out_cents', now);
        const payoutId = newId();
        await tx
          .insertInto('payouts')
          .values({
            id: payoutId,
            agent_id: transfer.agent_id,
            provider: 'stripe',
            amount_cents: amount,
            currency: transfer.currency,
            reference: stripeTransferId,
            recorded_by: null,
            created_at: now,
          })
          .execute();
        await post(
          tx,
          [
            { account: accountOfAgent(transfer.agent_id), kind: 'payout', amount: -amount },
            { account: payoutsAccount('stripe'), kind: 'payout', amount },
          ],
          { payoutId },
          transfer.currency,
          now,
        );
      });
    },

    retryTransferLater: (transfer: TransferRow, runAt: string, error: string, now: string) =>
      db
        .updateTable('payment_transfers')
        .set({ state: 'pending', run_at: runAt, lease_until: null, last_error: error, updated_at: now })
        .where('id', '=', transfer.id)
        .where('state', '=', 'running')
        .execute(),

    /** Given up: the reserve goes back to the available balance, for an operator to pay out another way. */
    async transferFailed(transfer: TransferRow, error: string, now: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const marked = await tx
          .updateTable('payment_transfers')
          .set({ state: 'failed', lease_until: null, last_error: error, updated_at: now })
          .where('id', '=', transfer.id)
          .where('state', '=', 'running')
          .executeTakeFirst();
        if (Number(marked.numUpdatedRows) !== 1) return;
        await releaseReserve(tx, transfer, 'available_cents', now);
      });
    },
  };
}

export type PaymentsStore = ReturnType<typeof createPaymentsStore>;
