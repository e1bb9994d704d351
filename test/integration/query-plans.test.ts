/**
 * The queries background loops run on every wake must find their rows through an index, however
 * many finished tasks and deliveries the tables hold: a scan there costs CPU on an idle node and
 * latency on every task. Each plan is read with EXPLAIN on a database seeded with finished rows and
 * analysed, as a production database is.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { createPaymentsStore } from '../../src/modules/payments/index.ts';
import { createReceiptsStore } from '../../src/modules/receipts/index.ts';
import { createTasksStore } from '../../src/modules/tasks/index.ts';
import { dialectUnderTest, openTestDatabase } from '../helpers/app.ts';

const FINISHED_TASKS = 20_000;

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

/** Every index the plan of `query` reads, by name. */
async function indexesUsed(database: TestDatabase, query: CompiledQuery): Promise<string[]> {
  const { db } = database.handle;
  if (dialectUnderTest === 'sqlite') {
    const plan = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]));
    return plan.rows.flatMap((row) => [...row.detail.matchAll(/USING (?:COVERING )?INDEX (\w+)/g)].map((match) => match[1]!));
  }
  const plan = await db.executeQuery<{ 'QUERY PLAN': unknown }>(CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${query.sql}`, [...query.parameters]));
  const names: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'Index Name' && typeof value === 'string') names.push(value);
        else walk(value);
      }
    }
  };
  walk(plan.rows[0]!['QUERY PLAN']);
  return names;
}

/** The indexes of the plan with the database's statistics and, on SQLite, without any. */
async function plannedBothWays(database: TestDatabase, query: CompiledQuery): Promise<string[][]> {
  const analysed = await indexesUsed(database, query);
  if (dialectUnderTest !== 'sqlite') return [analysed];
  const { db } = database.handle;
  await sql`DELETE FROM sqlite_stat1`.execute(db);
  await sql`ANALYZE sqlite_schema`.execute(db);
  try {
    return [analysed, await indexesUsed(database, query)];
  } finally {
    await sql`ANALYZE`.execute(db);
  }
}

describe(`background queries use their indexes with ${FINISHED_TASKS.toLocaleString('en')} finished tasks (${dialectUnderTest})`, () => {
  let database: TestDatabase;

  before(async () => {
    database = await openTestDatabase();
    await database.migrate();
    const { db } = database.handle;
    const at = '2026-11-01T00:00:00.000Z';
    await sql`INSERT INTO accounts (id, kind, email, created_at) VALUES ('requester', 'person', 'requester@example.test', ${at})`.execute(db);
    await sql`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${FINISHED_TASKS})
      INSERT INTO tasks (id, requester_id, description, capabilities, candidates, status, priority, created_at, updated_at, expires_at, completed_at)
      SELECT 'task-' || i, 'requester', 'done', '[]', '[]', CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'completed' END, 'normal', ${at}, ${at}, ${at}, ${at} FROM n`.execute(
      db,
    );
    await sql`
      INSERT INTO task_deliveries (id, task_id, agent_id, attempts, state, run_at, created_at, updated_at)
      SELECT 'delivery-' || id, id, 'agent', 1, 'delivered', created_at, created_at, updated_at FROM tasks`.execute(db);
    // Paid tasks: every transfer sent long ago.
    await sql`
      INSERT INTO payment_transfers (id, task_id, agent_id, destination, amount_cents, currency, state, attempts, run_at, created_at, updated_at)
      SELECT 'transfer-' || id, id, 'agent', 'acct_1', 100, 'usd', 'sent', 1, created_at, created_at, updated_at FROM tasks`.execute(db);
    // Receipts of every kind; a third are outcomes, which expire and which the evidence sweep reads.
    // All but the last 500 are in the receipt log, as when the sequencer keeps up.
    await sql`
      INSERT INTO trust_receipts (id, receipt_id, correlation_id, kind, task_class, issuer_agent, issuer_pubkey, subject_agent, subject_pubkey, issued_at, expires_at, signature_verified, outcome_value, envelope, received_at, log_index)
      SELECT 'receipt-' || id, 'r-' || id, id, CASE WHEN rowid % 3 = 0 THEN 'outcome' WHEN rowid % 3 = 1 THEN 'offer' ELSE 'decision' END,
        'general', 'issuer', 'issuer-key', 'subject', 'subject-key', created_at, ${at}, 1, 1, '{}', created_at,
        CASE WHEN rowid <= ${FINISHED_TASKS - 500} THEN rowid - 1 END
        FROM (SELECT id, created_at, ${dialectUnderTest === 'sqlite' ? sql`rowid` : sql`row_number() over ()`} AS rowid FROM tasks) numbered`.execute(db);
    await sql`ANALYZE`.execute(db);
  });
  after(async () => database?.close());

  it('the expiry sweep reads the partial index of open tasks', async () => {
    const { expiry } = createTasksStore(database.handle.db, dialectUnderTest).backgroundQueries('2026-11-25T00:00:00.000Z');
    assert.ok((await indexesUsed(database, expiry)).includes('tasks_open_expiry'), `the expiry sweep does not use tasks_open_expiry: ${expiry.sql}`);
  });

  it("the delivery worker's claim reads due jobs by state and time", async () => {
    const { deliveriesDue } = createTasksStore(database.handle.db, dialectUnderTest).backgroundQueries('2026-11-25T00:00:00.000Z');
    assert.ok((await indexesUsed(database, deliveriesDue)).includes('task_deliveries_due'), `the claim does not use task_deliveries_due: ${deliveriesDue.sql}`);
  });

  it("the transfer worker's claim reads due transfers by state and time", async () => {
    const { transfersDue } = createPaymentsStore(database.handle.db, dialectUnderTest).backgroundQueries('2026-11-25T00:00:00.000Z');
    assert.ok(
      (await indexesUsed(database, transfersDue)).includes('payment_transfers_due'),
      `the claim does not use payment_transfers_due: ${transfersDue.sql}`,
    );
  });

  it('the evidence sweep reads the partial index of expiring outcomes', async () => {
    const { sweepBatchEnd } = createReceiptsStore(database.handle.db, { dialect: dialectUnderTest }).backgroundQueries('2026-11-25T00:00:00.000Z');
    assert.ok(
      (await indexesUsed(database, sweepBatchEnd)).includes('trust_receipts_expiring'),
      `the sweep does not use trust_receipts_expiring: ${sweepBatchEnd.sql}`,
    );
  });

  // The service never runs ANALYZE on a SQLite file: these plans must hold without statistics too.
  it('the receipt sequencer reads its batch from the partial index of receipts waiting for the log', async () => {
    const { sequencerBatch } = createReceiptsStore(database.handle.db, { dialect: dialectUnderTest }).backgroundQueries('2026-11-25T00:00:00.000Z');
    for (const used of await plannedBothWays(database, sequencerBatch))
      assert.ok(used.includes('trust_receipts_log_pending'), `the batch does not use trust_receipts_log_pending: ${used.join(', ')}`);
  });

  it('the receipt sequencer marks its batch by primary key, never through the log index', async () => {
    // Through the log index, each receipt waiting for the log was compared with the whole batch.
    const { sequencerMark } = createReceiptsStore(database.handle.db, { dialect: dialectUnderTest }).backgroundQueries('2026-11-25T00:00:00.000Z');
    for (const used of await plannedBothWays(database, sequencerMark)) {
      assert.ok(!used.includes('trust_receipts_log_index'), `the mark goes through trust_receipts_log_index: ${used.join(', ')}`);
      // PostgreSQL may as well hash the batch against a table this small; SQLite can only look each receipt up.
      if (dialectUnderTest === 'sqlite')
        assert.ok(used.includes('sqlite_autoindex_trust_receipts_1'), `the mark does not look receipts up by id: ${used.join(', ')}`);
    }
  });
});
