/**
 * Inserts from a worker thread (src/db/sqlite-insert.ts) against a real SQLite file: durable once
 * answered, duplicates answered with the stored row, and a dead worker's rows never lost.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { startModuleWorker } from '../../src/lib/module-worker.ts';
import { createSqliteInsert, type InsertOutcome } from '../../src/modules/receipts/sqlite-insert.ts';
import { waitFor } from '../helpers/wait.ts';

type Row = { id: string; unique_key: string; body: string };

const items = { table: 'items', uniqueColumn: 'unique_key', idColumn: 'id', afterInsert: [] as string[] };

describe('SQLite inserts on a worker thread', () => {
  let dir: string;
  let path: string;
  let reader: SQLite.Database;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentry-insert-'));
    path = join(dir, 'test.db');
    reader = new SQLite(path);
    reader.pragma('journal_mode = WAL');
    reader.exec('CREATE TABLE items (id TEXT PRIMARY KEY, unique_key TEXT NOT NULL UNIQUE, body TEXT NOT NULL)');
  });
  after(() => {
    reader.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The same insert on the calling thread, as a store would give it. */
  const fallbackCalls: Row[][] = [];
  const fallback = async (rows: Row[]): Promise<InsertOutcome<Row, Row>[]> => {
    fallbackCalls.push(rows);
    const insert = reader.prepare('INSERT INTO items (id, unique_key, body) VALUES (@id, @unique_key, @body) ON CONFLICT (unique_key) DO NOTHING');
    const stored = reader.prepare('SELECT * FROM items WHERE unique_key = ?');
    return rows.map((row) => (insert.run(row).changes === 1 ? { inserted: true, row } : { inserted: false, existing: stored.get(row.unique_key) as Row }));
  };
  const count = () => (reader.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n;

  it('stores rows, visible to another connection once answered, and answers a duplicate with the stored row', async () => {
    const inserts = createSqliteInsert<Row, Row>({ path, ...items, fallback });
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: `a${i}`, unique_key: `k${i}`, body: `first ${i}` }));
    const outcomes = await Promise.all([...rows.map((row) => inserts.insert(row)), inserts.insert({ id: 'dup', unique_key: 'k3', body: 'second' })]);
    assert.ok(outcomes.slice(0, 40).every((outcome) => outcome.inserted));
    assert.deepEqual(outcomes[40], { inserted: false, existing: { id: 'a3', unique_key: 'k3', body: 'first 3' } });
    assert.equal(count(), 40);
    await inserts.close();
    assert.equal(fallbackCalls.length, 0);
  });

  it('reports a database error to the callers of that batch', async () => {
    const inserts = createSqliteInsert<Row, Row>({ path, ...items, fallback });
    // The primary key is not the conflict target: a repeated id is an error, not a duplicate.
    await assert.rejects(inserts.insert({ id: 'a0', unique_key: 'other', body: 'x' }), /UNIQUE constraint failed: items.id/);
    await inserts.close();
  });

  it('inserts on the calling thread once the worker has died, and says so', async () => {
    const errors: unknown[] = [];
    const inserts = createSqliteInsert<Row, Row>({
      path,
      ...items,
      fallback,
      onWorkerError: (error) => errors.push(error),
      startWorker: () => new Worker('process.exit(3)', { eval: true }),
    });
    const first = await inserts.insert({ id: 'b1', unique_key: 'dead-1', body: 'x' });
    const second = await inserts.insert({ id: 'b2', unique_key: 'dead-2', body: 'y' });
    assert.ok(first.inserted && second.inserted);
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /exited \(3\)/);
    assert.deepEqual(
      fallbackCalls.flat().map((row) => row.unique_key),
      ['dead-1', 'dead-2'],
    );
    assert.equal((reader.prepare("SELECT count(*) AS n FROM items WHERE unique_key LIKE 'dead-%'").get() as { n: number }).n, 2);
    await inserts.close();
  });

  it('runs the afterInsert statements once per transaction with the ids it inserted, in the same transaction', async () => {
    reader.exec('CREATE TABLE insert_log (ids TEXT NOT NULL)');
    const logged = { ...items, afterInsert: ['INSERT INTO insert_log (ids) VALUES (?)'] };
    const inserts = createSqliteInsert<Row, Row>({ ...logged, path, fallback });
    const rows = Array.from({ length: 20 }, (_, i) => ({ id: `l${i}`, unique_key: `log-${i}`, body: 'x' }));
    // Sent in one turn: one transaction, the duplicate of k1 (stored by the first test) not among its ids.
    await Promise.all([...rows.map((row) => inserts.insert(row)), inserts.insert({ id: 'not-inserted', unique_key: 'k1', body: 'y' })]);
    const log = reader.prepare('SELECT ids FROM insert_log').all() as { ids: string }[];
    assert.deepEqual(log.flatMap((entry) => JSON.parse(entry.ids) as string[]).sort(), rows.map((row) => row.id).sort());
    assert.ok(log.length < rows.length, 'statements ran per transaction, not per row');
    await inserts.close();

    // A failing statement takes its transaction's rows with it: callers see the error, nothing is stored.
    const failing = createSqliteInsert<Row, Row>({ ...items, afterInsert: ['INSERT INTO insert_log (ids) SELECT NULL WHERE ? IS NOT NULL'], path, fallback });
    await assert.rejects(failing.insert({ id: 'f1', unique_key: 'fails', body: 'x' }), /NOT NULL constraint failed/);
    assert.equal((reader.prepare("SELECT count(*) AS n FROM items WHERE unique_key = 'fails'").get() as { n: number }).n, 0);
    await failing.close();

    // A row without the id the statements find it by would go unsummed: refused with its transaction.
    const logging = createSqliteInsert<Row, Row>({ ...logged, path, fallback });
    await assert.rejects(logging.insert({ unique_key: 'no-id', body: 'x' } as unknown as Row), /items row inserted without id/);
    assert.equal((reader.prepare("SELECT count(*) AS n FROM items WHERE unique_key = 'no-id'").get() as { n: number }).n, 0);
    await logging.close();
  });

  it('stops an idle worker, and starts another for the next insert', async () => {
    let starts = 0;
    let exits = 0;
    const errors: unknown[] = [];
    const inserts = createSqliteInsert<Row, Row>({
      path,
      ...items,
      fallback,
      idleStopMs: 50,
      onWorkerError: (error) => errors.push(error),
      startWorker: (data) => {
        starts++;
        const worker = startModuleWorker('sqlite-insert-worker', new URL('../../src/modules/receipts/sqlite-insert.ts', import.meta.url).href, {
          workerData: data,
        });
        worker.once('exit', () => exits++);
        return worker;
      },
    });
    const calls = fallbackCalls.length;
    assert.ok((await inserts.insert({ id: 'i1', unique_key: 'idle-1', body: 'x' })).inserted);
    await waitFor(
      'the idle worker to stop',
      () => exits,
      (count) => count === 1,
    );
    assert.ok((await inserts.insert({ id: 'i2', unique_key: 'idle-2', body: 'y' })).inserted);
    assert.equal(starts, 2);
    assert.equal(fallbackCalls.length, calls, 'both rows were inserted by a worker');
    assert.deepEqual(errors, [], 'a stop is not a death');
    assert.equal((reader.prepare("SELECT count(*) AS n FROM items WHERE unique_key LIKE 'idle-%'").get() as { n: number }).n, 2);
    await inserts.close();
  });

  it('refuses a table or column name that is not a plain identifier', async () => {
    const errors: unknown[] = [];
    const guarded = createSqliteInsert<Row, Row>({ path, ...items, table: 'items; DROP TABLE items', fallback, onWorkerError: (error) => errors.push(error) });
    await guarded.insert({ id: 'c1', unique_key: 'guard', body: 'x' });
    assert.match(String(errors[0]), /invalid table or column name/);
    assert.ok(count() > 0, 'the table is still there');
    await guarded.close();
  });
});
