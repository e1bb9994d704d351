import { readFileSync } from 'node:fs';
import { spellingVariants } from '../../lib/words.ts';

/** The word table built by scripts/build-word-vectors.ts (layout documented there). */
export interface WordTable {
  dimensions: number;
  size: number;
  /** Row of a word, or undefined; falls back to other spellings of the word. */
  lookup(word: string): number | undefined;
  /** Adds row `row` times `weight` into `into`. */
  addRow(row: number, weight: number, into: Float32Array): void;
}

export const defaultWordTablePath = new URL('../../../assets/word-vectors.bin', import.meta.url);

export function loadWordTable(path: string | URL = defaultWordTablePath): WordTable {
  const file = readFileSync(path);
  if (file.length < 20 || file.toString('latin1', 0, 4) !== 'AGWV' || file.readUInt32LE(4) !== 1) {
    throw new Error(`${String(path)} is not a word table (build it with scripts/build-word-vectors.ts)`);
  }
  const dimensions = file.readUInt32LE(8);
  const size = file.readUInt32LE(12);
  const wordBytes = file.readUInt32LE(16);
  const words = file.toString('utf8', 20, 20 + wordBytes).split('\n');
  const scalesStart = Math.ceil((20 + wordBytes) / 4) * 4;
  const vectorsStart = scalesStart + size * 4;
  if (words.length !== size || file.length !== vectorsStart + size * dimensions) throw new Error(`${String(path)} is truncated or corrupt`);

  // Copies, so the typed arrays are aligned and the file buffer can go.
  const scales = new Float32Array(size);
  for (let i = 0; i < size; i++) scales[i] = file.readFloatLE(scalesStart + i * 4);
  const vectors = new Int8Array(file.buffer.slice(file.byteOffset + vectorsStart, file.byteOffset + vectorsStart + size * dimensions));

  const rows = new Map<string, number>();
  words.forEach((word, row) => rows.set(word, row));

  return {
    dimensions,
    size,
    lookup(word) {
      const row = rows.get(word);
      if (row !== undefined) return row;
      for (const variant of spellingVariants(word)) {
        const found = rows.get(variant);
        if (found !== undefined) return found;
      }
      return undefined;
    },
    addRow(row, weight, into) {
      const scaled = weight * scales[row]!;
      const offset = row * dimensions;
      for (let d = 0; d < dimensions; d++) into[d]! += scaled * vectors[offset + d]!;
    },
  };
}
