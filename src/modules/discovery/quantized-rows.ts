/**
 * Vectors of one dimension by slot, each held as int8 with one float32 scale: a 512-dimension sentence
 * vector takes 516 bytes instead of 2,048, with no JavaScript object per vector. Discovery keeps every
 * agent's sentence and word vectors here (its memory at a million agents is mostly these).
 *
 * A vector is scaled so that its largest component is ±127; the dot product of a float32 query with a
 * row is then within about 1e-3 of the float32 one for unit vectors of a few hundred dimensions.
 * The dimension is fixed by the first vector stored; a vector or query of another length is compared
 * on their common length, as a plain dot product over two arrays would be. An empty slot is a zero row.
 */
export interface QuantizedRows {
  /** Stores `vector` in `slot` (replacing what it held). */
  put(slot: number, vector: Float32Array): void;
  /** Empties a slot. */
  clear(slot: number): void;
  /** The query as rows are compared with it (its length fitted to theirs): once per query, then `dot`. */
  prepare(query: Float32Array): Float32Array;
  /** Dot product of a prepared query with the vector in `slot` (0 for an empty slot). */
  dot(slot: number, prepared: Float32Array): number;
  /** The vector in `slot`, as float32 (zeros for an empty slot). */
  vectorAt(slot: number): Float32Array;
  /** The rows as arrays (views: valid until the next change), for `restore` at another start. */
  snapshot(): { dimensions: number; rows: Int8Array; scales: Float32Array };
  restore(saved: { dimensions: number; rows: Int8Array; scales: Float32Array }): void;
}

const INT8_MAX = 127;
/** Rows added per growth: a quarter more at a time keeps spare capacity (never returned) small. */
const GROWTH = 1.25;
const MIN_ROWS = 256;

export function createQuantizedRows(): QuantizedRows {
  let dim = 0;
  let capacity = 0;
  let rows: Int8Array = new Int8Array(0);
  let scales: Float32Array = new Float32Array(0);

  function ensure(slot: number): void {
    if (slot < capacity) return;
    const next = Math.max(MIN_ROWS, slot + 1, Math.ceil(capacity * GROWTH));
    const grownRows = new Int8Array(next * dim);
    grownRows.set(rows);
    const grownScales = new Float32Array(next);
    grownScales.set(scales);
    rows = grownRows;
    scales = grownScales;
    capacity = next;
  }

  return {
    put(slot, vector) {
      if (dim === 0) dim = Math.max(1, vector.length);
      ensure(slot);
      const length = Math.min(dim, vector.length);
      let largest = 0;
      for (let i = 0; i < length; i++) largest = Math.max(largest, Math.abs(vector[i]!));
      const at = slot * dim;
      rows.fill(0, at, at + dim);
      scales[slot] = largest / INT8_MAX;
      if (largest === 0) return;
      const factor = INT8_MAX / largest;
      for (let i = 0; i < length; i++) rows[at + i] = Math.round(vector[i]! * factor);
    },

    clear(slot) {
      if (slot >= capacity) return;
      rows.fill(0, slot * dim, (slot + 1) * dim);
      scales[slot] = 0;
    },

    prepare(query) {
      if (query.length === dim) return query;
      const fitted = new Float32Array(dim);
      fitted.set(query.length > dim ? query.subarray(0, dim) : query);
      return fitted;
    },

    dot(slot, prepared) {
      if (slot >= capacity || scales[slot] === 0) return 0;
      let sum = 0;
      for (let i = 0, at = slot * dim; i < dim; i++) sum += rows[at + i]! * prepared[i]!;
      return sum * scales[slot]!;
    },

    snapshot: () => ({ dimensions: dim, rows, scales }),

    restore(saved) {
      if (saved.rows.length !== saved.dimensions * saved.scales.length) throw new Error('saved vectors do not match their count');
      dim = saved.dimensions;
      rows = saved.rows;
      scales = saved.scales;
      capacity = scales.length;
    },

    vectorAt(slot) {
      const vector = new Float32Array(dim);
      if (slot >= capacity) return vector;
      const scale = scales[slot]!;
      for (let i = 0, at = slot * dim; i < dim; i++) vector[i] = rows[at + i]! * scale;
      return vector;
    },
  };
}
