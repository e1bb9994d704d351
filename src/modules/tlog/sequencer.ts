/**
 * Puts queued entries into a log, off the request path: the one sequencer of every log (receipts,
 * registry events). Each pass takes up to `batchSize` entries of the log's queue not yet logged, in
 * queue order, appends them and records each one's index, all in one transaction: a crash at any
 * point leaves either the whole batch logged and marked or none of it, so no entry is logged twice
 * or skipped. Only the holder of the log's lock appends (one node at a time on PostgreSQL).
 */
import type { Db, Tx } from '../../db/database.ts';
import type { TransparencyLog } from './service.ts';

/** Where a log's entries wait: the rows of the module that owns them. */
export interface LogQueue<Id> {
  /** Up to `limit` entries not yet logged, in the order they are to be logged. */
  unlogged(tx: Tx, limit: number): Promise<{ id: Id; entry: Buffer }[]>;
  /** Records the indexes of the entries just appended: `ids` in log order from `firstIndex`. */
  markLogged(tx: Tx, ids: Id[], firstIndex: number): Promise<unknown>;
}

export interface LogSequencerOptions<Id> {
  database: Db;
  queue: LogQueue<Id>;
  log: TransparencyLog;
  /** Entries per pass (and transaction). */
  batchSize: number;
  /** Wait between passes when the last one was not full. */
  intervalMs: number;
  onError(error: unknown): void;
}

export function createLogSequencer<Id>({ database, queue, log, batchSize, intervalMs, onError }: LogSequencerOptions<Id>): LogSequencer {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = true;

  /**
   * One pass: how many entries it logged. 0 when none waited, or when another node holds the log
   * and `wait` is false (that node is logging them).
   */
  async function sequenceOnce(wait = false): Promise<number> {
    return database.transaction().execute(async (tx) => {
      if (!(await log.lock(tx, wait))) return 0;
      const batch = await queue.unlogged(tx, batchSize);
      if (batch.length === 0) return 0;
      const first = await log.append(
        tx,
        batch.map((item) => item.entry),
      );
      await queue.markLogged(
        tx,
        batch.map((item) => item.id),
        first,
      );
      return batch.length;
    });
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      running = sequenceOnce(false)
        .then((count) => schedule(count === batchSize ? 0 : intervalMs))
        .catch((error: unknown) => {
          onError(error);
          schedule(intervalMs);
        })
        .finally(() => {
          running = null;
        });
    }, delayMs);
    timer.unref();
  }

  return {
    sequenceOnce,
    /** Logs everything waiting now, waiting for any pass another node or timer is running (tests). */
    async drain(): Promise<number> {
      let total = 0;
      for (let count = await sequenceOnce(true); count > 0; count = await sequenceOnce(true)) total += count;
      return total;
    },
    start(): void {
      stopped = false;
      schedule(0);
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
    // Its timed passes find new entries by themselves.
    entryQueued(): void {},
    close(): Promise<void> {
      return this.stop();
    },
  };
}

export interface LogSequencer {
  /** One pass; with `wait`, after any pass another node is running. */
  sequenceOnce(wait?: boolean): Promise<number>;
  /** Logs everything waiting now, waiting for any pass another node or timer is running (tests). */
  drain(): Promise<number>;
  start(): void;
  /** An entry was queued: a sequencer that waits for work before it starts begins now. */
  entryQueued(): void;
  /** Stops the timed passes (drain and sequenceOnce still work). */
  stop(): Promise<void>;
  /** Stops for good, at shutdown. */
  close(): Promise<void>;
}
