/**
 * Group commit (src/db/batcher.ts) on a real database: writes made in one turn of the event loop
 * share a transaction, and one that fails does not take the others with it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createGroupCommit } from '../../src/db/batcher.ts';
import type { Tx } from '../../src/db/database.ts';
import { dialectUnderTest, openTestDatabase } from '../helpers/app.ts';

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

describe(`group commit (${dialectUnderTest})`, () => {
  let database: TestDatabase;
  let transactions = 0;
  let grouped: ReturnType<typeof createGroupCommit>;
  const at = '2026-11-26T00:00:00.000Z';
  const addAccount = (id: string) => (tx: Tx) =>
    tx
      .insertInto('accounts')
      .values({ id, kind: 'person', email: `${id}@example.test`, created_at: at })
      .execute()
      .then(() => id);
  const stored = async (ids: string[]) =>
    (await database.handle.db.selectFrom('accounts').select('id').where('id', 'in', ids).orderBy('id').execute()).map((row) => row.id);

  before(async () => {
    database = await openTestDatabase();
    await database.migrate();
    grouped = createGroupCommit((work) => {
      transactions++;
      return database.handle.transaction(work);
    });
  });
  after(async () => database?.close());

  it('writes made together share one transaction, and each caller gets its own result', async () => {
    transactions = 0;
    const results = await Promise.all(['a1', 'a2', 'a3'].map((id) => grouped(addAccount(id))));
    assert.deepEqual(results, ['a1', 'a2', 'a3']);
    assert.equal(transactions, 1);
    assert.deepEqual(await stored(['a1', 'a2', 'a3']), ['a1', 'a2', 'a3']);
  });

  it('a write that fails fails alone: the others of its group are stored', async () => {
    await grouped(addAccount('taken'));
    const outcomes = await Promise.allSettled(['b1', 'taken', 'b2'].map((id) => grouped(addAccount(id))));
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await stored(['b1', 'b2']), ['b1', 'b2']);
    const accounts = await database.handle.db.selectFrom('accounts').select('id').where('id', '=', 'taken').execute();
    assert.equal(accounts.length, 1, 'the failed write left nothing behind');
  });
});
