import type { Tx } from '../../db/database.ts';
import type { Signals } from '../../db/signals.ts';
import type { Principal } from '../../lib/principal.ts';
import { isoNow, type Clock } from '../../lib/clock.ts';
import { AppError, badRequest, conflict, forbidden, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { platformFee } from '../../lib/money.ts';
import type { RegistryService } from '../registry/index.ts';
import type { CompletedTask, TaskSettlement } from '../tasks/index.ts';
import { ProviderError, type PaymentProvider, type StripeProvider } from './providers/types.ts';
import type { ConnectInput, EarningsQuery, LedgerQuery, PayoutInput } from './schemas.ts';
import type { Balance, LedgerEntryRow, PaymentAccountRow, PaymentsStore } from './store.ts';
import { TRANSFERS_CHANNEL } from './transfer-worker.ts';

export interface PaymentsDeps {
  store: PaymentsStore;
  clock: Clock;
  registry: Pick<RegistryService, 'findOwned' | 'findOperated' | 'findAgent'>;
  ledger: PaymentProvider;
  /** Null when STRIPE_SECRET_KEY is not set. */
  stripe: StripeProvider | null;
  feeBps: number;
  operators: { emails: string[]; accountIds: string[] };
  /** An account's email (auth), for operators named by email. */
  emailOf(accountId: string): Promise<string | null>;
  publicUrl: string;
  signals: Signals;
}

const accountView = (row: Pick<PaymentAccountRow, 'provider' | 'status'>, onboardingUrl?: string) => ({
  provider: row.provider,
  status: row.status,
  ...(onboardingUrl ? { onboardingUrl } : {}),
});

const balanceView = (currency: string, balance: Balance | null) => ({
  currency,
  // A transfer in flight is still owed until Stripe accepts it, so it counts as available.
  availableCents: balance ? balance.available + balance.reserved : 0,
  paidOutCents: balance?.paidOut ?? 0,
});

const entryView = (row: LedgerEntryRow) => ({
  id: row.id,
  postingId: row.posting_id,
  taskId: row.task_id,
  payoutId: row.payout_id,
  account: row.account,
  kind: row.kind,
  amountCents: Number(row.amount_cents),
  currency: row.currency,
  createdAt: row.created_at,
});

export function createPaymentsService(deps: PaymentsDeps) {
  const { store, clock, registry, stripe, feeBps, operators, emailOf, publicUrl, signals } = deps;

  function providerNamed(name: 'ledger' | 'stripe'): PaymentProvider {
    if (name === 'ledger') return deps.ledger;
    if (!stripe)
      throw badRequest('Stripe is not configured on this service; use provider "ledger"', [
        { path: '/body/provider', message: 'stripe is not available here' },
      ]);
    return stripe;
  }

  async function requireOperator(principal: Principal): Promise<void> {
    if (principal.kind === 'person') {
      if (operators.accountIds.includes(principal.accountId)) return;
      const email = operators.emails.length > 0 ? await emailOf(principal.accountId) : null;
      if (email && operators.emails.includes(email)) return;
    }
    throw forbidden('Only an operator of this service can do this (OPERATOR_EMAILS, OPERATOR_ACCOUNT_IDS)');
  }

  const settlement: TaskSettlement = {
    async settle(tx: Tx, task: CompletedTask) {
      const price = task.priceCents ?? 0;
      if (price <= 0 || !task.assignedAgentId) return;
      const account = stripe ? await store.findAccount(task.assignedAgentId, tx) : undefined;
      const transferTo = account?.provider === 'stripe' && account.status === 'active' ? account.stripe_account_id : null;
      await store.postTaskSettlement(tx, {
        taskId: task.id,
        requesterId: task.requesterId,
        agentId: task.assignedAgentId,
        currency: task.currency,
        price,
        fee: platformFee(price, feeBps),
        transferTo,
        now: task.completedAt ?? isoNow(clock),
      });
    },
    afterCommit(task: CompletedTask) {
      if (stripe && (task.priceCents ?? 0) > 0) void signals.publish(TRANSFERS_CHANNEL, '').catch(() => {});
    },
  };

  return {
    settlement,

    /** Account deletion waits while the account's agents hold money not yet paid out. */
    async deletionRefusal(agentIds: string[]): Promise<string | null> {
      const unpaid = await store.unpaidOf(agentIds);
      if (unpaid.length === 0) return null;
      const amounts = unpaid.map(({ currency, cents }) => `${cents} ${currency} cents`).join(', ');
      return `Your agents hold an unpaid balance (${amounts}); have it paid out first.`;
    },

    async connect(principal: Principal, agentId: string, input: ConnectInput) {
      const agent = await registry.findOwned(principal, agentId);
      const provider = providerNamed(input.provider ?? 'ledger');
      const existing = await store.findAccount(agentId);
      const links = {
        returnUrl: input.returnUrl ?? `${publicUrl}/agents/${agent.slug}?payments=return`,
        refreshUrl: input.refreshUrl ?? `${publicUrl}/agents/${agent.slug}?payments=refresh`,
      };
      let connection;
      try {
        connection = await provider.connect(agentId, existing, links);
      } catch (error) {
        if (error instanceof ProviderError) throw new AppError('UNAVAILABLE', `${error.message}; try again later`);
        throw error;
      }
      const now = isoNow(clock);
      const created = await store.saveAccount({
        agent_id: agentId,
        provider: provider.name,
        status: connection.status,
        stripe_account_id: connection.stripeAccountId,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      });
      return { created, data: accountView({ provider: provider.name, status: connection.status }, connection.onboardingUrl) };
    },

    async account(principal: Principal, agentId: string) {
      await registry.findOperated(principal, agentId);
      const row = await store.findAccount(agentId);
      if (!row) throw notFound('This agent has no payment account; its earnings are kept in the ledger until one is connected');
      return accountView(row);
    },

    async balance(principal: Principal, agentId: string, currency: string | undefined) {
      const agent = await registry.findOperated(principal, agentId);
      const wanted = currency ?? agent.currency;
      return balanceView(wanted, await store.balanceOf(agentId, wanted));
    },

    /** The agent's paid tasks (owner, or a key acting as the agent), with amount, fee and net. */
    async earnings(principal: Principal, agentId: string, query: EarningsQuery) {
      await registry.findOperated(principal, agentId);
      const { rows, total } = await store.earningsOf(agentId, query.limit, query.offset);
      return {
        data: rows.map((row) => ({
          taskId: row.taskId,
          amountCents: row.amount,
          feeCents: row.fee,
          netCents: row.net,
          currency: row.currency,
          createdAt: row.createdAt,
        })),
        pagination: { limit: query.limit, offset: query.offset, total, hasMore: query.offset + rows.length < total },
      };
    },

    /** What anyone may know before connecting: the platform fee and which providers are offered. */
    terms: () => ({ feeBps, providers: stripe ? (['ledger', 'stripe'] as const) : (['ledger'] as const) }),

    async recordPayout(principal: Principal, input: PayoutInput) {
      await requireOperator(principal);
      const agent = await registry.findAgent(input.agentId);
      const currency = input.currency ?? agent?.currency;
      if (!currency) throw notFound('Agent not found; name the currency to pay out the balance of a deleted agent');
      const payout = {
        id: newId(),
        agent_id: input.agentId,
        amount_cents: input.amountCents,
        currency,
        reference: input.reference ?? null,
        recorded_by: principal.accountId,
        created_at: isoNow(clock),
      };
      if (!(await store.recordPayout(payout))) {
        const balance = await store.balanceOf(input.agentId, currency);
        if (!agent && !balance) throw notFound('Agent not found');
        throw conflict(
          `The available balance is ${balance?.available ?? 0} ${currency} cents` +
            (balance?.reserved ? ` (${balance.reserved} more are in a Stripe transfer)` : '') +
            `; a payout of ${input.amountCents} would overdraw it`,
        );
      }
      return {
        id: payout.id,
        agentId: payout.agent_id,
        provider: 'ledger',
        amountCents: payout.amount_cents,
        currency,
        reference: payout.reference,
        recordedBy: payout.recorded_by,
        createdAt: payout.created_at,
        balance: balanceView(currency, await store.balanceOf(input.agentId, currency)),
      };
    },

    async ledger(principal: Principal, query: LedgerQuery) {
      await requireOperator(principal);
      const { rows, total } = await store.entries(
        { ...(query.account ? { account: query.account } : {}), ...(query.taskId ? { taskId: query.taskId } : {}) },
        query.limit,
        query.offset,
      );
      return { data: rows.map(entryView), pagination: { limit: query.limit, offset: query.offset, total, hasMore: query.offset + rows.length < total } };
    },

    /** Null without Stripe: then the webhook route is not registered at all. */
    stripeWebhook: stripe
      ? async (rawBody: Buffer | null, signature: string | undefined) => {
          if (!rawBody || rawBody.length === 0) throw badRequest('The body must be the Stripe event, as sent');
          if (!signature) throw badRequest('Stripe-Signature header is missing');
          let event;
          try {
            event = stripe.verifyEvent(rawBody, signature, clock.now().getTime());
          } catch (error) {
            if (error instanceof ProviderError) throw badRequest(error.message);
            throw error;
          }
          if (event.kind === 'account') await store.applyStripeStatus(event.accountId, event.active ? 'active' : 'pending', event.created, isoNow(clock));
          return { received: true };
        }
      : null,
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
