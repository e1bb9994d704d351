/**
 * The approximate nearest-neighbour index over agents' sentence vectors (usearch: HNSW, vectors
 * held as int8, cosine), by scorer slot. A search with many agents asks it for the agents nearest
 * the query instead of taking a dot product with every one; relevance-scorer.ts then scores those
 * (with the lexical and catalogue matches) exactly. It lives in the scoring worker beside the
 * scorer, so adding vectors never runs on the request thread.
 */
import { createRequire } from 'node:module';

// The CommonJS build: the ES module build's loader of the native addon ends a worker thread (the
// scoring worker, where this runs) with exit code 1.
const usearch = createRequire(import.meta.url)('usearch') as typeof import('usearch');
const { MetricKind, ScalarKind } = usearch;

/**
 * Graph links per node, and breadth while adding (usearch's defaults) and while searching: as deep as
 * the most candidates a search asks for (service.ts), since a search finds at most that many well.
 */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = 512;

export interface CandidateIndex {
  /** Sets the vector of `slot` (replacing any it had). */
  put(slot: number, vector: Float32Array): void;
  /** Sets the vectors of many slots at once (a node's first load). */
  putMany(slots: number[], vectors: Float32Array[]): void;
  remove(slot: number): void;
  /** The `k` slots whose vectors are nearest `query`, nearest first. */
  nearest(query: Float32Array, k: number): Int32Array;
  readonly size: number;
  /** Writes the index to a file (usearch's own format; none when it is empty); answers the slots it holds, one byte each. */
  save(path: string): Uint8Array;
  /** Replaces the index with one `save` wrote, of vectors of `length`, holding the slots marked in `slots` (one byte each). */
  load(path: string, length: number, slots: Uint8Array): void;
}

export function createCandidateIndex(): CandidateIndex {
  let index: InstanceType<typeof usearch.Index> | null = null;
  let dimensions = 0;
  // Which slots the index holds, one byte each (a Set of a million numbers takes tens of bytes each).
  let held: Uint8Array = new Uint8Array(0);
  let heldCount = 0;
  const hold = (slot: number) => {
    if (slot >= held.length) {
      const grown = new Uint8Array(Math.max(256, slot + 1, Math.ceil(held.length * 1.25)));
      grown.set(held);
      held = grown;
    }
    if (!held[slot]) heldCount++;
    held[slot] = 1;
  };

  const create = (length: number) =>
    new usearch.Index({
      dimensions: length,
      metric: MetricKind.Cos,
      quantization: ScalarKind.I8,
      connectivity: CONNECTIVITY,
      expansion_add: EXPANSION_ADD,
      expansion_search: EXPANSION_SEARCH,
      multi: false,
    });
  const open = (length: number) => {
    if (!index) {
      dimensions = length;
      index = create(dimensions);
    }
    return index;
  };
  // A vector of another length (another model) cannot join the index: it is left out of it, and the
  // scorer keeps scoring such agents in full.
  const fits = (vector: Float32Array) => dimensions === 0 || vector.length === dimensions;

  function removeIfHeld(slot: number): void {
    if (!index || !held[slot]) return;
    held[slot] = 0;
    heldCount--;
    index.remove(BigInt(slot));
  }

  return {
    put(slot, vector) {
      removeIfHeld(slot);
      if (!fits(vector)) return;
      open(vector.length).add(BigInt(slot), vector);
      hold(slot);
    },
    putMany(slots, vectors) {
      const keep = slots.flatMap((slot, i) => (fits(vectors[i]!) ? [i] : []));
      if (keep.length === 0) return;
      for (const slot of slots) removeIfHeld(slot);
      const target = open(vectors[keep[0]!]!.length);
      const matrix = new Float32Array(keep.length * dimensions);
      keep.forEach((i, row) => matrix.set(vectors[i]!, row * dimensions));
      target.add(
        BigUint64Array.from(keep, (i) => BigInt(slots[i]!)),
        matrix,
      );
      for (const i of keep) hold(slots[i]!);
    },
    remove: removeIfHeld,
    nearest(query, k) {
      if (!index || heldCount === 0 || query.length !== dimensions) return new Int32Array(0);
      const found = index.search(query, Math.min(k, heldCount), 1);
      return Int32Array.from(found.keys, (key) => Number(key));
    },
    get size() {
      return heldCount;
    },
    save(path) {
      if (index && heldCount > 0) index.save(path);
      return held.slice();
    },
    load(path, length, slots) {
      const count = slots.reduce((sum, marked) => sum + marked, 0);
      let loaded: InstanceType<typeof usearch.Index> | null = null;
      if (count > 0) {
        loaded = create(length);
        loaded.load(path);
        if (loaded.dimensions() !== length) throw new Error(`${path} does not hold vectors of ${length} dimensions`);
      }
      index = loaded;
      dimensions = loaded ? length : 0;
      held = slots;
      heldCount = count;
    },
  };
}
