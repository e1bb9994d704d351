/**
 * The receipt sequencer on a SQLite database file runs on a worker thread (log-sequencer-worker.ts):
 * better-sqlite3 is synchronous, and a pass (reading up to 1,000 receipts, hashing, writing entries,
 * hashes and indexes, committing) on the request thread took request-thread time from every receipt
 * ingested. Same interface as the sequencer itself.
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
}): ReceiptSequencer {
  let worker: Worker | null = null;
  let nextId = 0;
  const waiting = new Map<number, { resolve(count: number): void; reject(error: Error): void }>();

  // The thread keeps the process alive only while an answer is awaited.
  const ask = (kind: SequencerRequest['kind']): Promise<number> => {
    const running = worker;
    if (!running) return Promise.reject(new Error('the receipt sequencer thread is not running'));
    const id = nextId++;
    const answer = new Promise<number>((resolve, reject) => waiting.set(id, { resolve, reject }));
    running.ref();
    running.postMessage({ id, kind } satisfies SequencerRequest);
    return answer.finally(() => {
      if (waiting.size === 0) running.unref();
    });
  };

  return {
    start() {
      const data: SequencerWorkerData = {
        path: options.path,
        publicUrl: options.publicUrl,
        signer: options.signer,
        batchSize: options.batchSize,
        intervalMs: options.intervalMs,
      };
      const started = startModuleWorker('log-sequencer-worker', import.meta.url, { workerData: data });
      started.on('message', (message: SequencerAnswer) => {
        if (!('id' in message)) return options.onError(new Error(message.error));
        const pending = waiting.get(message.id);
        waiting.delete(message.id);
        if ('error' in message) pending?.reject(new Error(message.error));
        else pending?.resolve(message.count);
      });
      started.on('error', (error) => options.onError(error));
      started.on('exit', (code) => {
        if (worker === started) worker = null;
        for (const pending of waiting.values()) pending.reject(new Error(`the receipt sequencer thread exited (${code})`));
        waiting.clear();
      });
      started.unref();
      worker = started;
    },
    sequenceOnce: () => ask('once'),
    drain: () => ask('drain'),
    async stop() {
      if (worker) await ask('stop');
    },
    async close() {
      const running = worker;
      if (!running) return;
      await ask('close');
      worker = null;
      await running.terminate();
    },
  };
}
