/**
 * Worker side of the SQLite receipt sequencer (log-sequencer-thread.ts): the same sequencer, on a
 * connection of its own, so a pass's reads, hashing, writes and commit block this thread, not the
 * event loop's. Messages: `drain` and `once` (answered with the count or the error), `stop` (the
 * timed passes) and `close` (everything), each answered when done.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openDatabase } from '../../db/database.ts';
import { systemClock } from '../../lib/clock.ts';
import { nameThisThread } from '../../lib/thread-name.ts';
import { createTransparencyLog } from '../tlog/index.ts';
import { createReceiptSequencer } from './log-sequencer.ts';
import { createReceiptsStore } from './store.ts';

export interface SequencerWorkerData {
  path: string;
  publicUrl: string;
  signer: { name: string; seed: Uint8Array; verifierKey: string };
  batchSize: number;
  intervalMs: number;
  timedPasses: boolean;
}

export interface SequencerRequest {
  id: number;
  kind: 'drain' | 'once' | 'stop' | 'close';
}
export type SequencerAnswer = { id: number; count: number } | { id: number; error: string } | { error: string };

nameThisThread('agentry-tlog');
const port = parentPort as MessagePort;
const data = workerData as SequencerWorkerData;
const database = openDatabase({ url: `sqlite:${data.path}` });
const unusedSecrets = {
  seal: () => {
    throw new Error('the sequencer thread seals nothing');
  },
  open: () => {
    throw new Error('the sequencer thread opens nothing');
  },
};
const log = createTransparencyLog({
  database: database.db,
  dialect: 'sqlite',
  name: 'receipts',
  publicUrl: data.publicUrl,
  secrets: unusedSecrets,
  clock: systemClock,
  signer: { ...data.signer, seed: Buffer.from(data.signer.seed) },
});
const sequencer = createReceiptSequencer({
  database: database.db,
  store: createReceiptsStore(database.db, { dialect: 'sqlite' }),
  log,
  batchSize: data.batchSize,
  intervalMs: data.intervalMs,
  onError: (error) => port.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies SequencerAnswer),
});

await log.start();
if (data.timedPasses) sequencer.start();
port.on('message', (request: SequencerRequest) => {
  const work =
    request.kind === 'drain'
      ? sequencer.drain()
      : request.kind === 'once'
        ? sequencer.sequenceOnce(true)
        : request.kind === 'stop'
          ? sequencer.stop().then(() => 0)
          : sequencer
              .close()
              .then(() => database.close())
              .then(() => 0);
  work.then(
    (count) => port.postMessage({ id: request.id, count } satisfies SequencerAnswer),
    (error: unknown) => port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies SequencerAnswer),
  );
});
