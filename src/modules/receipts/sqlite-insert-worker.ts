/**
 * Worker side of sqlite-insert.ts: its own connection to the database file. The commit's fsync
 * (synchronous=FULL) and the b-tree work block this thread, not the event loop's. Batches that queued
 * up while a commit ran are written together in the next transaction (group commit), each answered
 * on its own. The caller's `afterInsert` statements run once per transaction, after its rows.
 */
import SQLite from 'better-sqlite3';
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { nameThisThread } from '../../lib/thread-name.ts';
import { configureSqlite } from '../../db/sqlite-pragmas.ts';

export interface InsertWorkerData {
  path: string;
  table: string;
  uniqueColumn: string;
  /** The column whose values of the inserted rows `afterInsert` receives. */
  idColumn: string;
  /** Statements run in each transaction after its rows, with one parameter: the JSON array of the inserted rows' ids. */
  afterInsert: string[];
}

export interface InsertBatch {
  id: number;
  rows: Record<string, unknown>[];
}

/** Per row: null when inserted, else the row already stored under the same unique value. */
export type InsertAnswer = { id: number; existing: (Record<string, unknown> | null)[] } | { id: number; error: string };

/** Rows at most in one transaction: bounds how long the batches in it wait for their answer. */
const MAX_ROWS_PER_COMMIT = 512;
const identifier = /^[a-z_][a-z0-9_]*$/;
const { path, table, uniqueColumn, idColumn, afterInsert } = workerData as InsertWorkerData;
if (![table, uniqueColumn, idColumn].every((name) => identifier.test(name))) throw new Error(`invalid table or column name in ${table}`);

nameThisThread('agentry-insert');
const port = parentPort as MessagePort;
const sqlite = new SQLite(path);
configureSqlite(sqlite);
const selectExisting = sqlite.prepare(`SELECT * FROM ${table} WHERE ${uniqueColumn} = ?`);
const afterInsertStatements = afterInsert.map((text) => sqlite.prepare(text));
const inserts = new Map<string, SQLite.Statement>();

/** One statement per column set (every row of a caller has the same columns, so in practice one). */
function insertFor(columns: string[]): SQLite.Statement {
  const key = columns.join(',');
  let statement = inserts.get(key);
  if (!statement) {
    if (!columns.every((name) => identifier.test(name))) throw new Error(`invalid column name in ${key}`);
    statement = sqlite.prepare(`INSERT INTO ${table} (${key}) VALUES (${columns.map((c) => `@${c}`).join(', ')}) ON CONFLICT (${uniqueColumn}) DO NOTHING`);
    inserts.set(key, statement);
  }
  return statement;
}

const insertBatches = sqlite.transaction((batches: InsertBatch[]) => {
  const insertedIds: unknown[] = [];
  // A row whose unique value is already stored (earlier, or earlier in this transaction) is not written.
  const existing = batches.map((batch) =>
    batch.rows.map((row) => {
      if (insertFor(Object.keys(row)).run(row).changes === 0) return selectExisting.get(row[uniqueColumn]) as Record<string, unknown>;
      // afterInsert finds the rows by these ids: one without would silently go unsummed.
      if (row[idColumn] == null) throw new Error(`${table} row inserted without ${idColumn}`);
      insertedIds.push(row[idColumn]);
      return null;
    }),
  );
  if (insertedIds.length > 0) {
    const ids = JSON.stringify(insertedIds);
    for (const statement of afterInsertStatements) statement.run(ids);
  }
  return existing;
});

port.on('message', (first: InsertBatch) => {
  const batches = [first];
  let rows = first.rows.length;
  while (rows < MAX_ROWS_PER_COMMIT) {
    const next = receiveMessageOnPort(port);
    if (!next) break;
    const batch = next.message as InsertBatch;
    batches.push(batch);
    rows += batch.rows.length;
  }
  try {
    // IMMEDIATE: the write lock is taken at BEGIN, waited for (busy_timeout) while the other connection holds it.
    const existing = insertBatches.immediate(batches);
    batches.forEach((batch, i) => port.postMessage({ id: batch.id, existing: existing[i]! } satisfies InsertAnswer));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    for (const batch of batches) port.postMessage({ id: batch.id, error: message } satisfies InsertAnswer);
  }
});
