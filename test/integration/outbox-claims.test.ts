/**
 * The outbox workers (task deliveries, payment transfers) claim due jobs on every tick, mostly
 * finding none. On SQLite an UPDATE takes the database's write lock even when it matches nothing,
 * and better-sqlite3 waits for the lock on the event loop: an idle tick stalled every request for as
 * long as another connection (the receipt insert worker, the log sequencer) was writing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { createPaymentsStore } from '../../src/modules/payments/index.ts';
import { createTasksStore } from '../../src/modules/tasks/index.ts';
import { dialectUnderTest, openTestDatabase } from '../helpers/app.ts';

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

/** Another connection in the middle of a write transaction, until released. */
async function writerElsewhere(database: TestDatabase): Promise<{ release(): Promise<void> }> {
  const now = new Date().toISOString();
  if (dialectUnderTest === 'sqlite') {
    const other = new Database(database.handle.sqliteFile!);
    other.exec('BEGIN IMMEDIATE');
    other.prepare('INSERT INTO background_passes (job, pass, next_at, updated_at) VALUES (?, 1, ?, ?)').run('held', now, now);
    return {
      async release() {
        other.exec('ROLLBACK');
        other.close();
      },
    };
  }
  const tx = await database.handle.db.startTransaction().execute();
  await tx
    .insertInto('background_passes' as never)
    .values({ job: 'held', pass: 1, next_at: now, updated_at: now } as never)
    .execute();
  return { release: () => tx.rollback().execute() };
}

describe(`outbox claims with nothing due (${dialectUnderTest})`, () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase();
    await database.migrate();
  });
  after(async () => database?.close());

  it('answer at once, without waiting for another connection that is writing', async () => {
    const now = new Date().toISOString();
    const leaseUntil = new Date(Date.now() + 60_000).toISOString();
    const writer = await writerElsewhere(database);
    try {
      // With the write lock taken, SQLite's busy timeout ran out and the claim failed with "database is locked".
      assert.deepEqual(await createTasksStore(database.handle.db, dialectUnderTest).claimDue(now, leaseUntil, 10), []);
      assert.deepEqual(await createPaymentsStore(database.handle.db, dialectUnderTest).claimDueTransfers(now, leaseUntil, 10), []);
    } finally {
      await writer.release();
    }
  });
});
