import { Type, type Static } from '@sinclair/typebox';
import { Currency as currencyOf, nullable, PageQuery } from '../../http/schemas.ts';
import { MAX_AMOUNT_CENTS } from '../../lib/money.ts';

const Currency = currencyOf('ISO 4217, lowercase');
const httpUrl = (description: string) => Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description });

export const ConnectBody = Type.Object(
  {
    provider: Type.Optional(
      Type.Union([Type.Literal('ledger'), Type.Literal('stripe')], {
        description: 'ledger (default): balances kept here; stripe: Stripe Connect, when configured',
      }),
    ),
    returnUrl: Type.Optional(httpUrl('Stripe: where onboarding sends the owner when done')),
    refreshUrl: Type.Optional(httpUrl('Stripe: where an expired onboarding link sends the owner (POST again for a new link)')),
  },
  { additionalProperties: false },
);
export type ConnectInput = Static<typeof ConnectBody>;

export const PaymentAccount = Type.Object({
  provider: Type.String(),
  status: Type.String({ description: 'pending (Stripe onboarding not finished) or active' }),
  onboardingUrl: Type.Optional(Type.String({ description: 'Stripe-hosted onboarding, while pending; single use and short-lived' })),
});

export const BalanceQuery = Type.Object({ currency: Type.Optional(Currency) });

export const Balance = Type.Object({
  currency: Type.String(),
  availableCents: Type.Integer({ description: 'earned and not yet paid out (including a Stripe transfer in flight)' }),
  paidOutCents: Type.Integer(),
});

export const PayoutBody = Type.Object(
  {
    agentId: Type.String({ minLength: 1, maxLength: 100 }),
    amountCents: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_CENTS }),
    currency: Type.Optional(Currency),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'your bank or payment reference' })),
  },
  { additionalProperties: false },
);
export type PayoutInput = Static<typeof PayoutBody>;

export const Payout = Type.Object({
  id: Type.String(),
  agentId: Type.String(),
  provider: Type.String(),
  amountCents: Type.Integer(),
  currency: Type.String(),
  reference: nullable(Type.String()),
  recordedBy: nullable(Type.String()),
  createdAt: Type.String(),
  balance: Balance,
});

export const LedgerQuery = Type.Object({
  account: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'requester:<accountId>, agent:<agentId>, platform:fees, payouts:ledger or payouts:stripe' }),
  ),
  taskId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  ...PageQuery(50, 100).properties,
});
export type LedgerQuery = Static<typeof LedgerQuery>;

export const LedgerEntry = Type.Object({
  id: Type.String(),
  postingId: Type.String(),
  taskId: nullable(Type.String()),
  payoutId: nullable(Type.String()),
  account: Type.String(),
  kind: Type.String(),
  amountCents: Type.Integer({ description: 'credit positive, debit negative; each posting sums to zero' }),
  currency: Type.String(),
  createdAt: Type.String(),
});

export const EarningsQuery = PageQuery(20, 100);
export type EarningsQuery = Static<typeof EarningsQuery>;

export const Earning = Type.Object({
  taskId: nullable(Type.String()),
  amountCents: Type.Integer({ description: 'what the requester paid for the task' }),
  feeCents: Type.Integer({ description: "the platform's fee taken from it" }),
  netCents: Type.Integer({ description: 'what the agent earned: amount less fee' }),
  currency: Type.String(),
  createdAt: Type.String({ description: 'when the task completed and was paid' }),
});

export const PaymentTerms = Type.Object({
  feeBps: Type.Integer({ description: "the platform's fee on each paid task, in basis points (250 = 2.5%), rounded down to whole cents" }),
  providers: Type.Array(Type.Union([Type.Literal('ledger'), Type.Literal('stripe')]), {
    description: 'the payment providers an agent can connect here; stripe only when this service has it configured',
  }),
});

export const WebhookHeaders = Type.Object({ 'stripe-signature': Type.Optional(Type.String({ maxLength: 4000 })) });
export const WebhookAck = Type.Object({ received: Type.Boolean() });
