/**
 * The request thread's side of the scorer: agents' scoring data and queries go to the scoring
 * worker (scoring-worker.ts), candidates come back. At 10,000 agents a query's scoring (a SIMD dot
 * product with every sentence vector, then a pass over every agent) costs several ms of CPU, which
 * on the request thread would hold up every other request meanwhile.
 *
 * Changes are queued and sent at the end of the turn, in one message, and always before the next
 * query: the worker applies messages in order, so a query sees every change made before it.
 *
 * If the worker fails or exits, scoring goes on in this thread (`inProcess`) on a fresh, empty
 * scorer, and `onReset` is told: the caller must put every agent again (the agent index reloads).
 */
import type { Worker } from 'node:worker_threads';
import { SMALL_YOUNG_GENERATION, startModuleWorker } from '../../lib/module-worker.ts';
import { createRelevanceScorer, type Candidates, type RelevanceQuery, type ScoredAgent, type ScoredWork } from './relevance-scorer.ts';

export type ScoringChange =
  | { kind: 'put'; slot: number; agent: ScoredAgent; keepSentence: boolean }
  | { kind: 'sentence'; slot: number; vector: Float32Array }
  | { kind: 'work'; slot: number; work: ScoredWork }
  | { kind: 'remove'; slot: number };

export type ScoringMessage =
  | { kind: 'changes'; changes: ScoringChange[] }
  | { kind: 'score'; id: number; query: RelevanceQuery }
  | { kind: 'settled'; id: number }
  | { kind: 'save'; id: number; dir: string; generation: string }
  | { kind: 'restore'; id: number; dir: string; generation: string };
export type ScoringAnswer = ({ id: number } & Candidates) | { id: number; error: string } | { id: number; settled: true };

export interface Scorer {
  put(slot: number, agent: ScoredAgent, keepSentence: boolean): void;
  setSentence(slot: number, vector: Float32Array): void;
  setWork(slot: number, work: ScoredWork): void;
  remove(slot: number): void;
  score(query: RelevanceQuery): Promise<Candidates>;
  /** Resolves once every change made before the call has been applied. */
  settled(): Promise<void>;
  /** Writes the agents' scoring data under `dir` (relevance-scorer.ts save), once every change made before has been applied. */
  save(dir: string, generation: string): Promise<void>;
  /** Replaces every agent with what `save` wrote; on failure (it rejects) the scorer is left empty. */
  restore(dir: string, generation: string): Promise<void>;
  close(): Promise<void>;
}

export interface ScorerOptions {
  /** Score on this thread from the start (no worker). */
  inProcess?: boolean;
  /** The scorer lost its agents (its worker died): put them all again. */
  onReset?(): void;
  onError?(error: unknown): void;
  /** Tests: the worker, to watch or stop it. */
  startWorker?(): Worker;
}

export function createScorer({
  inProcess = false,
  onReset = () => {},
  onError = () => {},
  startWorker = () => startModuleWorker('scoring-worker', import.meta.url, { resourceLimits: SMALL_YOUNG_GENERATION }),
}: ScorerOptions = {}): Scorer {
  let local = inProcess ? createRelevanceScorer() : null;
  let worker: Worker | null = null;
  let changes: ScoringChange[] = [];
  let flushScheduled = false;
  let nextId = 0;
  const pending = new Map<number, { resolve(answer: Candidates | null): void; reject(error: Error): void }>();

  function fallBack(error: Error): void {
    if (local) return;
    onError(new Error(`discovery: the scoring worker stopped (${error.message}); scoring on the request thread`, { cause: error }));
    worker = null;
    changes = [];
    local = createRelevanceScorer();
    for (const request of pending.values()) request.reject(error);
    pending.clear();
    onReset();
  }

  function start(): Worker {
    const started = startWorker();
    started.on('message', (answer: ScoringAnswer) => {
      const request = pending.get(answer.id);
      if (!request) return;
      pending.delete(answer.id);
      if ('error' in answer) request.reject(new Error(`discovery scoring: ${answer.error}`));
      else request.resolve('settled' in answer ? null : answer);
      if (pending.size === 0) started.unref();
    });
    started.on('error', (error) => fallBack(error));
    started.on('exit', (code) => fallBack(new Error(`exited with code ${code}`)));
    // An idle worker must not keep the process alive.
    started.unref();
    return started;
  }

  function flush(): void {
    flushScheduled = false;
    if (changes.length === 0 || !worker) return;
    worker.postMessage({ kind: 'changes', changes } satisfies ScoringMessage);
    changes = [];
  }

  function change(next: ScoringChange): void {
    if (local) {
      if (next.kind === 'put') local.put(next.slot, next.agent, next.keepSentence);
      else if (next.kind === 'sentence') local.setSentence(next.slot, next.vector);
      else if (next.kind === 'work') local.setWork(next.slot, next.work);
      else local.remove(next.slot);
      return;
    }
    worker ??= start();
    changes.push(next);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  }

  /** Sends the changes queued, then a message that the worker answers. */
  function ask(message: (id: number) => ScoringMessage): Promise<Candidates | null> {
    worker ??= start();
    flush();
    const id = nextId++;
    worker.ref();
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker!.postMessage(message(id));
    });
  }

  return {
    put: (slot, agent, keepSentence) => change({ kind: 'put', slot, agent, keepSentence }),
    setSentence: (slot, vector) => change({ kind: 'sentence', slot, vector }),
    setWork: (slot, work) => change({ kind: 'work', slot, work }),
    remove: (slot) => change({ kind: 'remove', slot }),
    async score(query) {
      if (local) return local.score(query);
      return (await ask((id) => ({ kind: 'score', id, query })))!;
    },
    async settled() {
      if (!local) await ask((id) => ({ kind: 'settled', id }));
    },
    async save(dir, generation) {
      if (local) local.save(dir, generation);
      else await ask((id) => ({ kind: 'save', id, dir, generation }));
    },
    async restore(dir, generation) {
      if (!local) {
        await ask((id) => ({ kind: 'restore', id, dir, generation }));
        return;
      }
      const restored = createRelevanceScorer();
      local = createRelevanceScorer();
      restored.restore(dir, generation);
      local = restored;
    },
    async close() {
      const running = worker;
      local ??= createRelevanceScorer();
      worker = null;
      for (const request of pending.values()) request.reject(new Error('discovery scoring closed'));
      pending.clear();
      if (running) {
        running.removeAllListeners('exit');
        await running.terminate();
      }
    },
  };
}
