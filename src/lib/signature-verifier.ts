import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { verifyStrict } from './ed25519.ts';
import { startModuleWorker } from './module-worker.ts';
import { packBatch, type VerifyVerdicts } from './signature-worker.ts';

/**
 * Strict Ed25519 verification off the event loop. A verification costs ~0.1 ms of CPU, more than
 * everything else a receipt needs together; done on the request thread it caps ingestion at one
 * core. Requests made in one turn of the event loop go to a worker as one message (one copy, one
 * wake-up), spread over the workers in turn.
 */
export interface SignatureVerifier {
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean>;
  close(): Promise<void>;
}

/** One worker on a 2-core machine: the request thread keeps the other core. */
export const defaultVerifierThreads = () => Math.min(4, Math.max(1, availableParallelism() - 1));

export function createInlineVerifier(): SignatureVerifier {
  return {
    verify: async (publicKey, message, signature) => verifyStrict(publicKey, message, signature),
    close: async () => {},
  };
}

interface Pending {
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
  resolve: (valid: boolean) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 256;
export function createWorkerVerifier(threads: number): SignatureVerifier {
  let nextBatchId = 0;
  // Each batch remembers its worker, so a worker that dies fails only what it held.
  const inFlight = new Map<number, { worker: Worker; batch: Pending[] }>();
  const alive = new Set<Worker>();
  // An idle worker must not keep the process alive; one that owes verdicts must.
  const owed = new Map<Worker, number>();
  const sent = (worker: Worker) => {
    const count = owed.get(worker)! + 1;
    owed.set(worker, count);
    if (count === 1) worker.ref();
  };
  const settled = (worker: Worker) => {
    const count = owed.get(worker)! - 1;
    owed.set(worker, count);
    if (count === 0) worker.unref();
  };
  for (let i = 0; i < threads; i++) {
    const worker = startModuleWorker('signature-worker', import.meta.url);
    worker.on('message', ({ id, verdicts }: VerifyVerdicts) => {
      const entry = inFlight.get(id);
      inFlight.delete(id);
      settled(worker);
      entry?.batch.forEach((pending, index) => pending.resolve(verdicts[index] === 1));
    });
    worker.on('error', (error) => retire(worker, error));
    worker.on('exit', () => retire(worker, new Error('signature worker exited')));
    worker.unref();
    alive.add(worker);
    owed.set(worker, 0);
  }
  let turn = 0;
  let queue: Pending[] = [];
  let flushScheduled = false;

  function retire(worker: Worker, error: unknown) {
    alive.delete(worker);
    for (const [id, entry] of inFlight) {
      if (entry.worker !== worker) continue;
      inFlight.delete(id);
      for (const pending of entry.batch) pending.reject(error);
    }
  }

  function flush() {
    flushScheduled = false;
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(batch.length);
      const workers = [...alive];
      if (workers.length === 0) {
        for (const p of batch) p.resolve(verifyStrict(p.publicKey, p.message, p.signature));
        continue;
      }
      const worker = workers[turn++ % workers.length]!;
      const id = nextBatchId++;
      inFlight.set(id, { worker, batch });
      sent(worker);
      const packed = packBatch(id, batch);
      worker.postMessage(packed, [packed.bytes.buffer, packed.messageEnds.buffer]);
    }
  }

  return {
    verify(publicKey, message, signature) {
      if (alive.size === 0) return Promise.resolve(verifyStrict(publicKey, message, signature));
      return new Promise<boolean>((resolve, reject) => {
        queue.push({ publicKey, message, signature, resolve, reject });
        if (!flushScheduled) {
          flushScheduled = true;
          setImmediate(flush);
        }
      });
    },
    async close() {
      const workers = [...alive];
      alive.clear();
      flush();
      // Verdicts still owed are computed here rather than lost.
      for (const { batch } of inFlight.values()) for (const p of batch) p.resolve(verifyStrict(p.publicKey, p.message, p.signature));
      inFlight.clear();
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}

export function createSignatureVerifier(threads: number): SignatureVerifier {
  return threads > 0 ? createWorkerVerifier(threads) : createInlineVerifier();
}
