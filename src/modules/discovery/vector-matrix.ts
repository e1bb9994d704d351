/**
 * Vectors of one dimension in one contiguous float32 block, addressed by slot, so that the dot
 * product of a query with all of them is one call of a SIMD kernel (dot-kernel.ts) instead of a
 * JavaScript loop per vector. Discovery keeps every agent's sentence vector here.
 *
 * The dimension is fixed by the first vector stored, rounded up to a multiple of 4 (the kernel's
 * lane width; the padding is zeros, so products are unchanged). A vector or query of another length
 * is compared on their common length, as a plain dot product over two arrays would be.
 *
 * Layout (bytes, all 16-aligned): the query, then `capacity` rows, then one result per row. Growing
 * moves only the results, which are scratch.
 */
import { instantiateDotKernel, type DotKernel } from './dot-kernel.ts';

export interface VectorMatrix {
  /** Stores `vector` in `slot`, or in a new slot when `slot` is -1; returns the slot. */
  put(slot: number, vector: Float32Array): number;
  /** Frees a slot (-1: nothing to free); it may be handed out again. */
  free(slot: number): void;
  /** Dot product of `query` with the vector in every slot, by slot (a copy; free slots give 0). */
  dotAll(query: Float32Array): Float32Array;
  /** Dot product of `query` with the vectors in `slots` only, in their order (-1 gives 0). */
  dotSome(query: Float32Array, slots: Int32Array): Float32Array;
  /** Slots in use. */
  readonly size: number;
}

const PAGE = 65_536;
const FLOAT = 4;

/** The kernel where WebAssembly SIMD is available; `useWasm: false` (tests) for the JavaScript loop. */
export function createVectorMatrix({ useWasm = true }: { useWasm?: boolean } = {}): VectorMatrix {
  const kernel: DotKernel | null = useWasm ? instantiateDotKernel() : null;
  let buffer: ArrayBuffer = kernel ? kernel.memory.buffer : new ArrayBuffer(0);
  let dim = 0;
  let capacity = 0;
  /** Slots below this have been handed out at least once: what dotAll computes. */
  let used = 0;
  const freed: number[] = [];

  const rowsAt = () => dim * FLOAT;
  const resultsAt = () => rowsAt() + capacity * dim * FLOAT;
  const floats = (byteOffset: number, length: number) => new Float32Array(buffer, byteOffset, length);

  function grow(): void {
    const nextCapacity = Math.max(64, capacity * 2);
    const bytes = dim * FLOAT + nextCapacity * (dim + 1) * FLOAT;
    if (kernel) {
      const pages = Math.ceil(bytes / PAGE) - kernel.memory.buffer.byteLength / PAGE;
      if (pages > 0) kernel.memory.grow(pages);
      buffer = kernel.memory.buffer;
    } else {
      const next = new ArrayBuffer(bytes);
      new Uint8Array(next).set(new Uint8Array(buffer, 0, Math.min(buffer.byteLength, bytes)));
      buffer = next;
    }
    capacity = nextCapacity;
  }

  function write(byteOffset: number, vector: Float32Array): void {
    const target = floats(byteOffset, dim);
    const length = Math.min(dim, vector.length);
    target.set(length === vector.length ? vector : vector.subarray(0, length));
    target.fill(0, length);
  }

  return {
    put(slot, vector) {
      if (dim === 0) dim = Math.max(4, Math.ceil(vector.length / 4) * 4);
      if (slot < 0) {
        slot = freed.pop() ?? used++;
        if (slot >= capacity) grow();
      }
      write(rowsAt() + slot * dim * FLOAT, vector);
      return slot;
    },

    free(slot) {
      if (slot < 0) return;
      floats(rowsAt() + slot * dim * FLOAT, dim).fill(0);
      freed.push(slot);
    },

    dotAll(query) {
      if (used === 0) return new Float32Array(0);
      write(0, query);
      if (kernel) {
        kernel.dots(rowsAt(), used, dim, 0, resultsAt());
        return floats(resultsAt(), used).slice();
      }
      const rows = floats(rowsAt(), used * dim);
      const q = floats(0, dim);
      const results = new Float32Array(used);
      for (let slot = 0; slot < used; slot++) {
        let sum = 0;
        for (let i = 0, at = slot * dim; i < dim; i++) sum += rows[at + i]! * q[i]!;
        results[slot] = sum;
      }
      return results;
    },

    dotSome(query, slots) {
      const results = new Float32Array(slots.length);
      if (used === 0) return results;
      write(0, query);
      const q = floats(0, dim);
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!;
        if (slot < 0 || slot >= used) continue;
        if (kernel) {
          kernel.dots(rowsAt() + slot * dim * FLOAT, 1, dim, 0, resultsAt());
          results[i] = floats(resultsAt(), 1)[0]!;
          continue;
        }
        const row = floats(rowsAt() + slot * dim * FLOAT, dim);
        let sum = 0;
        for (let d = 0; d < dim; d++) sum += row[d]! * q[d]!;
        results[i] = sum;
      }
      return results;
    },

    get size() {
      return used - freed.length;
    },
  };
}
