import { sql, type Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Prices on agents, the price a task was assigned at, and the money tables (docs/payments.md).
 * Ledger rows carry no foreign keys: the history of who was paid what outlives deleted agents,
 * accounts and tasks.
 */
export const payments: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('agents')
      .addColumn('price_per_task_cents', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('agents')
      .addColumn('currency', 'text', (c) => c.notNull().defaultTo('usd'))
      .execute();
    // What the requester pays in (their budget's currency), and the price snapshot of the assigned agent.
    await db.schema
      .alterTable('tasks')
      .addColumn('currency', 'text', (c) => c.notNull().defaultTo('usd'))
      .execute();
    await db.schema.alterTable('tasks').addColumn('price_cents', 'integer').execute();

    await db.schema
      .createTable('payment_accounts')
      .addColumn('agent_id', 'text', (c) => c.primaryKey().references('agents.id').onDelete('cascade'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('stripe_account_id', 'text', (c) => c.unique())
      /** `created` of the newest Stripe event applied, so an older event delivered late changes nothing. */
      .addColumn('stripe_event_at', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('ledger_entries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('posting_id', 'text', (c) => c.notNull())
      .addColumn('task_id', 'text')
      .addColumn('payout_id', 'text')
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('amount_cents', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // Second guard behind the conditional completion: a task can be settled once.
    await db.schema
      .createIndex('ledger_entries_task_kind')
      .on('ledger_entries')
      .columns(['task_id', 'kind'])
      .unique()
      .where(sql.ref('task_id'), 'is not', null)
      .execute();
    await db.schema.createIndex('ledger_entries_account').on('ledger_entries').columns(['account', 'created_at']).execute();
    await db.schema.createIndex('ledger_entries_posting').on('ledger_entries').column('posting_id').execute();

    // Running totals of agent accounts, so a payout can be refused by one conditional UPDATE.
    await db.schema
      .createTable('agent_balances')
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('available_cents', 'bigint', (c) => c.notNull().check(sql`available_cents >= 0`))
      /** Earned and promised to an outstanding Stripe transfer: not available for an operator payout. */
      .addColumn('reserved_cents', 'bigint', (c) => c.notNull().check(sql`reserved_cents >= 0`))
      .addColumn('paid_out_cents', 'bigint', (c) => c.notNull().check(sql`paid_out_cents >= 0`))
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('agent_balances_pk', ['agent_id', 'currency'])
      .execute();

    await db.schema
      .createTable('payouts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('amount_cents', 'bigint', (c) => c.notNull().check(sql`amount_cents > 0`))
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('reference', 'text')
      .addColumn('recorded_by', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('payouts_agent').on('payouts').columns(['agent_id', 'created_at']).execute();

    // The Stripe transfer outbox: written with the completion, sent after commit by any node.
    await db.schema
      .createTable('payment_transfers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('task_id', 'text', (c) => c.notNull().unique())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('destination', 'text', (c) => c.notNull())
      .addColumn('amount_cents', 'bigint', (c) => c.notNull().check(sql`amount_cents > 0`))
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('run_at', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'text')
      .addColumn('transfer_id', 'text')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('payment_transfers_due').on('payment_transfers').columns(['state', 'run_at']).execute();
  },
};
