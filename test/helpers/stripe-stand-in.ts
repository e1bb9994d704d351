/**
 * A local stand-in for the few Stripe endpoints the service calls (there is no network here):
 * create and retrieve a connected account, create an onboarding link, create a transfer. It speaks
 * the official client's wire format (form-encoded bodies, JSON answers, `{ error }` on failure) and
 * honours `Idempotency-Key` as Stripe does: the same key with the same parameters answers the first
 * response again; the same key with other parameters is refused (400, `idempotency_error`).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export interface StripeRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
}

interface StandInAccount {
  id: string;
  object: 'account';
  type: 'express';
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  capabilities: { transfers: 'active' | 'inactive' | 'pending' };
  metadata: Record<string, string>;
}

export interface StripeStandIn {
  url: string;
  requests: StripeRequest[];
  accounts: Map<string, StandInAccount>;
  /** Transfers actually made (an idempotent replay makes none). */
  transfers: { id: string; amount: number; currency: string; destination: string; metadata: Record<string, string> }[];
  /** How many of the next transfer requests lose their connection before an answer (Infinity: all). */
  dropNextTransfers: number;
  /** How many of the next transfer requests Stripe refuses (400, saved under the idempotency key like any answer). */
  rejectNextTransfers: number;
  /** How many of the next transfer answers (a replay included) are lost on the network after Stripe has saved them. */
  loseNextTransferAnswers: number;
  /** Finishes onboarding of an account, as the owner would on Stripe's pages. */
  activate(accountId: string): StandInAccount;
  /** A signed `account.updated` delivery, as Stripe would POST it to the webhook. */
  accountUpdatedEvent(account: StandInAccount, secret: string, options?: { created?: number; timestamp?: number }): { body: string; signature: string };
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const stripeForSigning = new Stripe('sk_test_signing_only');

export async function startStripeStandIn(): Promise<StripeStandIn> {
  // Under each idempotency key: the parameters first sent with it, and the answer given.
  const replies = new Map<string, { params: string; status: number; body: unknown }>();
  const standIn: StripeStandIn = {
    url: '',
    requests: [],
    accounts: new Map(),
    transfers: [],
    dropNextTransfers: 0,
    rejectNextTransfers: 0,
    loseNextTransferAnswers: 0,
    activate(accountId) {
      const account = standIn.accounts.get(accountId);
      if (!account) throw new Error(`no stand-in account ${accountId}`);
      Object.assign(account, { charges_enabled: true, payouts_enabled: true, details_submitted: true, capabilities: { transfers: 'active' } });
      return structuredClone(account);
    },
    accountUpdatedEvent(account, secret, options = {}) {
      const created = options.created ?? Math.floor(Date.now() / 1000);
      const body = JSON.stringify({
        id: id('evt'),
        object: 'event',
        type: 'account.updated',
        created,
        api_version: '2026-10-28.endive',
        livemode: false,
        data: { object: account },
      });
      const signature = stripeForSigning.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: options.timestamp ?? created });
      return { body, signature };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  function answer(method: string, path: string, params: Record<string, string>): { status: number; body: unknown } {
    if (method === 'POST' && path === '/v1/accounts') {
      const metadata = Object.fromEntries(
        Object.entries(params)
          .filter(([key]) => key.startsWith('metadata['))
          .map(([key, value]) => [key.slice(9, -1), value]),
      );
      const account: StandInAccount = {
        id: id('acct'),
        object: 'account',
        type: 'express',
        charges_enabled: false,
        payouts_enabled: false,
        details_submitted: false,
        capabilities: { transfers: 'inactive' },
        metadata,
      };
      standIn.accounts.set(account.id, account);
      return { status: 200, body: account };
    }
    const accountPath = /^\/v1\/accounts\/(acct_[0-9a-f]+)$/.exec(path);
    if (method === 'GET' && accountPath) {
      const account = standIn.accounts.get(accountPath[1]!);
      return account
        ? { status: 200, body: account }
        : { status: 404, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such account' } } };
    }
    if (method === 'POST' && path === '/v1/account_links') {
      if (!standIn.accounts.has(params.account ?? '') || !params.return_url || !params.refresh_url || params.type !== 'account_onboarding') {
        return { status: 400, body: { error: { type: 'invalid_request_error', message: 'bad account link request' } } };
      }
      return {
        status: 200,
        body: {
          object: 'account_link',
          url: `https://connect.stripe.test/setup/e/${params.account}/${randomBytes(6).toString('hex')}`,
          created: 0,
          expires_at: 300,
        },
      };
    }
    if (method === 'POST' && path === '/v1/transfers') {
      if (standIn.rejectNextTransfers > 0) {
        standIn.rejectNextTransfers--;
        return {
          status: 400,
          body: { error: { type: 'invalid_request_error', code: 'balance_insufficient', message: 'Insufficient funds in the platform balance' } },
        };
      }
      const destination = standIn.accounts.get(params.destination ?? '');
      if (!destination?.payouts_enabled)
        return { status: 400, body: { error: { type: 'invalid_request_error', message: 'destination cannot receive transfers' } } };
      const transfer = {
        id: id('tr'),
        object: 'transfer',
        amount: Number(params.amount),
        currency: params.currency ?? '',
        destination: destination.id,
        metadata: { taskId: params['metadata[taskId]'] ?? '' },
      };
      standIn.transfers.push(transfer);
      return { status: 200, body: transfer };
    }
    return { status: 404, body: { error: { type: 'invalid_request_error', message: `stand-in has no ${method} ${path}` } } };
  }

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
      const method = request.method ?? 'GET';
      standIn.requests.push({ method, path: url.pathname, params, idempotencyKey, authorization: request.headers.authorization });
      const isTransfer = method === 'POST' && url.pathname === '/v1/transfers';
      // Stripe compares every request made with a key (endpoint, and parameters in any order) to the first one.
      const sent = `${method} ${url.pathname} ${JSON.stringify(Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}`;
      const saved = idempotencyKey ? replies.get(idempotencyKey) : undefined;
      let reply: { status: number; body: unknown };
      if (saved && saved.params !== sent) {
        reply = {
          status: 400,
          body: {
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            },
          },
        };
      } else if (saved) {
        reply = saved;
      } else {
        if (isTransfer && standIn.dropNextTransfers > 0) {
          standIn.dropNextTransfers--;
          request.socket.destroy();
          return;
        }
        reply = answer(method, url.pathname, params);
        // Stripe saves the first answer under a key, error or not, and replays it.
        if (idempotencyKey) replies.set(idempotencyKey, { params: sent, ...reply });
      }
      if (isTransfer && standIn.loseNextTransferAnswers > 0) {
        standIn.loseNextTransferAnswers--;
        request.socket.destroy();
        return;
      }
      response.writeHead(reply.status, { 'content-type': 'application/json', 'request-id': id('req') });
      response.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}
