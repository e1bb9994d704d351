/**
 * The receipt sequencer on a SQLite database file runs on a worker thread (log-sequencer-worker.ts):
 * better-sqlite3 is synchronous, and a pass (reading up to 1,000 receipts, hashing, writing entries,
 * hashes and indexes, committing) on the request thread took request-thread time from every receipt
 * ingested. Same interface as the sequencer itself.
 *
 * The thread starts only once there is something to log (receipts waiting at start, or the first one
 * stored since): starting it loads a module graph and opens a connection, which a node that holds no
 * receipts would pay at every start for nothing. It stops again once no receipt has been queued for
 * `idleStopMs` (after a flood it held its heap and its connection's cache for good); the next receipt
 * starts another. Two threads may overlap for a moment (the stopping one finishing its pass): passes
 * take the log's lock in turn.
 */
import type { Worker } from 'node:worker_threads';
import { IDLE_WORKER_STOP_MS, startModuleWorker } from '../../lib/module-worker.ts';
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
  /** How long the thread may go without a receipt queued before it stops. */
  idleStopMs?: number;
}): ReceiptSequencer {
  const idleStopMs = options.idleStopMs ?? IDLE_WORKER_STOP_MS;
  let worker: Worker | null = null;
  let started = false;
  let closed = false;
  let nextId = 0;
  const waiting = new Map<number, { thread: Worker; resolve(count: number): void; reject(error: Error): void }>();
  const owedBy = (thread: Worker) => [...waiting.values()].some((pending) => pending.thread === thread);

  // The thread keeps the process alive only while an answer is awaited.
  const askThread = (running: Worker, kind: SequencerRequest['kind']): Promise<number> => {
    const id = nextId++;
    const answer = new Promise<number>((resolve, reject) => waiting.set(id, { thread: running, resolve, reject }));
    running.ref();
    running.postMessage({ id, kind } satisfies SequencerRequest);
    return answer.finally(() => {
      if (!owedBy(running)) running.unref();
    });
  };
  const ask = (kind: SequencerRequest['kind']): Promise<number> => {
    const running = worker ?? (closed ? null : startWorker());
    if (!running) return Promise.reject(new Error('the receipt sequencer thread is closed'));
    return askThread(running, kind);
  };

  // Every verified receipt notes the time (a timer per receipt would cost the request thread more);
  // the one timer, when it fires early, waits out the rest.
  let lastQueuedAt = 0;
  let idleCheck: NodeJS.Timeout | undefined;
  const checkIn = (delayMs: number) => {
    clearTimeout(idleCheck);
    idleCheck = setTimeout(checkIdle, delayMs);
    idleCheck.unref();
  };
  function checkIdle(): void {
    idleCheck = undefined;
    const running = worker;
    if (!running || closed) return;
    const quietFor = performance.now() - lastQueuedAt;
    if (quietFor < idleStopMs || owedBy(running)) return checkIn(Math.max(idleStopMs - quietFor, 1_000));
    // Everything queued is logged before it goes: no receipt waits for the next one to start a thread.
    const drainFrom = performance.now();
    askThread(running, 'drain')
      .then(async (): Promise<void> => {
        if (worker !== running || closed) return;
        if (lastQueuedAt >= drainFrom) return checkIn(idleStopMs);
        // Forgotten first: its exit is not the current thread's, and the next receipt starts a new one.
        worker = null;
        await askThread(running, 'close').finally(() => running.terminate());
      })
      .catch((error: unknown) => {
        options.onError(error);
        if (worker === running) checkIn(idleStopMs);
      });
  }
  const noteQueued = () => {
    lastQueuedAt = performance.now();
    if (idleCheck === undefined && worker) checkIn(idleStopMs);
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
      for (const [id, pending] of waiting) {
        if (pending.thread !== thread) continue;
        waiting.delete(id);
        pending.reject(new Error(`the receipt sequencer thread exited (${code})`));
      }
    });
    thread.unref();
    worker = thread;
    return thread;
  }

  const startIfWanted = () => {
    if (started && !closed && !worker) startWorker();
    noteQueued();
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
      clearTimeout(idleCheck);
      const running = worker;
      if (!running) return;
      await ask('close');
      worker = null;
      await running.terminate();
    },
  };
}
