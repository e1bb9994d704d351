import type { PaymentAccountRow } from '../store.ts';

export interface Connection {
  status: PaymentAccountRow['status'];
  stripeAccountId: string | null;
  /** Where the owner finishes onboarding (Stripe), while the account is pending. */
  onboardingUrl?: string;
}

export interface OnboardingLinks {
  returnUrl: string;
  refreshUrl: string;
}

/** How an agent's earnings leave the service. */
export interface PaymentProvider {
  readonly name: 'ledger' | 'stripe';
  connect(agentId: string, existing: PaymentAccountRow | undefined, links: OnboardingLinks): Promise<Connection>;
}

export type StripeEvent = { kind: 'account'; accountId: string; active: boolean; created: number } | { kind: 'ignored'; type: string };

/** Stripe Connect, beyond connecting: sending an agent its share, and reading Stripe's signed events. */
export interface StripeProvider extends PaymentProvider {
  readonly name: 'stripe';
  /** Stripe's idempotency key is derived from the task, so a repeated send never pays twice. */
  transfer(request: { taskId: string; amountCents: number; currency: string; destination: string }): Promise<{ transferId: string }>;
  /** Verifies `Stripe-Signature` over the raw body; throws when it does not verify or is too old. */
  verifyEvent(rawBody: Buffer, signatureHeader: string, receivedAtMs: number): StripeEvent;
}

export class ProviderError extends Error {
  /** True when the same request may succeed later (network trouble, rate limits, provider outages). */
  readonly retryable: boolean;
  constructor(message: string, options: { cause?: unknown; retryable?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.retryable = options.retryable ?? false;
    this.name = 'ProviderError';
  }
}
