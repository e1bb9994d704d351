/**
 * The tables the payments module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
import type { ColumnType } from 'kysely';

/** Money columns are BIGINT: SQLite answers numbers, PostgreSQL strings; stores read them through Number(). */
type Cents = ColumnType<number | string, number, number>;

export interface PaymentAccountsTable {
  agent_id: string;
  provider: 'ledger' | 'stripe';
  status: 'pending' | 'active';
  stripe_account_id: string | null;
  stripe_event_at: number | null;
  created_at: string;
  updated_at: string;
}

/** One side of a posting; every posting's amounts sum to zero. Credit positive, debit negative. */
export interface LedgerEntriesTable {
  id: string;
  posting_id: string;
  task_id: string | null;
  payout_id: string | null;
  /** `requester:<accountId>`, `agent:<agentId>`, `platform:fees` or `payouts:<provider>`. */
  account: string;
  kind: 'charge' | 'earning' | 'fee' | 'payout';
  amount_cents: Cents;
  currency: string;
  created_at: string;
}

export interface AgentBalancesTable {
  agent_id: string;
  currency: string;
  available_cents: Cents;
  reserved_cents: Cents;
  paid_out_cents: Cents;
  updated_at: string;
}

export interface PayoutsTable {
  id: string;
  agent_id: string;
  provider: 'ledger' | 'stripe';
  amount_cents: Cents;
  currency: string;
  reference: string | null;
  /** The operator account that recorded it; null for Stripe transfers. */
  recorded_by: string | null;
  created_at: string;
}

export interface PaymentTransfersTable {
  id: string;
  task_id: string;
  agent_id: string;
  /** The connected Stripe account. */
  destination: string;
  amount_cents: Cents;
  currency: string;
  state: 'pending' | 'running' | 'sent' | 'failed';
  attempts: number;
  run_at: string;
  lease_until: string | null;
  transfer_id: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface PaymentsTables {
  payment_accounts: PaymentAccountsTable;
  ledger_entries: LedgerEntriesTable;
  agent_balances: AgentBalancesTable;
  payouts: PayoutsTable;
  payment_transfers: PaymentTransfersTable;
}
