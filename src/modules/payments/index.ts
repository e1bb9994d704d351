export { createPaymentsStore } from './store.ts';
export { createPaymentsService, type PaymentsService } from './service.ts';
export { registerPaymentsRoutes } from './routes.ts';
export { createTransferWorker, type TransferWorker } from './transfer-worker.ts';
export { createLedgerProvider } from './providers/ledger.ts';
import type { StripeProvider } from './providers/types.ts';
import type { StripeProviderOptions } from './providers/stripe.ts';

/** The Stripe client takes about half a second to load: only services that configure Stripe pay for it. */
export async function loadStripeProvider(options: StripeProviderOptions): Promise<StripeProvider> {
  return (await import('./providers/stripe.ts')).createStripeProvider(options);
}
export type * from './tables.ts';
