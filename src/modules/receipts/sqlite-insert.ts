/**
 * Inserts into a SQLite table from a worker thread with its own connection. better-sqlite3 is
 * synchronous: on the event loop, an insert's b-tree work and its commit's fsync stop every other
 * request until they finish. The worker commits in its own time; each caller is answered after the
 * commit holding its row, so an acknowledged row is as durable as before.
 *
 * Rows handed in during one turn of the event loop travel together, in messages of at most
 * MAX_MESSAGE_ROWS (lib/turn-batches.ts); the worker still commits whatever has queued up in one
 * transaction.
 *
 * Rows whose unique value is already stored are not written; the stored row comes back instead
 * (the caller compares). If the worker dies, its unanswered rows and every later one go to
 * `fallback` on the calling thread: the insert is idempotent, so a row the worker committed just
 * before dying comes back as already stored rather than twice.
 *
 * A worker idle for `idleStopMs` stops (its heap and its connection's page cache go with it); the next
 * insert starts another.
 */
import type { Worker } from 'node:worker_threads';
import { IDLE_WORKER_STOP_MS, idleTimer, startModuleWorker } from '../../lib/module-worker.ts';
import { createTurnBatches } from '../../lib/turn-batches.ts';
import type { InsertAnswer, InsertBatch, InsertWorkerData } from './sqlite-insert-worker.ts';

export type InsertOutcome<Row, Stored> = { inserted: true; row: Row } | { inserted: false; existing: Stored };

export interface OffThreadInsert<Row, Stored> {
  insert(row: Row): Promise<InsertOutcome<Row, Stored>>;
  /** Waits for rows under way, then stops the worker. */
  close(): Promise<void>;
}

export interface SqliteInsertOptions<Row, Stored> extends InsertWorkerData {
  /** The same insert on the calling thread, for when the worker is gone. */
  fallback(rows: Row[]): Promise<InsertOutcome<Row, Stored>[]>;
  onWorkerError?(error: unknown): void;
  /** Starts the worker (tests give one that dies). */
  startWorker?(data: InsertWorkerData): Worker;
  /** How long the worker may sit idle before it stops. */
  idleStopMs?: number;
}

const MAX_MESSAGE_ROWS = 16;

interface Waiting<Row, Stored> {
  row: Row;
  resolve(outcome: InsertOutcome<Row, Stored>): void;
  reject(error: unknown): void;
}

export function createSqliteInsert<Row extends Record<string, unknown>, Stored>({
  path,
  table,
  uniqueColumn,
  idColumn,
  afterInsert,
  fallback,
  onWorkerError = () => {},
  startWorker = (data) => startModuleWorker('sqlite-insert-worker', import.meta.url, { workerData: data }),
  idleStopMs = IDLE_WORKER_STOP_MS,
}: SqliteInsertOptions<Row, Stored>): OffThreadInsert<Row, Stored> {
  let worker: Worker | null = null;
  let gone = false;
  let nextId = 0;
  const sent = new Map<number, Waiting<Row, Stored>[]>();
  let drained: (() => void) | null = null;
  // Forgotten before it is terminated, so its exit is not taken for a death.
  const idle = idleTimer(idleStopMs, () => {
    if (sent.size > 0 || !worker) return;
    const stopping = worker;
    worker = null;
    void stopping.terminate();
  });

  function insertHere(batch: Waiting<Row, Stored>[]): void {
    fallback(batch.map((waiting) => waiting.row)).then(
      (outcomes) => batch.forEach((waiting, i) => waiting.resolve(outcomes[i]!)),
      (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
    );
  }

  function answered(id: number): Waiting<Row, Stored>[] | undefined {
    const batch = sent.get(id);
    sent.delete(id);
    if (sent.size === 0) {
      // An idle worker must not keep the process alive.
      worker?.unref();
      drained?.();
      if (!gone) idle.idle();
    }
    return batch;
  }

  function retire(from: Worker, error: unknown): void {
    if (worker !== from) return;
    worker = null;
    gone = true;
    onWorkerError(error);
    for (const id of [...sent.keys()]) insertHere(answered(id)!);
  }

  function start(): Worker {
    const started = startWorker({ path, table, uniqueColumn, idColumn, afterInsert });
    started.on('message', (answer: InsertAnswer) => {
      const batch = answered(answer.id);
      if (!batch) return;
      if ('error' in answer) {
        const error = new Error(`insert into ${table}: ${answer.error}`);
        batch.forEach((waiting) => waiting.reject(error));
      } else {
        batch.forEach((waiting, i) => {
          const existing = answer.existing[i];
          waiting.resolve(existing ? { inserted: false, existing: existing as Stored } : { inserted: true, row: waiting.row });
        });
      }
    });
    started.on('error', (error) => retire(started, error));
    started.on('exit', (code) => retire(started, new Error(`${table} insert worker exited (${code})`)));
    return started;
  }

  const batches = createTurnBatches<Waiting<Row, Stored>>(MAX_MESSAGE_ROWS, (batch) => {
    if (gone) {
      insertHere(batch);
      return;
    }
    idle.busy();
    worker ??= start();
    worker.ref();
    const id = nextId++;
    sent.set(id, batch);
    worker.postMessage({ id, rows: batch.map((item) => item.row) } satisfies InsertBatch);
  });

  return {
    insert(row) {
      return new Promise((resolve, reject) => batches.add({ row, resolve, reject }));
    },
    async close() {
      batches.flush();
      if (sent.size > 0) await new Promise<void>((resolve) => (drained = resolve));
      gone = true;
      idle.busy();
      const running = worker;
      worker = null;
      await running?.terminate();
    },
  };
}
