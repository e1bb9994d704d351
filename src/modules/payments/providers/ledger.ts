import type { PaymentProvider } from './types.ts';

/**
 * The built-in provider: nothing to set up, earnings are balances in the database and an operator
 * records the payouts made by other means. A Stripe account id is kept so switching back reuses it.
 */
export function createLedgerProvider(): PaymentProvider {
  return {
    name: 'ledger',
    connect: async (_agentId, existing) => ({ status: 'active', stripeAccountId: existing?.stripe_account_id ?? null }),
  };
}
