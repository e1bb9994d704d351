/**
 * Puts verified receipts into the receipt log with the logs' one sequencer (tlog/sequencer.ts): the
 * queue is the verified receipts not yet logged, in received order, and each entry is the receipt's
 * stored RFC 8785 text. The same passes log the receipts stored before the log existed, oldest first.
 */
import type { Db } from '../../db/database.ts';
import { createLogSequencer, type LogSequencer, type TransparencyLog } from '../tlog/index.ts';
import type { ReceiptsStore } from './store.ts';

export type ReceiptSequencer = LogSequencer;

export function createReceiptSequencer(options: {
  database: Db;
  store: ReceiptsStore;
  log: TransparencyLog;
  batchSize: number;
  intervalMs: number;
  onError(error: unknown): void;
}): ReceiptSequencer {
  const { store, ...rest } = options;
  return createLogSequencer({
    ...rest,
    queue: {
      unlogged: async (tx, limit) => (await store.unlogged(tx, limit)).map((receipt) => ({ id: receipt.id, entry: Buffer.from(receipt.envelope, 'utf8') })),
      markLogged: (tx, ids, firstIndex) => store.markLogged(tx, ids, firstIndex),
    },
  });
}
