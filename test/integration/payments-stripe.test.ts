/**
 * Stripe Connect through the official `stripe` client, against a local stand-in of the endpoints it
 * calls (accounts, account links, transfers): there is no network here. Webhooks are signed with
 * the client's own test-header helper, so `constructEvent` checks real signatures.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { registerAgent } from '../helpers/agents.ts';
import { assertLedgerBalanced, assignedTask, balanceOf, callback, entriesOfTask, pollingAgent } from '../helpers/payments.ts';
import { startStripeStandIn, type StripeStandIn } from '../helpers/stripe-stand-in.ts';
import { waitFor } from '../helpers/wait.ts';

const WEBHOOK_SECRET = 'whsec_standin_secret';
const OPERATOR = 'ops@agentry.example.test';

describe('payments: Stripe Connect', () => {
  let app: TestApp;
  let stripe: StripeStandIn;
  let clock: TestClock;
  let owner: { token: string };
  let requester: { token: string };
  let operator: { token: string };

  before(async () => {
    stripe = await startStripeStandIn();
    clock = new TestClock(Date.now());
    app = await startTestApp(
      {
        STRIPE_SECRET_KEY: 'sk_test_standin',
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_BASE: stripe.url,
        DELIVERY_POLL_INTERVAL_MS: '20',
        OPERATOR_EMAILS: OPERATOR,
      },
      { clock },
    );
    owner = await app.signup();
    requester = await app.signup();
    operator = await app.signup(OPERATOR);
  });
  afterEach(() => assertLedgerBalanced(app));
  after(async () => {
    await app.close();
    await stripe.close();
  });

  const connect = (agentId: string, body: Record<string, unknown> = { provider: 'stripe' }, token = owner.token) =>
    app.request({ method: 'POST', url: `/v1/agents/${agentId}/payment-account`, token, body });
  const accountOf = async (agentId: string) =>
    (await app.request({ method: 'GET', url: `/v1/agents/${agentId}/payment-account`, token: owner.token })).json().data;
  const deliver = (event: { body: string; signature: string }) =>
    app.request({ method: 'POST', url: '/v1/payments/stripe/webhook', rawBody: event.body, headers: { 'stripe-signature': event.signature } });
  const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

  /** An agent connected to Stripe and through onboarding. */
  async function activeStripeAgent(price: number) {
    const agent = await pollingAgent(app, owner.token, { pricePerTaskCents: price });
    assert.equal((await connect(agent.id)).statusCode, 201);
    const stripeId = [...stripe.accounts.values()].find((a) => a.metadata.agentId === agent.id)!.id;
    assert.equal((await deliver(stripe.accountUpdatedEvent(stripe.activate(stripeId), WEBHOOK_SECRET, { created: nowSeconds() }))).statusCode, 200);
    assert.equal((await accountOf(agent.id)).status, 'active');
    return { ...agent, stripeId };
  }

  it('onboarding: pending with a Stripe link, active once Stripe says payouts are enabled', async () => {
    const terms = await app.request({ method: 'GET', url: '/v1/payments/terms' });
    assert.deepEqual(terms.json().data.providers, ['ledger', 'stripe'], 'with Stripe configured the terms offer it');
    const agent = await registerAgent(app, owner.token);
    const first = await connect(agent.id, { provider: 'stripe', returnUrl: 'https://dash.example.test/done', refreshUrl: 'https://dash.example.test/again' });
    assert.equal(first.statusCode, 201, first.body);
    const data = first.json().data;
    assert.equal(data.provider, 'stripe');
    assert.equal(data.status, 'pending');
    assert.match(data.onboardingUrl, /^https:\/\/connect\.stripe\.test\/setup\/e\/acct_/);

    const created = stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/accounts');
    const mine = created.find((r) => r.params['metadata[agentId]'] === agent.id)!;
    assert.equal(mine.params.type, 'express');
    assert.equal(mine.params['capabilities[transfers][requested]'], 'true');
    assert.equal(mine.idempotencyKey, `agentry-account-${agent.id}`);
    assert.equal(mine.authorization, 'Bearer sk_test_standin');
    const link = stripe.requests.filter((r) => r.path === '/v1/account_links').at(-1)!;
    assert.deepEqual(
      [link.params.type, link.params.return_url, link.params.refresh_url],
      ['account_onboarding', 'https://dash.example.test/done', 'https://dash.example.test/again'],
    );
    const stripeId = link.params.account!;
    assert.deepEqual(await accountOf(agent.id), { provider: 'stripe', status: 'pending' });

    // Asking again while pending: a fresh link for the same Stripe account, not a second account.
    const again = await connect(agent.id);
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().data.status, 'pending');
    assert.notEqual(again.json().data.onboardingUrl, data.onboardingUrl);
    assert.equal(stripe.requests.filter((r) => r.path === '/v1/accounts' && r.params['metadata[agentId]'] === agent.id).length, 1);
    assert.equal(stripe.requests.filter((r) => r.path === '/v1/account_links').at(-1)!.params.account, stripeId);

    // An update that does not finish onboarding leaves it pending; the one that does makes it active.
    const unfinished = structuredClone(stripe.accounts.get(stripeId)!);
    assert.equal((await deliver(stripe.accountUpdatedEvent(unfinished, WEBHOOK_SECRET, { created: nowSeconds() - 10 }))).statusCode, 200);
    assert.equal((await accountOf(agent.id)).status, 'pending');
    const finished = await deliver(stripe.accountUpdatedEvent(stripe.activate(stripeId), WEBHOOK_SECRET, { created: nowSeconds() }));
    assert.equal(finished.statusCode, 200, finished.body);
    assert.deepEqual(finished.json(), { received: true });
    assert.deepEqual(await accountOf(agent.id), { provider: 'stripe', status: 'active' });

    // An older event delivered late changes nothing.
    assert.equal(
      (await deliver(stripe.accountUpdatedEvent(unfinished, WEBHOOK_SECRET, { created: nowSeconds() - 5, timestamp: nowSeconds() }))).statusCode,
      200,
    );
    assert.equal((await accountOf(agent.id)).status, 'active');

    // Connecting an active account again answers active, with no link.
    const active = await connect(agent.id);
    assert.deepEqual(active.json(), { data: { provider: 'stripe', status: 'active' } });

    // Switching to the ledger and back reuses the Stripe account.
    assert.deepEqual((await connect(agent.id, { provider: 'ledger' })).json(), { data: { provider: 'ledger', status: 'active' } });
    assert.deepEqual((await connect(agent.id)).json(), { data: { provider: 'stripe', status: 'active' } });
    assert.equal(stripe.requests.filter((r) => r.path === '/v1/accounts' && r.params['metadata[agentId]'] === agent.id).length, 1);
  });

  it('the webhook takes only events signed with the secret, recent, as sent', async () => {
    const agent = await registerAgent(app, owner.token);
    await connect(agent.id);
    const stripeId = [...stripe.accounts.values()].find((a) => a.metadata.agentId === agent.id)!.id;
    const account = stripe.activate(stripeId);

    const forged = stripe.accountUpdatedEvent(account, 'whsec_someone_else', { created: nowSeconds() });
    expectError(await deliver(forged), 400, 'BAD_REQUEST');
    const genuine = stripe.accountUpdatedEvent(account, WEBHOOK_SECRET, { created: nowSeconds() });
    expectError(await deliver({ body: genuine.body.replace('"account.updated"', '"account.updated" '), signature: genuine.signature }), 400, 'BAD_REQUEST');
    expectError(await deliver(stripe.accountUpdatedEvent(account, WEBHOOK_SECRET, { created: nowSeconds() - 400 })), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'POST', url: '/v1/payments/stripe/webhook', rawBody: genuine.body }), 400, 'BAD_REQUEST');
    expectError(
      await app.request({ method: 'POST', url: '/v1/payments/stripe/webhook', headers: { 'stripe-signature': genuine.signature } }),
      400,
      'BAD_REQUEST',
    );
    expectError(await deliver({ body: 'not json', signature: genuine.signature }), 400, 'BAD_REQUEST');
    assert.equal((await accountOf(agent.id)).status, 'pending', 'no refused event changed anything');

    // Other event types and unknown accounts are acknowledged and ignored.
    const other = JSON.stringify({ id: 'evt_1', object: 'event', type: 'payout.paid', created: nowSeconds(), data: { object: {} } });
    const { default: Stripe } = await import('stripe');
    const signature = new Stripe('sk_test_x').webhooks.generateTestHeaderString({ payload: other, secret: WEBHOOK_SECRET, timestamp: nowSeconds() });
    assert.equal((await deliver({ body: other, signature })).statusCode, 200);
    assert.equal((await deliver(stripe.accountUpdatedEvent({ ...account, id: 'acct_unknown' }, WEBHOOK_SECRET, { created: nowSeconds() }))).statusCode, 200);

    assert.equal((await deliver(genuine)).statusCode, 200);
    assert.equal((await accountOf(agent.id)).status, 'active');
  });

  it('a completed paid task for an active Stripe agent is transferred once, after commit, keyed by the task', async () => {
    const agent = await activeStripeAgent(1000);
    const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 1000 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => callback(app, id, { taskToken: token, result: 'ok' })));
    assert.equal(answers.filter((a) => a.statusCode === 200).length, 1);

    const balance = await waitFor(
      'transfer posted',
      () => balanceOf(app, owner.token, agent.id),
      (b) => b.paidOutCents > 0,
    );
    assert.deepEqual(balance, { currency: 'usd', availableCents: 0, paidOutCents: 975 });
    const transfers = stripe.transfers.filter((t) => t.metadata.taskId === id);
    assert.equal(transfers.length, 1);
    assert.deepEqual([transfers[0]!.amount, transfers[0]!.currency, transfers[0]!.destination], [975, 'usd', agent.stripeId]);
    const sent = stripe.requests.filter((r) => r.path === '/v1/transfers' && r.params['metadata[taskId]'] === id);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.idempotencyKey, `agentry-transfer-${id}`);
    assert.equal(sent[0]!.params.transfer_group, `task_${id}`);
    assert.equal((await entriesOfTask(app, id)).length, 3);
  });

  it('a transfer cut off on the network is retried later with the same idempotency key; in flight it cannot be paid out twice', async () => {
    const agent = await activeStripeAgent(2000);
    // The client itself resends once on a closed connection (same key), so two drops fail an attempt.
    stripe.dropNextTransfers = 2;
    const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 2000 });
    assert.equal((await callback(app, id, { taskToken: token, result: 'ok' })).statusCode, 200);
    const state = () => app.database.db.selectFrom('payment_transfers').select(['state', 'attempts']).where('task_id', '=', id).executeTakeFirstOrThrow();
    await waitFor('first attempt failed', state, (s) => s.state === 'pending' && s.attempts === 1);

    // Owed but in flight: shown as available, not payable by an operator.
    assert.deepEqual(await balanceOf(app, owner.token, agent.id), { currency: 'usd', availableCents: 1950, paidOutCents: 0 });
    const refused = await app.request({ method: 'POST', url: '/v1/payouts', token: operator.token, body: { agentId: agent.id, amountCents: 1950 } });
    assert.match(expectError(refused, 409, 'CONFLICT').message, /1950 more are in a Stripe transfer/);

    clock.advance(31_000);
    await waitFor(
      'transfer posted',
      () => balanceOf(app, owner.token, agent.id),
      (b) => b.paidOutCents === 1950,
    );
    const attempts = stripe.requests.filter((r) => r.path === '/v1/transfers' && r.params['metadata[taskId]'] === id);
    assert.equal(attempts.length, 3);
    assert.equal(new Set(attempts.map((r) => JSON.stringify([r.idempotencyKey, r.params]))).size, 1, 'every attempt sent the same key and parameters');
    assert.equal(stripe.transfers.filter((t) => t.metadata.taskId === id).length, 1);
  });

  it("a transfer whose answer was lost is sent again unchanged, even after the agent changed its price, and Stripe's saved transfer is recorded", async () => {
    const agent = await activeStripeAgent(2000);
    // Stripe makes the transfer, then both answers (the first and the client's own resend) are lost.
    stripe.loseNextTransferAnswers = 2;
    const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 2000 });
    assert.equal((await callback(app, id, { taskToken: token, result: 'ok' })).statusCode, 200);
    const state = () =>
      app.database.db
        .selectFrom('payment_transfers')
        .select(['state', 'attempts', 'amount_cents', 'transfer_id', 'last_error'])
        .where('task_id', '=', id)
        .executeTakeFirstOrThrow();
    await waitFor('first attempt failed', state, (s) => s.state === 'pending' && s.attempts === 1);
    const repriced = await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { pricePerTaskCents: 3000 } });
    assert.equal(repriced.statusCode, 200, repriced.body);

    clock.advance(31_000);
    const sent = await waitFor('the second attempt to settle', state, (s) => s.state === 'sent' || s.state === 'failed');
    assert.equal(sent.state, 'sent', sent.last_error ?? '');
    const made = stripe.transfers.filter((t) => t.metadata.taskId === id);
    assert.equal(made.length, 1, 'Stripe made one transfer');
    assert.deepEqual([made[0]!.amount, Number(sent.amount_cents), sent.transfer_id], [1950, 1950, made[0]!.id]);
    const attempts = stripe.requests.filter((r) => r.path === '/v1/transfers' && r.params['metadata[taskId]'] === id);
    assert.equal(attempts.length, 3);
    assert.equal(new Set(attempts.map((r) => JSON.stringify([r.idempotencyKey, r.params]))).size, 1, 'every attempt sent the same key and parameters');
    assert.deepEqual(await balanceOf(app, owner.token, agent.id), { currency: 'usd', availableCents: 0, paidOutCents: 1950 });
  });

  it('the stand-in refuses a reused idempotency key with other parameters, as Stripe does', async () => {
    const agent = await activeStripeAgent(100);
    const key = `stand-in-check-${agent.id}`;
    const transfer = (amount: number) =>
      fetch(`${stripe.url}/v1/transfers`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk_test_standin', 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key },
        body: new URLSearchParams({ amount: String(amount), currency: 'usd', destination: agent.stripeId, 'metadata[taskId]': key }),
      });
    const first = await transfer(100);
    assert.equal(first.status, 200);
    const firstId = ((await first.json()) as { id: string }).id;
    const changed = await transfer(101);
    assert.equal(changed.status, 400);
    assert.equal(((await changed.json()) as { error: { type: string } }).error.type, 'idempotency_error');
    const replayed = await transfer(100);
    assert.equal(replayed.status, 200);
    assert.equal(((await replayed.json()) as { id: string }).id, firstId);
    assert.equal(stripe.transfers.filter((t) => t.metadata.taskId === key).length, 1);
  });

  it('a transfer that never gets through is given up after six attempts and its amount is available again', async () => {
    const agent = await activeStripeAgent(500);
    stripe.dropNextTransfers = Infinity;
    try {
      const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 500 });
      assert.equal((await callback(app, id, { taskToken: token, result: 'ok' })).statusCode, 200);
      const attemptsSoFar = () => stripe.requests.filter((r) => r.path === '/v1/transfers' && r.params['metadata[taskId]'] === id).length;
      const state = () => app.database.db.selectFrom('payment_transfers').select(['state', 'attempts']).where('task_id', '=', id).executeTakeFirstOrThrow();
      for (let attempt = 1; attempt < 6; attempt++) {
        // Each failure schedules the next attempt 30 s × 4^(n-1) later (by the service's clock).
        await waitFor(`attempt ${attempt} failed`, state, (s) => s.state === 'pending' && s.attempts === attempt);
        // Two requests per attempt: the client resends once itself on a closed connection.
        assert.equal(attemptsSoFar(), 2 * attempt);
        clock.advance(30_000 * 4 ** (attempt - 1) - 1000);
        await app.transferWorker!.settled();
        assert.equal(attemptsSoFar(), 2 * attempt, 'not before its time');
        clock.advance(2000);
      }
      assert.deepEqual(await waitFor('given up', state, (s) => s.state === 'failed'), { state: 'failed', attempts: 6 });
      clock.advance(30_000 * 4 ** 6);
      await app.transferWorker!.settled();
      assert.equal(attemptsSoFar(), 12, 'no seventh attempt');
      assert.equal(new Set(stripe.requests.filter((r) => r.params['metadata[taskId]'] === id).map((r) => r.idempotencyKey)).size, 1);
      const payout = await app.request({
        method: 'POST',
        url: '/v1/payouts',
        token: operator.token,
        body: { agentId: agent.id, amountCents: 488, reference: 'manual, after Stripe refused' },
      });
      assert.equal(payout.statusCode, 201, payout.body);
      assert.deepEqual(await balanceOf(app, owner.token, agent.id), { currency: 'usd', availableCents: 0, paidOutCents: 488 });
    } finally {
      stripe.dropNextTransfers = 0;
    }
  });

  it('a transfer Stripe refuses is not retried (Stripe would replay the refusal); the amount is available again', async () => {
    const agent = await activeStripeAgent(4000);
    stripe.rejectNextTransfers = 1;
    const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 4000 });
    assert.equal((await callback(app, id, { taskToken: token, result: 'ok' })).statusCode, 200);
    const state = () =>
      app.database.db.selectFrom('payment_transfers').select(['state', 'attempts', 'last_error']).where('task_id', '=', id).executeTakeFirstOrThrow();
    const failed = await waitFor('refused', state, (s) => s.state === 'failed');
    assert.equal(failed.attempts, 1);
    assert.match(failed.last_error ?? '', /balance_insufficient/);
    clock.advance(3_600_000);
    await app.transferWorker!.settled();
    assert.equal(stripe.requests.filter((r) => r.path === '/v1/transfers' && r.params['metadata[taskId]'] === id).length, 1);
    const payout = await app.request({ method: 'POST', url: '/v1/payouts', token: operator.token, body: { agentId: agent.id, amountCents: 3900 } });
    assert.equal(payout.statusCode, 201, payout.body);
  });

  it('an agent whose onboarding is not finished keeps its earnings in the ledger; no transfer is attempted', async () => {
    const agent = await pollingAgent(app, owner.token, { pricePerTaskCents: 300 });
    assert.equal((await connect(agent.id)).json().data.status, 'pending');
    const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 300 });
    assert.equal((await callback(app, id, { taskToken: token, result: 'ok' })).statusCode, 200);
    await app.transferWorker!.settled();
    assert.equal(stripe.requests.filter((r) => r.path === '/v1/transfers' && r.params['metadata[taskId]'] === id).length, 0);
    assert.equal(await app.database.db.selectFrom('payment_transfers').select('task_id').where('task_id', '=', id).executeTakeFirst(), undefined);
    assert.deepEqual(await balanceOf(app, owner.token, agent.id), { currency: 'usd', availableCents: 293, paidOutCents: 0 });
  });

  it('Stripe unreachable: connecting answers 503 and stores nothing', async () => {
    const agent = await registerAgent(app, owner.token);
    const down = await startTestApp({ STRIPE_SECRET_KEY: 'sk_test_standin', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: 'http://127.0.0.1:1' });
    try {
      const person = await down.signup();
      const mine = await registerAgent(down, person.token);
      const response = await down.request({ method: 'POST', url: `/v1/agents/${mine.id}/payment-account`, token: person.token, body: { provider: 'stripe' } });
      assert.match(expectError(response, 503, 'UNAVAILABLE').message, /Stripe account creation failed/);
      expectError(await down.request({ method: 'GET', url: `/v1/agents/${mine.id}/payment-account`, token: person.token }), 404, 'NOT_FOUND');
    } finally {
      await down.close();
    }
    assert.equal((await connect(agent.id, { provider: 'stripe' }, (await app.signup()).token)).statusCode, 403);
  });
});

describe('payments: Stripe configuration', () => {
  it('needs the webhook secret with the key, and the key with the other Stripe settings', async () => {
    await assert.rejects(startTestApp({ STRIPE_SECRET_KEY: 'sk_test_x' }), /STRIPE_WEBHOOK_SECRET is required/);
    await assert.rejects(startTestApp({ STRIPE_WEBHOOK_SECRET: 'whsec_x' }), /STRIPE_SECRET_KEY is required/);
    await assert.rejects(startTestApp({ STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x', STRIPE_API_BASE: 'ftp://x' }), /STRIPE_API_BASE/);
  });
});
