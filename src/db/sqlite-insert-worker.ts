/**
 * Worker side of sqlite-insert.ts: its own connection to the database file. The commit's fsync
 * (synchronous=FULL) and the b-tree work block this thread, not the event loop's. Batches that queued
 * up while a commit ran are written together in the next transaction (group commit), each answered
 * on its own.
 */
import SQLite from 'better-sqlite3';
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { configureSqlite } from './sqlite-pragmas.ts';

export interface InsertWorkerData {
  path: string;
  table: string;
  uniqueColumn: string;
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
const { path, table, uniqueColumn } = workerData as InsertWorkerData;
if (![table, uniqueColumn].every((name) => identifier.test(name))) throw new Error(`invalid table or column name: ${table}.${uniqueColumn}`);

const port = parentPort as MessagePort;
const sqlite = new SQLite(path);
configureSqlite(sqlite);
const selectExisting = sqlite.prepare(`SELECT * FROM ${table} WHERE ${uniqueColumn} = ?`);
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

// A row whose unique value is already stored (earlier, or earlier in this transaction) is not written.
const insertRow = (row: Record<string, unknown>) => (insertFor(Object.keys(row)).run(row).changes === 1 ? null : (selectExisting.get(row[uniqueColumn]) as Record<string, unknown>));
const insertBatches = sqlite.transaction((batches: InsertBatch[]) => batches.map((batch) => batch.rows.map(insertRow)));

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
