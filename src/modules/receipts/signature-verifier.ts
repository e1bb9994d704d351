import type { Worker } from 'node:worker_threads';
import { verifyStrict } from '../../lib/ed25519.ts';
import { IDLE_WORKER_STOP_MS, idleTimer, startModuleWorker } from '../../lib/module-worker.ts';
import { packBatch, type VerifyVerdicts } from './signature-batch.ts';
import { createTurnBatches } from '../../lib/turn-batches.ts';

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

interface Pending {
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
  resolve: (valid: boolean) => void;
}

/** Signatures per message (see turn-batches.ts: up to 256 made 50 requests of one turn wait for the last verdict). */
const MAX_BATCH = 16;
const verifyHere = (pending: Pending) => pending.resolve(verifyStrict(pending.publicKey, pending.message, pending.signature));

export interface WorkerVerifierOptions {
  threads: number;
  /** A worker died; its work and all later work are verified on the calling thread. */
  onWorkerError?: (error: unknown) => void;
  /** Starts one worker (tests give one that dies). */
  startWorker?: () => Worker;
  /** How long the workers may sit idle (no verdict owed) before they stop; the next verification starts them again. */
  idleStopMs?: number;
}

/**
 * Workers start on the first verification, and stop once idle for `idleStopMs` (the next one starts
 * them again). Whatever a dead worker held is verified on the calling thread, so a crash costs
 * speed, never a receipt's answer; so is everything once the verifier is closed or every worker is
 * gone.
 */
export function createWorkerVerifier({
  threads,
  onWorkerError = () => {},
  startWorker = () => startModuleWorker('signature-worker', import.meta.url),
  idleStopMs = IDLE_WORKER_STOP_MS,
}: WorkerVerifierOptions): SignatureVerifier {
  let nextBatchId = 0;
  const inFlight = new Map<number, { worker: Worker; batch: Pending[] }>();
  // An idle worker must not keep the process alive; one that owes verdicts must.
  const owed = new Map<Worker, number>();
  let workers: Worker[] | null = null;
  let closed = false;
  let turn = 0;
  // Forgotten (out of `owed`) before they are terminated, so their exits are not taken for deaths.
  const idle = idleTimer(idleStopMs, () => {
    // Workers that died stay gone: the calling thread goes on verifying.
    if (inFlight.size > 0 || !workers || workers.length === 0) return;
    const stopping = workers;
    workers = null;
    for (const worker of stopping) {
      owed.delete(worker);
      void worker.terminate();
    }
  });

  function start(): Worker[] {
    return Array.from({ length: threads }, () => {
      const worker = startWorker();
      worker.on('message', ({ id, verdicts }: VerifyVerdicts) => {
        const entry = inFlight.get(id);
        inFlight.delete(id);
        owe(worker, -1);
        entry?.batch.forEach((pending, index) => pending.resolve(verdicts[index] === 1));
        if (inFlight.size === 0 && !closed) idle.idle();
      });
      worker.on('error', (error) => retire(worker, error));
      worker.on('exit', () => retire(worker, new Error('signature worker exited')));
      worker.unref();
      owed.set(worker, 0);
      return worker;
    });
  }

  function owe(worker: Worker, change: 1 | -1) {
    const count = (owed.get(worker) ?? 0) + change;
    owed.set(worker, count);
    if (count === 1 && change === 1) worker.ref();
    if (count === 0) worker.unref();
  }

  function retire(worker: Worker, error: unknown) {
    if (!owed.delete(worker)) return;
    workers = workers?.filter((w) => w !== worker) ?? null;
    if (!closed) onWorkerError(error);
    for (const [id, entry] of inFlight) {
      if (entry.worker !== worker) continue;
      inFlight.delete(id);
      entry.batch.forEach(verifyHere);
    }
  }

  const batches = createTurnBatches<Pending>(MAX_BATCH, (batch) => {
    if (closed || !workers || workers.length === 0) {
      batch.forEach(verifyHere);
      return;
    }
    idle.busy();
    const worker = workers[turn++ % workers.length]!;
    const id = nextBatchId++;
    inFlight.set(id, { worker, batch });
    owe(worker, 1);
    const packed = packBatch(id, batch);
    worker.postMessage(packed, [packed.bytes.buffer, packed.messageEnds.buffer]);
  });

  return {
    verify(publicKey, message, signature) {
      if (closed || workers?.length === 0) return Promise.resolve(verifyStrict(publicKey, message, signature));
      workers ??= start();
      return new Promise<boolean>((resolve) => batches.add({ publicKey, message, signature, resolve }));
    },
    async close() {
      closed = true;
      idle.busy();
      batches.flush();
      // Verdicts still owed are computed here rather than lost.
      for (const { batch } of inFlight.values()) batch.forEach(verifyHere);
      inFlight.clear();
      await Promise.all((workers ?? []).map((worker) => worker.terminate()));
    },
  };
}

export function createSignatureVerifier(options: WorkerVerifierOptions): SignatureVerifier {
  if (options.threads > 0) return createWorkerVerifier(options);
  return { verify: async (publicKey, message, signature) => verifyStrict(publicKey, message, signature), close: async () => {} };
}
