import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/auth.ts';
import { dataOf, errorResponses, IdParams, listOf } from '../../http/schemas.ts';
import {
  Balance,
  BalanceQuery,
  ConnectBody,
  Earning,
  EarningsQuery,
  LedgerEntry,
  LedgerQuery,
  PaymentAccount,
  PaymentTerms,
  Payout,
  PayoutBody,
  WebhookAck,
  WebhookHeaders,
} from './schemas.ts';
import type { PaymentsService } from './service.ts';

export function registerPaymentsRoutes(root: FastifyInstance, payments: PaymentsService, options: { stripeEnabled: boolean }): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['payments'];
  const security = [{ bearer: [] }];

  app.post('/v1/agents/:id/payment-account', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: "Connect the agent's payment account (owner): ledger, or Stripe Connect with an onboarding link",
      params: IdParams,
      body: ConnectBody,
      response: { 200: dataOf(PaymentAccount), 201: dataOf(PaymentAccount), ...errorResponses },
    },
    // The body may be left out (the ledger provider needs nothing): validate it as `{}`.
    preValidation: async (request) => {
      request.body ??= {};
    },
    handler: async (request, reply) => {
      const { created, data } = await payments.connect(principalOf(request), request.params.id, request.body);
      return reply.status(created ? 201 : 200).send({ data });
    },
  });

  app.get('/v1/agents/:id/payment-account', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: "The agent's payment account and its status (owner)",
      params: IdParams,
      response: { 200: dataOf(PaymentAccount), ...errorResponses },
    },
    handler: async (request) => ({ data: await payments.account(principalOf(request), request.params.id) }),
  });

  app.get('/v1/agents/:id/balance', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'What the agent has earned and been paid (owner), in its currency unless asked',
      params: IdParams,
      querystring: BalanceQuery,
      response: { 200: dataOf(Balance), ...errorResponses },
    },
    handler: async (request) => ({ data: await payments.balance(principalOf(request), request.params.id, request.query.currency) }),
  });

  app.get('/v1/agents/:id/earnings', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: "The agent's paid tasks, newest first, each with the amount paid, the platform fee and the agent's net (owner)",
      params: IdParams,
      querystring: EarningsQuery,
      response: { 200: listOf(Earning), ...errorResponses },
    },
    handler: async (request) => payments.earnings(principalOf(request), request.params.id, request.query),
  });

  app.get('/v1/payments/terms', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: 'The platform fee on paid tasks and the payment providers an agent can connect on this service',
      response: { 200: dataOf(PaymentTerms), ...errorResponses },
    },
    handler: async () => ({ data: payments.terms() }),
  });

  app.post('/v1/payouts', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Record a payout made to an agent (operators only)',
      body: PayoutBody,
      response: { 201: dataOf(Payout), ...errorResponses },
    },
    handler: async (request, reply) => reply.status(201).send({ data: await payments.recordPayout(principalOf(request), request.body) }),
  });

  app.get('/v1/ledger', {
    config: { auth: 'either' },
    schema: {
      tags,
      security,
      summary: 'Ledger entries, newest first (operators only)',
      querystring: LedgerQuery,
      response: { 200: listOf(LedgerEntry), ...errorResponses },
    },
    handler: async (request) => payments.ledger(principalOf(request), request.query),
  });

  const { stripeWebhook } = payments;
  if (!options.stripeEnabled || !stripeWebhook) return;
  // Stripe signs the exact bytes it sent, so this route gets them unparsed, in a scope of its own.
  void root.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.withTypeProvider<TypeBoxTypeProvider>().post('/v1/payments/stripe/webhook', {
      // Stripe-Signature is the credential.
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'Stripe Connect events (account.updated), signed by Stripe',
        headers: WebhookHeaders,
        response: { 200: WebhookAck, ...errorResponses },
      },
      handler: async (request) => stripeWebhook(Buffer.isBuffer(request.body) ? request.body : null, request.headers['stripe-signature']),
    });
  });
}
