/**
 * The receipt sequencer on a SQLite database file runs on a worker thread (log-sequencer-worker.ts):
 * better-sqlite3 is synchronous, and a pass (reading up to 1,000 receipts, hashing, writing entries,
 * hashes and indexes, committing) on the request thread took request-thread time from every receipt
 * ingested. Same interface as the sequencer itself.
 *
 * The thread starts only once there is something to log (receipts waiting at start, or the first one
 * stored since): starting it loads a module graph and opens a connection, which a node that holds no
 * receipts would pay at every start for nothing.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../lib/module-worker.ts';
import type { NoteSigner } from '../tlog/index.ts';
import type { ReceiptSequencer } from './log-sequencer.ts';
import type { SequencerAnswer, SequencerRequest, SequencerWorkerData } from './log-sequencer-worker.ts';

export function createSequencerThread(options: {
  path: string;
  publicUrl: string;
  signer: NoteSigner;
  batchSize: number;
  intervalMs: number;
  onError(error: unknown): void;
  /** Whether verified receipts wait to be logged (read once at start). */
  receiptsWaiting(): Promise<boolean>;
}): ReceiptSequencer {
  let worker: Worker | null = null;
  let started = false;
  let closed = false;
  let nextId = 0;
  const waiting = new Map<number, { resolve(count: number): void; reject(error: Error): void }>();

  // The thread keeps the process alive only while an answer is awaited.
  const ask = (kind: SequencerRequest['kind']): Promise<number> => {
    const running = worker ?? (closed ? null : startWorker());
    if (!running) return Promise.reject(new Error('the receipt sequencer thread is closed'));
    const id = nextId++;
    const answer = new Promise<number>((resolve, reject) => waiting.set(id, { resolve, reject }));
    running.ref();
    running.postMessage({ id, kind } satisfies SequencerRequest);
    return answer.finally(() => {
      if (waiting.size === 0) running.unref();
    });
  };

  function startWorker(): Worker {
    const data: SequencerWorkerData = {
      path: options.path,
      publicUrl: options.publicUrl,
      signer: options.signer,
      batchSize: options.batchSize,
      intervalMs: options.intervalMs,
      // A pass asked for after the timed passes were stopped (tests drain by hand) starts none.
      timedPasses: started,
    };
    const thread = startModuleWorker('log-sequencer-worker', import.meta.url, { workerData: data });
    thread.on('message', (message: SequencerAnswer) => {
      if (!('id' in message)) return options.onError(new Error(message.error));
      const pending = waiting.get(message.id);
      waiting.delete(message.id);
      if ('error' in message) pending?.reject(new Error(message.error));
      else pending?.resolve(message.count);
    });
    thread.on('error', (error) => options.onError(error));
    thread.on('exit', (code) => {
      if (worker === thread) worker = null;
      for (const pending of waiting.values()) pending.reject(new Error(`the receipt sequencer thread exited (${code})`));
      waiting.clear();
    });
    thread.unref();
    worker = thread;
    return thread;
  }

  const startIfWanted = () => {
    if (started && !closed && !worker) startWorker();
  };

  return {
    start() {
      started = true;
      options.receiptsWaiting().then((yes) => {
        if (yes) startIfWanted();
      }, options.onError);
    },
    entryQueued: startIfWanted,
    sequenceOnce: () => ask('once'),
    drain: () => ask('drain'),
    async stop() {
      started = false;
      if (worker) await ask('stop');
    },
    async close() {
      closed = true;
      const running = worker;
      if (!running) return;
      await ask('close');
      worker = null;
      await running.terminate();
    },
  };
}
