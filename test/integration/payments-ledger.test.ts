import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { isUniqueViolation } from '../../src/db/errors.ts';
import { expectError, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { newAgentKey, registerAgent, registerProvisional } from '../helpers/agents.ts';
import { assertLedgerBalanced, assignedTask, balanceOf, callback, entriesOfTask, pollingAgent } from '../helpers/payments.ts';
import { startAgentServer } from '../helpers/agent-server.ts';
import { readyWebhookAgent, submitTask, taskOf, waitForTask } from '../helpers/tasks.ts';

const OPERATOR = 'ops@agentry.example.test';
const env = { OPERATOR_EMAILS: `  ${OPERATOR.toUpperCase()} , other-ops@agentry.example.test` };

describe('payments: prices on agents', () => {
  let app: TestApp;
  let owner: { token: string };
  before(async () => {
    app = await startTestApp(env);
    owner = await app.signup();
  });
  after(() => app.close());

  it('default free in usd; set at registration, changed with PATCH, shown on the agent and in discovery', async () => {
    const free = await registerAgent(app, owner.token);
    assert.equal(free.pricePerTaskCents, 0);
    assert.equal(free.currency, 'usd');

    const paid = await registerAgent(app, owner.token, { pricePerTaskCents: 250, currency: 'eur' });
    assert.equal(paid.pricePerTaskCents, 250);
    assert.equal(paid.currency, 'eur');
    const patched = await app.request({ method: 'PATCH', url: `/v1/agents/${paid.id}`, token: owner.token, body: { pricePerTaskCents: 0, currency: 'gbp' } });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().data.pricePerTaskCents, 0);
    assert.equal(patched.json().data.currency, 'gbp');
    await app.request({ method: 'PATCH', url: `/v1/agents/${paid.id}`, token: owner.token, body: { pricePerTaskCents: 999 } });

    const read = (await app.request({ method: 'GET', url: `/v1/agents/${paid.id}` })).json().data;
    assert.deepEqual([read.pricePerTaskCents, read.currency], [999, 'gbp']);
    const discovered = await app.request({ method: 'GET', url: `/v1/discover/${paid.slug}` });
    assert.equal(discovered.statusCode, 200, discovered.body);
    assert.deepEqual([discovered.json().data.pricePerTaskCents, discovered.json().data.currency], [999, 'gbp']);
    const searched = (await app.request({ method: 'GET', url: '/v1/discover?limit=50' })).json().data as { id: string; pricePerTaskCents: number }[];
    assert.equal(searched.find((agent) => agent.id === paid.id)?.pricePerTaskCents, 999);
  });

  it('a provisional agent can name a price too', async () => {
    const { id } = await registerProvisional(app, newAgentKey(), { pricePerTaskCents: 75, currency: 'cad' });
    const read = (await app.request({ method: 'GET', url: `/v1/agents/${id}` })).json().data;
    assert.deepEqual([read.pricePerTaskCents, read.currency], [75, 'cad']);
  });

  it('refuses prices that are not whole non-negative cents, and currencies it does not take', async () => {
    const create = (body: Record<string, unknown>) =>
      app.request({
        method: 'POST',
        url: '/v1/agents',
        token: owner.token,
        body: { name: `Priced ${Math.random()}`, description: 'd', endpoint: 'https://a.example.test', protocols: ['rest'], categories: ['data'], ...body },
      });
    for (const bad of [
      { pricePerTaskCents: -1 },
      { pricePerTaskCents: 1.5 },
      { pricePerTaskCents: '100' },
      { pricePerTaskCents: 100_000_001 },
      { currency: 'USD' },
      { currency: 'jpy' },
      { currency: 'dollars' },
      { currency: 1 },
    ]) {
      expectError(await create(bad), 400, 'BAD_REQUEST');
    }
    const agent = await registerAgent(app, owner.token);
    expectError(await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { pricePerTaskCents: -5 } }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { currency: 'xxx' } }), 400, 'BAD_REQUEST');
  });
});

describe('payments: routing by price', () => {
  let app: TestApp;
  let owner: { token: string };
  let requester: { token: string };
  before(async () => {
    app = await startTestApp(env);
    owner = await app.signup();
    requester = await app.signup();
  });
  after(() => app.close());

  const plan = async (body: Record<string, unknown>) => {
    const response = await app.request({ method: 'POST', url: '/v1/tasks/route', token: requester.token, body: { description: 'x', ...body } });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data as { candidates: { agent: { id: string } }[]; excluded: { agent: { id: string }; reason: string }[] };
  };

  it('a task goes only to agents at or below its maxPriceCents, in its currency; without a budget only to free ones', async () => {
    const paid = await pollingAgent(app, owner.token, { pricePerTaskCents: 500, capabilities: ['price-tier-a'] });
    const free = await pollingAgent(app, owner.token, { currency: 'eur', capabilities: ['price-tier-a'] });
    const euro = await pollingAgent(app, owner.token, { pricePerTaskCents: 100, currency: 'eur', capabilities: ['price-tier-a'] });

    const withBudget = await plan({ capabilities: ['price-tier-a'], maxPriceCents: 500 });
    assert.deepEqual(withBudget.candidates.map((c) => c.agent.id).sort(), [paid.id, free.id].sort());
    assert.match(withBudget.excluded.find((e) => e.agent.id === euro.id)?.reason ?? '', /priced in eur; the task pays in usd/);

    const below = await plan({ capabilities: ['price-tier-a'], maxPriceCents: 499 });
    assert.match(below.excluded.find((e) => e.agent.id === paid.id)?.reason ?? '', /price 500 cents is above maxPriceCents 499/);

    const noBudget = await plan({ capabilities: ['price-tier-a'] });
    assert.deepEqual(
      noBudget.candidates.map((c) => c.agent.id),
      [free.id],
    );
    assert.match(noBudget.excluded.find((e) => e.agent.id === paid.id)?.reason ?? '', /names no maxPriceCents/);

    const inEuros = await plan({ capabilities: ['price-tier-a'], maxPriceCents: 100, currency: 'eur' });
    assert.deepEqual(inEuros.candidates.map((c) => c.agent.id).sort(), [free.id, euro.id].sort());

    const targeted = await submitTask(app, requester.token, { agentId: paid.id, maxPriceCents: 499 });
    assert.equal(targeted.status, 'unmatched');
    assert.equal(targeted.priceCents, null);
    expectError(
      await app.request({
        method: 'POST',
        url: '/v1/tasks',
        token: requester.token,
        body: { description: 'x', agentId: paid.id, maxPriceCents: 500, currency: 'yen' },
      }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await app.request({ method: 'POST', url: '/v1/tasks', token: requester.token, body: { description: 'x', agentId: paid.id, maxPriceCents: -1 } }),
      400,
      'BAD_REQUEST',
    );
  });

  it('the task records the price it was assigned at; a later price change does not alter it', async () => {
    const agent = await pollingAgent(app, owner.token, { pricePerTaskCents: 300 });
    const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 1000 });
    const before = await taskOf(app, requester.token, id);
    assert.deepEqual([before.priceCents, before.currency, before.maxPriceCents], [300, 'usd', 1000]);
    await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { pricePerTaskCents: 900 } });
    assert.equal((await callback(app, id, { taskToken: token, result: { ok: true } })).statusCode, 200);
    assert.equal((await taskOf(app, requester.token, id)).priceCents, 300);
    assert.equal((await entriesOfTask(app, id)).find((e) => e.kind === 'charge')?.amount, -300);
    await assertLedgerBalanced(app);
  });

  it('a fallback candidate whose price rose above the budget since routing is skipped', async () => {
    // The first candidate holds its webhook while the second raises its price, then drops the
    // connection: the attempt fails only after the price has risen, however slow the machine.
    const server = await startAgentServer(() => 'hang');
    const slow = await startTestApp({
      ...env,
      ALLOW_PRIVATE_ENDPOINTS: 'true',
      WEBHOOK_MAX_ATTEMPTS: '1',
      DELIVERY_POLL_INTERVAL_MS: '20',
    });
    try {
      const person = await slow.signup();
      const first = await readyWebhookAgent(slow, person.token, server.url, { capabilities: ['price-race'], pricePerTaskCents: 100 });
      const second = await pollingAgent(slow, person.token, { capabilities: ['price-race'], pricePerTaskCents: 100 });
      const task = await submitTask(slow, person.token, { capabilities: ['price-race'], maxPriceCents: 100 });
      assert.equal(task.assignedAgent?.id, first.id);
      await server.waitFor(1);
      assert.equal(
        (await slow.request({ method: 'PATCH', url: `/v1/agents/${second.id}`, token: person.token, body: { pricePerTaskCents: 101 } })).statusCode,
        200,
      );
      await server.close();
      const failed = await waitForTask(slow, person.token, task.id, (t) => t.status === 'failed');
      assert.equal(failed.assignedAgent?.id, first.id, 'never handed to the agent that became too expensive');
      assert.equal((failed.error as { code: string }).code, 'delivery_failed');
    } finally {
      await slow.close();
      await server.close();
    }
  });
});

describe('payments: the ledger of completed tasks', () => {
  let app: TestApp;
  let clock: TestClock;
  let owner: { token: string };
  let requester: { token: string; accountId: string };
  let stranger: { token: string };
  before(async () => {
    clock = new TestClock(Date.now());
    app = await startTestApp(env, { clock });
    owner = await app.signup();
    requester = await app.signup();
    stranger = await app.signup();
  });
  afterEach(() => assertLedgerBalanced(app));
  after(() => app.close());

  it('a completed paid task charges the requester, credits the agent and takes the 2.5% fee, once', async () => {
    const agent = await pollingAgent(app, owner.token, { pricePerTaskCents: 1000 });
    const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 1000 });
    assert.deepEqual(await entriesOfTask(app, id), [], 'nothing is written before completion');
    const done = await callback(app, id, { taskToken: token, result: { summary: 'done' } });
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual(await entriesOfTask(app, id), [
      { account: `requester:${requester.accountId}`, kind: 'charge', amount: -1000, currency: 'usd' },
      { account: `agent:${agent.id}`, kind: 'earning', amount: 975, currency: 'usd' },
      { account: 'platform:fees', kind: 'fee', amount: 25, currency: 'usd' },
    ]);
    assert.deepEqual(await balanceOf(app, owner.token, agent.id), { currency: 'usd', availableCents: 975, paidOutCents: 0 });

    expectError(await callback(app, id, { taskToken: token, result: { again: true } }), 409, 'CONFLICT');
    expectError(await callback(app, id, { taskToken: token, error: 'late failure' }), 409, 'CONFLICT');
    assert.equal((await entriesOfTask(app, id)).length, 3, 'a retried callback writes nothing');
    assert.deepEqual(await balanceOf(app, owner.token, agent.id), { currency: 'usd', availableCents: 975, paidOutCents: 0 });
  });

  it('free tasks, failed tasks, cancelled and expired tasks write no entries', async () => {
    const free = await pollingAgent(app, owner.token);
    const freeTask = await assignedTask(app, requester.token, owner.token, free.id);
    assert.equal((await callback(app, freeTask.id, { taskToken: freeTask.token, result: 'ok' })).statusCode, 200);
    assert.equal((await taskOf(app, requester.token, freeTask.id)).priceCents, 0);
    assert.deepEqual(await entriesOfTask(app, freeTask.id), []);

    const paid = await pollingAgent(app, owner.token, { pricePerTaskCents: 400 });
    const failed = await assignedTask(app, requester.token, owner.token, paid.id, { maxPriceCents: 400 });
    assert.equal((await callback(app, failed.id, { taskToken: failed.token, error: { code: 'nope' } })).json().data.status, 'failed');
    assert.deepEqual(await entriesOfTask(app, failed.id), []);

    const cancelled = await assignedTask(app, requester.token, owner.token, paid.id, { maxPriceCents: 400 });
    assert.equal((await app.request({ method: 'POST', url: `/v1/tasks/${cancelled.id}/cancel`, token: requester.token })).statusCode, 200);
    expectError(await callback(app, cancelled.id, { taskToken: cancelled.token, result: 'too late' }), 409, 'CONFLICT');
    assert.deepEqual(await entriesOfTask(app, cancelled.id), []);

    const expiring = await assignedTask(app, requester.token, owner.token, paid.id, { maxPriceCents: 400, expiresInMinutes: 1 });
    clock.advance(61_000);
    // The delivery worker expires tasks on each pass; one run now has had its chance.
    await app.deliveryWorker.settled();
    assert.equal((await taskOf(app, requester.token, expiring.id)).status, 'expired');
    // Expiry also voids the task token.
    expectError(await callback(app, expiring.id, { taskToken: expiring.token, result: 'too late' }), 401, 'UNAUTHORIZED');
    assert.deepEqual(await entriesOfTask(app, expiring.id), []);
    assert.deepEqual(await balanceOf(app, owner.token, paid.id), { currency: 'usd', availableCents: 0, paidOutCents: 0 });
  });

  it('twenty concurrent callbacks with the valid token: one 200, one set of entries', async () => {
    const agent = await pollingAgent(app, owner.token, { pricePerTaskCents: 777 });
    const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 777 });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => callback(app, id, { taskToken: token, result: { n } })));
    assert.equal(answers.filter((a) => a.statusCode === 200).length, 1);
    assert.equal(answers.filter((a) => a.statusCode === 409).length, 19);
    assert.equal((await entriesOfTask(app, id)).length, 3);
    assert.deepEqual(await balanceOf(app, owner.token, agent.id), { currency: 'usd', availableCents: 777 - 19, paidOutCents: 0 });
  });

  it('a second set of entries for a task is refused by the database itself', async () => {
    const agent = await pollingAgent(app, owner.token, { pricePerTaskCents: 120 });
    const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 120 });
    assert.equal((await callback(app, id, { taskToken: token, result: 'ok' })).statusCode, 200);
    const charge = await app.database.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('task_id', '=', id)
      .where('kind', '=', 'charge')
      .executeTakeFirstOrThrow();
    await assert.rejects(
      app.database.db
        .insertInto('ledger_entries')
        .values({ ...charge, amount_cents: Number(charge.amount_cents), id: 'duplicate', posting_id: 'duplicate' })
        .execute(),
      isUniqueViolation,
    );
  });

  it('a callback racing a cancel: either completed and paid, or cancelled and not', async () => {
    const agent = await pollingAgent(app, owner.token, { pricePerTaskCents: 200 });
    for (let round = 0; round < 5; round++) {
      const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 200 });
      await Promise.all([
        callback(app, id, { taskToken: token, result: round }),
        app.request({ method: 'POST', url: `/v1/tasks/${id}/cancel`, token: requester.token }),
      ]);
      const { status } = await taskOf(app, requester.token, id);
      assert.equal((await entriesOfTask(app, id)).length, status === 'completed' ? 3 : 0, status);
    }
  });

  it('the balance is for the owner: others 403 if they can see the agent, 404 if not; credentials checked', async () => {
    const open = await pollingAgent(app, owner.token);
    const hidden = await pollingAgent(app, owner.token, { visibility: 'private' });
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${open.id}/balance` }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${open.id}/balance`, token: 'ags_forged' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${open.id}/balance`, token: stranger.token }), 403, 'FORBIDDEN');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${hidden.id}/balance`, token: stranger.token }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: '/v1/agents/no-such-agent/balance', token: owner.token }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${open.id}/balance?currency=jpy`, token: owner.token }), 400, 'BAD_REQUEST');
    assert.deepEqual(await balanceOf(app, owner.token, open.id, 'eur'), { currency: 'eur', availableCents: 0, paidOutCents: 0 });

    // A key acting as one agent reads that agent's balance, not its sibling's.
    const key = await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'bot', agentId: open.id } });
    assert.equal(key.statusCode, 201, key.body);
    const agentKey = key.json().data.key as string;
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${open.id}/balance`, token: agentKey })).statusCode, 200);
    // A key acting as one agent does not see its owner's other private agents.
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${hidden.id}/balance`, token: agentKey }), 404, 'NOT_FOUND');
  });
});

describe("payments: an agent's earnings list and the payment terms", () => {
  let app: TestApp;
  let owner: { token: string };
  let requester: { token: string };
  let stranger: { token: string };
  before(async () => {
    app = await startTestApp(env);
    owner = await app.signup();
    requester = await app.signup();
    stranger = await app.signup();
  });
  after(() => app.close());

  it('lists each paid task, newest first, with amount, fee and net; free and failed tasks are not in it', async () => {
    const agent = await pollingAgent(app, owner.token, { pricePerTaskCents: 1000 });
    const first = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 1000 });
    assert.equal((await callback(app, first.id, { taskToken: first.token, result: 'one' })).statusCode, 200);
    const failed = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 1000 });
    assert.equal((await callback(app, failed.id, { taskToken: failed.token, error: { code: 'nope' } })).statusCode, 200);
    await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: owner.token, body: { pricePerTaskCents: 80 } });
    const second = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 80 });
    assert.equal((await callback(app, second.id, { taskToken: second.token, result: 'two' })).statusCode, 200);

    const listed = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/earnings`, token: owner.token });
    assert.equal(listed.statusCode, 200, listed.body);
    const body = listed.json();
    assert.deepEqual(
      body.data.map((row: Record<string, unknown>) => ({ ...row, createdAt: typeof row.createdAt })),
      [
        { taskId: second.id, amountCents: 80, feeCents: 2, netCents: 78, currency: 'usd', createdAt: 'string' },
        { taskId: first.id, amountCents: 1000, feeCents: 25, netCents: 975, currency: 'usd', createdAt: 'string' },
      ],
    );
    assert.deepEqual(body.pagination, { limit: 20, offset: 0, total: 2, hasMore: false });
    const paged = (await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/earnings?limit=1&offset=1`, token: owner.token })).json();
    assert.deepEqual([paged.data.map((row: { taskId: string }) => row.taskId), paged.pagination.hasMore], [[first.id], false]);
    const free = await pollingAgent(app, owner.token);
    const none = await app.request({ method: 'GET', url: `/v1/agents/${free.id}/earnings`, token: owner.token });
    assert.deepEqual(none.json(), { data: [], pagination: { limit: 20, offset: 0, total: 0, hasMore: false } });
  });

  it("the earnings are the owner's: no or a wrong credential 401, someone else's agent 403 or 404; bad paging 400", async () => {
    const open = await pollingAgent(app, owner.token);
    const hidden = await pollingAgent(app, owner.token, { visibility: 'private' });
    const url = (id: string, query = '') => `/v1/agents/${id}/earnings${query}`;
    expectError(await app.request({ method: 'GET', url: url(open.id) }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: url(open.id), token: 'ags_forged' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: url(open.id), token: stranger.token }), 403, 'FORBIDDEN');
    expectError(await app.request({ method: 'GET', url: url(hidden.id), token: stranger.token }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: url('no-such-agent'), token: owner.token }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: url(open.id, '?limit=0'), token: owner.token }), 400, 'BAD_REQUEST');
    expectError(await app.request({ method: 'GET', url: url(open.id, '?limit=abc'), token: owner.token }), 400, 'BAD_REQUEST');
    // A key acting as one agent reads that agent's earnings, not a sibling's.
    const key = await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'bot', agentId: open.id } });
    assert.equal(key.statusCode, 201, key.body);
    assert.equal((await app.request({ method: 'GET', url: url(open.id), token: key.json().data.key })).statusCode, 200);
    expectError(await app.request({ method: 'GET', url: url(hidden.id), token: key.json().data.key }), 404, 'NOT_FOUND');
  });

  it('the terms say the fee and offer the ledger only, without Stripe configured; anyone may read them', async () => {
    const terms = await app.request({ method: 'GET', url: '/v1/payments/terms' });
    assert.equal(terms.statusCode, 200, terms.body);
    assert.deepEqual(terms.json(), { data: { feeBps: 250, providers: ['ledger'] } });
  });
});

describe('payments: fee arithmetic', () => {
  const cases: [price: number, fee: number][] = [
    [1, 0],
    [39, 0],
    [40, 1],
    [79, 1],
    [80, 2],
    [1000, 25],
    [99_999_999, 2_499_999],
    [100_000_000, 2_500_000],
  ];

  for (const [bps, expectations] of [
    ['250', cases],
    [
      '0',
      [
        [1, 0],
        [100_000_000, 0],
      ],
    ],
    [
      '10000',
      [
        [1, 1],
        [12_345, 12_345],
      ],
    ],
    [
      '333',
      [
        [3, 0],
        [31, 1],
        [301, 10],
        [100_000_000, 3_330_000],
      ],
    ],
  ] as [string, [number, number][]][]) {
    it(`PLATFORM_FEE_BPS=${bps}: fee is floor(price × bps / 10000), the agent gets the rest, entries sum to zero`, async () => {
      const app = await startTestApp({ ...env, PLATFORM_FEE_BPS: bps });
      try {
        const owner = await app.signup();
        const requester = await app.signup();
        for (const [price, fee] of expectations) {
          const agent = await pollingAgent(app, owner.token, { pricePerTaskCents: price });
          const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: price });
          assert.equal((await callback(app, id, { taskToken: token, result: price })).statusCode, 200);
          const entries = await entriesOfTask(app, id);
          assert.deepEqual(
            entries.map((e) => [e.kind, e.amount]),
            [
              ['charge', -price],
              ['earning', price - fee],
              ['fee', fee],
            ],
            `price ${price}`,
          );
          assert.equal((await balanceOf(app, owner.token, agent.id)).availableCents, price - fee);
        }
        await assertLedgerBalanced(app);
      } finally {
        await app.close();
      }
    });
  }

  it('PLATFORM_FEE_BPS outside 0..10000 stops the service at start', async () => {
    await assert.rejects(startTestApp({ PLATFORM_FEE_BPS: '10001' }), /PLATFORM_FEE_BPS/);
    await assert.rejects(startTestApp({ PLATFORM_FEE_BPS: '2.5' }), /PLATFORM_FEE_BPS/);
  });
});

describe('payments: payment accounts with the ledger provider', () => {
  let app: TestApp;
  let owner: { token: string };
  let stranger: { token: string };
  before(async () => {
    app = await startTestApp(env);
    owner = await app.signup();
    stranger = await app.signup();
  });
  after(() => app.close());

  it('connects (201), reconnects (200) and shows its status to the owner', async () => {
    const agent = await registerAgent(app, owner.token);
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/payment-account`, token: owner.token }), 404, 'NOT_FOUND');
    const first = await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/payment-account`, token: owner.token });
    assert.equal(first.statusCode, 201, first.body);
    assert.deepEqual(first.json(), { data: { provider: 'ledger', status: 'active' } });
    const again = await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/payment-account`, token: owner.token, body: { provider: 'ledger' } });
    assert.equal(again.statusCode, 200);
    const shown = await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/payment-account`, token: owner.token });
    assert.deepEqual(shown.json(), { data: { provider: 'ledger', status: 'active' } });
  });

  it('refuses Stripe when it is not configured, bad bodies, and anyone but the owner', async () => {
    const agent = await registerAgent(app, owner.token);
    const hidden = await registerAgent(app, owner.token, { visibility: 'private' });
    const post = (body: unknown, token: string | null = owner.token, id = agent.id) =>
      app.request({ method: 'POST', url: `/v1/agents/${id}/payment-account`, token, body });
    const stripe = expectError(await post({ provider: 'stripe' }), 400, 'BAD_REQUEST');
    assert.match(stripe.message, /Stripe is not configured/);
    expectError(await post({ provider: 'paypal' }), 400, 'BAD_REQUEST');
    expectError(await post({ provider: 'ledger', extra: 1 }), 400, 'BAD_REQUEST');
    expectError(await post({ returnUrl: 'javascript:alert(1)' }), 400, 'BAD_REQUEST');
    expectError(
      await app.request({ method: 'POST', url: `/v1/agents/${agent.id}/payment-account`, token: owner.token, rawBody: '{"provider":' }),
      400,
      'BAD_REQUEST',
    );
    expectError(await post({}, null), 401, 'UNAUTHORIZED');
    expectError(await post({}, 'agk_forged'), 401, 'UNAUTHORIZED');
    expectError(await post({}, stranger.token), 403, 'FORBIDDEN');
    expectError(await post({}, stranger.token, hidden.id), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/payment-account`, token: stranger.token }), 403, 'FORBIDDEN');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${hidden.id}/payment-account`, token: stranger.token }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/payment-account` }), 401, 'UNAUTHORIZED');
    // Without Stripe configured there is no Stripe webhook to call.
    expectError(await app.request({ method: 'POST', url: '/v1/payments/stripe/webhook', body: {} }), 404, 'NOT_FOUND');
  });
});

describe('payments: operator payouts and the ledger view', () => {
  let app: TestApp;
  let operator: { token: string; accountId: string };
  let owner: { token: string };
  let requester: { token: string };
  let agent: { id: string };
  before(async () => {
    app = await startTestApp(env);
    operator = await app.signup(OPERATOR);
    owner = await app.signup();
    requester = await app.signup();
    agent = await pollingAgent(app, owner.token, { pricePerTaskCents: 2000 });
    for (let n = 0; n < 3; n++) {
      const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 5000 });
      assert.equal((await callback(app, id, { taskToken: token, result: n })).statusCode, 200);
    }
  });
  afterEach(() => assertLedgerBalanced(app));
  after(() => app.close());

  const payout = (body: unknown, token: string | null = operator.token) => app.request({ method: 'POST', url: '/v1/payouts', token, body });

  it('an operator records a payout; the balance moves from available to paid out', async () => {
    assert.deepEqual(await balanceOf(app, owner.token, agent.id), { currency: 'usd', availableCents: 5850, paidOutCents: 0 });
    const response = await payout({ agentId: agent.id, amountCents: 5000, reference: 'SEPA 2026-11-21' });
    assert.equal(response.statusCode, 201, response.body);
    const data = response.json().data;
    assert.equal(data.provider, 'ledger');
    assert.equal(data.amountCents, 5000);
    assert.equal(data.currency, 'usd');
    assert.equal(data.reference, 'SEPA 2026-11-21');
    assert.equal(data.recordedBy, operator.accountId);
    assert.deepEqual(data.balance, { currency: 'usd', availableCents: 850, paidOutCents: 5000 });
    assert.deepEqual(await balanceOf(app, owner.token, agent.id), { currency: 'usd', availableCents: 850, paidOutCents: 5000 });
  });

  it('never overdraws, not even with concurrent payouts', async () => {
    const over = expectError(await payout({ agentId: agent.id, amountCents: 851 }), 409, 'CONFLICT');
    assert.match(over.message, /available balance is 850 usd cents/);
    const answers = await Promise.all(Array.from({ length: 10 }, () => payout({ agentId: agent.id, amountCents: 100 })));
    assert.equal(answers.filter((a) => a.statusCode === 201).length, 8);
    assert.equal(answers.filter((a) => a.statusCode === 409).length, 2);
    assert.deepEqual(await balanceOf(app, owner.token, agent.id), { currency: 'usd', availableCents: 50, paidOutCents: 5800 });
    expectError(await payout({ agentId: agent.id, amountCents: 50, currency: 'eur' }), 409, 'CONFLICT');
    expectError(await payout({ agentId: 'no-such-agent', amountCents: 1 }), 404, 'NOT_FOUND');
  });

  it('only operators: others 403, no credential 401; bad input 400', async () => {
    expectError(await payout({ agentId: agent.id, amountCents: 1 }, owner.token), 403, 'FORBIDDEN');
    expectError(await payout({ agentId: agent.id, amountCents: 1 }, null), 401, 'UNAUTHORIZED');
    expectError(await payout({ agentId: agent.id, amountCents: 1 }, 'ags_forged'), 401, 'UNAUTHORIZED');
    for (const bad of [
      { agentId: agent.id },
      { agentId: agent.id, amountCents: 0 },
      { agentId: agent.id, amountCents: -10 },
      { agentId: agent.id, amountCents: 1.5 },
      { agentId: agent.id, amountCents: '10' },
      { agentId: agent.id, amountCents: 1, currency: 'jpy' },
      { agentId: agent.id, amountCents: 1, note: 'x' },
      { agentId: agent.id, amountCents: 1, reference: 'x'.repeat(201) },
    ]) {
      expectError(await payout(bad), 400, 'BAD_REQUEST');
    }
    expectError(await app.request({ method: 'POST', url: '/v1/payouts', token: operator.token, rawBody: '{"agentId": "x", ' }), 400, 'BAD_REQUEST');
    // An API key acting as an agent is never an operator, even one made by an operator.
    const opsAgent = await registerAgent(app, operator.token);
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token: operator.token, body: { name: 'bot', agentId: opsAgent.id } })).json().data
      .key as string;
    expectError(await payout({ agentId: agent.id, amountCents: 1 }, key), 403, 'FORBIDDEN');
  });

  it('operators read the ledger by account or task; nobody else does', async () => {
    const all = await app.request({ method: 'GET', url: `/v1/ledger?account=${encodeURIComponent(`agent:${agent.id}`)}&limit=100`, token: operator.token });
    assert.equal(all.statusCode, 200, all.body);
    const entries = all.json().data as { kind: string; amountCents: number; taskId: string | null }[];
    assert.equal(entries.filter((e) => e.kind === 'earning').length, 3);
    assert.equal(
      entries.reduce((sum, e) => sum + e.amountCents, 0),
      50,
      'the agent account nets to its balance',
    );
    const taskId = entries.find((e) => e.taskId)?.taskId as string;
    const ofTask = (await app.request({ method: 'GET', url: `/v1/ledger?taskId=${taskId}`, token: operator.token })).json();
    assert.equal(ofTask.data.length, 3);
    assert.equal(ofTask.pagination.total, 3);
    expectError(await app.request({ method: 'GET', url: '/v1/ledger', token: owner.token }), 403, 'FORBIDDEN');
    expectError(await app.request({ method: 'GET', url: '/v1/ledger' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/ledger?limit=0', token: operator.token }), 400, 'BAD_REQUEST');
  });

  it('an operator can be named by account id instead (OIDC accounts have no email)', async () => {
    const byId = await app.signup();
    expectError(await payout({ agentId: agent.id, amountCents: 1 }, byId.token), 403, 'FORBIDDEN');
    // Stands in for a restart with OPERATOR_ACCOUNT_IDS naming this account: the service reads the list it was built with.
    app.config.operators.accountIds.push(byId.accountId);
    try {
      assert.equal((await payout({ agentId: agent.id, amountCents: 1 }, byId.token)).statusCode, 201);
    } finally {
      app.config.operators.accountIds.pop();
    }
  });
});
