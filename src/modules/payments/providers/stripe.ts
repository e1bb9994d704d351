/**
 * Stripe Connect through the official client: an Express connected account per agent, a hosted
 * onboarding link, `account.updated` events (signature checked by `stripe.webhooks.constructEvent`)
 * and one transfer per completed paid task. Everything Stripe-specific stays in this file.
 */
import Stripe from 'stripe';
import { ProviderError, type Connection, type OnboardingLinks, type StripeEvent, type StripeProvider } from './types.ts';

export interface StripeProviderOptions {
  secretKey: string;
  webhookSecret: string;
  /** Tests point the client at a local stand-in of the few endpoints used; production leaves it unset. */
  apiBase: string | null;
  timeoutMs?: number;
}

/** Payouts need the bank side enabled, and transfers need the account able to receive them. */
function isActive(account: Stripe.Account): boolean {
  return account.payouts_enabled === true && (account.charges_enabled === true || account.capabilities?.transfers === 'active');
}

/**
 * Worth another try with the same idempotency key: the request may never have reached Stripe, was
 * rate limited before it ran, or hit an outage. Anything else (an invalid request, a refused
 * transfer) is what Stripe saved under the key and would answer again.
 */
function isRetryable(error: unknown): boolean {
  return (
    error instanceof Stripe.errors.StripeConnectionError || error instanceof Stripe.errors.StripeRateLimitError || error instanceof Stripe.errors.StripeAPIError
  );
}

function describe(error: unknown): string {
  if (error instanceof Stripe.errors.StripeError) return `${error.type}${error.code ? ` ${error.code}` : ''}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

export function createStripeProvider(options: StripeProviderOptions): StripeProvider {
  const base = options.apiBase ? new URL(options.apiBase) : null;
  const stripe = new Stripe(options.secretKey, {
    // Transfers are retried by the outbox worker with the same idempotency key; one attempt per call keeps that in one place.
    maxNetworkRetries: 0,
    timeout: options.timeoutMs ?? 20_000,
    appInfo: { name: 'agentry' },
    ...(base
      ? { host: base.hostname, port: base.port || (base.protocol === 'https:' ? 443 : 80), protocol: base.protocol === 'https:' ? 'https' : 'http' }
      : {}),
  });

  async function call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new ProviderError(`Stripe ${what} failed: ${describe(error)}`, { cause: error, retryable: isRetryable(error) });
    }
  }

  return {
    name: 'stripe',

    async connect(agentId: string, existing, links: OnboardingLinks): Promise<Connection> {
      const account = existing?.stripe_account_id
        ? await call('account lookup', () => stripe.accounts.retrieve(existing.stripe_account_id as string))
        : await call('account creation', () =>
            stripe.accounts.create(
              { type: 'express', capabilities: { transfers: { requested: true } }, metadata: { agentId } },
              // Concurrent connects of one agent get the same account, not two.
              { idempotencyKey: `agentry-account-${agentId}` },
            ),
          );
      if (isActive(account)) return { status: 'active', stripeAccountId: account.id };
      const link = await call('onboarding link', () =>
        stripe.accountLinks.create({ account: account.id, type: 'account_onboarding', return_url: links.returnUrl, refresh_url: links.refreshUrl }),
      );
      return { status: 'pending', stripeAccountId: account.id, onboardingUrl: link.url };
    },

    async transfer({ taskId, amountCents, currency, destination }) {
      const transfer = await call('transfer', () =>
        stripe.transfers.create(
          { amount: amountCents, currency, destination, transfer_group: `task_${taskId}`, metadata: { taskId } },
          { idempotencyKey: `agentry-transfer-${taskId}` },
        ),
      );
      return { transferId: transfer.id };
    },

    verifyEvent(rawBody: Buffer, signatureHeader: string, receivedAtMs: number): StripeEvent {
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signatureHeader, options.webhookSecret, undefined, undefined, receivedAtMs);
      } catch (error) {
        throw new ProviderError(`Stripe-Signature does not verify: ${describe(error)}`, { cause: error });
      }
      if (event.type !== 'account.updated') return { kind: 'ignored', type: event.type };
      const account = event.data.object;
      return { kind: 'account', accountId: account.id, active: isActive(account), created: event.created };
    },
  };
}
