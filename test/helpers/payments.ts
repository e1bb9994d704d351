import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { TestApp } from './app.ts';
import { registerAgent } from './agents.ts';
import { heartbeat, submitTask } from './tasks.ts';

/**
 * The ledger's invariants, checked on the stored rows: all entries sum to zero (per currency and per
 * posting), and every agent's running totals agree with its entries and are never negative.
 */
export async function assertLedgerBalanced(app: TestApp): Promise<void> {
  const db = app.database.db;
  const perCurrency = await db
    .selectFrom('ledger_entries')
    .select(['currency', sql<string>`sum(amount_cents)`.as('total')])
    .groupBy('currency')
    .execute();
  for (const row of perCurrency) assert.equal(Number(row.total), 0, `entries in ${row.currency} sum to ${row.total}`);
  const unbalanced = await db
    .selectFrom('ledger_entries')
    .select('posting_id')
    .groupBy('posting_id')
    .having(sql`sum(amount_cents)`, '!=', 0)
    .execute();
  assert.deepEqual(unbalanced, [], 'every posting sums to zero');

  const balances = await db.selectFrom('agent_balances').selectAll().execute();
  for (const balance of balances) {
    const available = Number(balance.available_cents);
    const reserved = Number(balance.reserved_cents);
    const paidOut = Number(balance.paid_out_cents);
    assert.ok(available >= 0 && reserved >= 0 && paidOut >= 0, `balance of ${balance.agent_id} is never negative`);
    const entries = await db
      .selectFrom('ledger_entries')
      .select([
        sql<string>`coalesce(sum(amount_cents), 0)`.as('net'),
        sql<string>`coalesce(sum(case when kind = 'payout' then amount_cents else 0 end), 0)`.as('paid'),
      ])
      .where('account', '=', `agent:${balance.agent_id}`)
      .where('currency', '=', balance.currency)
      .executeTakeFirstOrThrow();
    assert.equal(available + reserved, Number(entries.net), `agent ${balance.agent_id}: running total matches its entries`);
    assert.equal(paidOut, 0 - Number(entries.paid), `agent ${balance.agent_id}: paid out matches its payout entries`);
  }
}

export async function entriesOfTask(app: TestApp, taskId: string) {
  const rows = await app.database.db.selectFrom('ledger_entries').selectAll().where('task_id', '=', taskId).orderBy('kind').execute();
  return rows.map((row) => ({ account: row.account, kind: row.kind, amount: Number(row.amount_cents), currency: row.currency }));
}

/** An owned polling agent with a heartbeat, so routing may choose it; no webhook server needed. */
export async function pollingAgent(app: TestApp, ownerToken: string, overrides: Record<string, unknown> = {}) {
  const agent = await registerAgent(app, ownerToken, { deliveryMode: 'poll', capabilities: ['text-summarization'], ...overrides });
  await heartbeat(app, ownerToken, agent.id);
  return agent;
}

/** Submits a task to one agent and takes it as that agent: the task id and the callback token. */
export async function assignedTask(app: TestApp, requesterToken: string, ownerToken: string, agentId: string, body: Record<string, unknown> = {}) {
  const task = await submitTask(app, requesterToken, { agentId, ...body });
  assert.equal(task.status, 'matched', JSON.stringify(task));
  const polled = await app.request({ method: 'GET', url: `/v1/agents/${agentId}/tasks/poll?wait=0&limit=1`, token: ownerToken });
  assert.equal(polled.statusCode, 200, polled.body);
  const [payload] = polled.json().data as { taskId: string; taskToken: string }[];
  assert.equal(payload?.taskId, task.id);
  return { id: task.id, token: payload.taskToken, task };
}

export const callback = (app: TestApp, taskId: string, body: Record<string, unknown>) =>
  app.request({ method: 'POST', url: `/v1/tasks/${taskId}/callback`, body });

export async function balanceOf(app: TestApp, token: string, agentId: string, currency?: string) {
  const response = await app.request({ method: 'GET', url: `/v1/agents/${agentId}/balance${currency ? `?currency=${currency}` : ''}`, token });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().data as { currency: string; availableCents: number; paidOutCents: number };
}
