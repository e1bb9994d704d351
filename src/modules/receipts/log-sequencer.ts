/**
 * Puts verified receipts into the receipt log, off the request path. Each pass takes up to
 * `batchSize` receipts not yet logged, in received order, appends their stored RFC 8785 bytes and
 * records each one's index, all in one transaction: a crash at any point leaves either the whole
 * batch logged and marked or none of it, so no receipt is logged twice or skipped. Only the holder
 * of the log's lock appends (one node at a time on PostgreSQL). The same passes log the receipts
 * stored before the log existed, oldest first.
 */
import type { Db } from '../../db/database.ts';
import type { TransparencyLog } from '../tlog/index.ts';
import type { ReceiptsStore } from './store.ts';

export interface ReceiptSequencerOptions {
  database: Db;
  store: ReceiptsStore;
  log: TransparencyLog;
  /** Receipts per pass (and transaction). */
  batchSize: number;
  /** Wait between passes when the last one was not full. */
  intervalMs: number;
  onError(error: unknown): void;
}

export function createReceiptSequencer({ database, store, log, batchSize, intervalMs, onError }: ReceiptSequencerOptions): ReceiptSequencer {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = true;

  /**
   * One pass: how many receipts it logged. 0 when none waited, or when another node holds the log
   * and `wait` is false (that node is logging them).
   */
  async function sequenceOnce(wait = false): Promise<number> {
    return database.transaction().execute(async (tx) => {
      if (!(await log.lock(tx, wait))) return 0;
      const batch = await store.unlogged(tx, batchSize);
      if (batch.length === 0) return 0;
      const first = await log.append(
        tx,
        batch.map((receipt) => Buffer.from(receipt.envelope, 'utf8')),
      );
      await store.markLogged(
        tx,
        batch.map((receipt) => receipt.id),
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
    // Its timed passes find new receipts by themselves.
    receiptStored(): void {},
    close(): Promise<void> {
      return this.stop();
    },
  };
}

export interface ReceiptSequencer {
  /** One pass; with `wait`, after any pass another node is running. */
  sequenceOnce(wait?: boolean): Promise<number>;
  /** Logs everything waiting now, waiting for any pass another node or timer is running (tests). */
  drain(): Promise<number>;
  start(): void;
  /** A verified receipt was stored: a sequencer that waits for work before it starts begins now. */
  receiptStored(): void;
  /** Stops the timed passes (drain and sequenceOnce still work). */
  stop(): Promise<void>;
  /** Stops for good, at shutdown. */
  close(): Promise<void>;
}
