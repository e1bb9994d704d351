/**
 * The log side of an RFC 6962 Merkle tree kept as "stored hashes": every complete subtree's hash,
 * numbered as Go's golang.org/x/mod/sumdb/tlog numbers them (StoredHashIndex), so appending entry n
 * writes its leaf hash and the hashes of the subtrees it completes, and any root, proof or tile is
 * a read of a few stored hashes. Arithmetic is on plain numbers (safe to 2^53), never 32-bit bit operations.
 */
import { EMPTY_ROOT, hashChildren, splitPoint } from '@agentry/sdk/tlog';

/** Reads stored hashes by index, in the order asked. */
export type HashReader = (indexes: number[]) => Promise<Buffer[]>;

/** Tiles are 2^8 = 256 hashes wide (c2sp.org/tlog-tiles). */
export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;

const trailingOnes = (n: number): number => {
  let count = 0;
  while (n % 2 === 1) {
    count++;
    n = Math.floor(n / 2);
  }
  return count;
};

/** Where the hash of the subtree at `level` numbered `n` (the n-th of its level) is stored. */
export function storedHashIndex(level: number, n: number): number {
  for (let l = level; l > 0; l--) n = 2 * n + 1;
  let index = 0;
  for (; n > 0; n = Math.floor(n / 2)) index += n;
  return index + level;
}

/** How many hashes a tree of `size` entries stores. */
export function storedHashCount(size: number): number {
  if (size === 0) return 0;
  return storedHashIndex(0, size - 1) + 1 + trailingOnes(size - 1);
}

/** The hashes appending entry `n` stores (from index storedHashCount(n) on): its leaf hash and the subtrees it completes. */
export async function storedHashesFor(n: number, leafHash: Buffer, read: HashReader): Promise<Buffer[]> {
  const completes = trailingOnes(n);
  const indexes: number[] = [];
  for (let i = completes - 1; i >= 0; i--) indexes.push(storedHashIndex(i, Math.floor(n / 2 ** i) - 1));
  const siblings = await read(indexes);
  const hashes = [leafHash];
  let hash = leafHash;
  for (let i = 0; i < completes; i++) {
    hash = hashChildren(siblings[completes - 1 - i]!, hash);
    hashes.push(hash);
  }
  return hashes;
}

/** Stored-hash indexes of the complete subtrees that make up entries [lo, hi), left to right. */
function subtreeIndexes(lo: number, hi: number, need: number[]): number[] {
  while (lo < hi) {
    const k = splitPoint(hi - lo + 1);
    need.push(storedHashIndex(Math.log2(k), lo / k));
    lo += k;
  }
  return need;
}

/** The hash of entries [lo, hi) from the subtree hashes `subtreeIndexes` asked for; consumes them from `hashes`. */
function subtreeHash(lo: number, hi: number, hashes: Buffer[]): Buffer {
  let count = 0;
  for (let at = lo; at < hi; at += splitPoint(hi - at + 1)) count++;
  const parts = hashes.splice(0, count);
  let hash = parts[count - 1]!;
  for (let i = count - 2; i >= 0; i--) hash = hashChildren(parts[i]!, hash);
  return hash;
}

/** The root of the tree of `size` entries. */
export async function treeHash(size: number, read: HashReader): Promise<Buffer> {
  if (size === 0) return EMPTY_ROOT;
  const hashes = await read(subtreeIndexes(0, size, []));
  return subtreeHash(0, size, hashes);
}

function inclusionIndexes(lo: number, hi: number, n: number, need: number[]): number[] {
  if (lo + 1 === hi) return need;
  const k = splitPoint(hi - lo);
  if (n < lo + k) return subtreeIndexes(lo + k, hi, inclusionIndexes(lo, lo + k, n, need));
  return inclusionIndexes(lo + k, hi, n, subtreeIndexes(lo, lo + k, need));
}

function inclusionPath(lo: number, hi: number, n: number, hashes: Buffer[]): Buffer[] {
  if (lo + 1 === hi) return [];
  const k = splitPoint(hi - lo);
  if (n < lo + k) {
    const path = inclusionPath(lo, lo + k, n, hashes);
    return [...path, subtreeHash(lo + k, hi, hashes)];
  }
  const sibling = subtreeHash(lo, lo + k, hashes);
  return [...inclusionPath(lo + k, hi, n, hashes), sibling];
}

/** The inclusion proof of entry `index` in the tree of `size` entries (RFC 6962 2.1.1, leaf side first). */
export async function proveInclusion(size: number, index: number, read: HashReader): Promise<Buffer[]> {
  if (!(index >= 0 && index < size)) throw new RangeError(`no entry ${index} in a tree of ${size}`);
  const hashes = await read(inclusionIndexes(0, size, index, []));
  return inclusionPath(0, size, index, hashes);
}

function consistencyIndexes(lo: number, hi: number, n: number, need: number[]): number[] {
  if (n === hi) return lo === 0 ? need : subtreeIndexes(lo, hi, need);
  const k = splitPoint(hi - lo);
  if (n <= lo + k) return subtreeIndexes(lo + k, hi, consistencyIndexes(lo, lo + k, n, need));
  return consistencyIndexes(lo + k, hi, n, subtreeIndexes(lo, lo + k, need));
}

function consistencyPath(lo: number, hi: number, n: number, hashes: Buffer[]): Buffer[] {
  if (n === hi) return lo === 0 ? [] : [subtreeHash(lo, hi, hashes)];
  const k = splitPoint(hi - lo);
  if (n <= lo + k) {
    const path = consistencyPath(lo, lo + k, n, hashes);
    return [...path, subtreeHash(lo + k, hi, hashes)];
  }
  const sibling = subtreeHash(lo, lo + k, hashes);
  return [...consistencyPath(lo + k, hi, n, hashes), sibling];
}

/** The consistency proof from the tree of `from` entries to the tree of `to` entries (empty when from is 0 or equals to). */
export async function proveConsistency(to: number, from: number, read: HashReader): Promise<Buffer[]> {
  if (!(from >= 0 && from <= to)) throw new RangeError(`no consistency proof from ${from} to ${to}`);
  if (from === 0 || from === to) return [];
  const hashes = await read(consistencyIndexes(0, to, from, []));
  return consistencyPath(0, to, from, hashes);
}

/** The stored-hash indexes a tile holds: hashes of 256^level-entry subtrees, `width` of them from the tile's start. */
export function tileHashIndexes(level: number, index: number, width: number): number[] {
  const indexes: number[] = [];
  for (let i = 0; i < width; i++) indexes.push(storedHashIndex(level * TILE_HEIGHT, index * TILE_WIDTH + i));
  return indexes;
}

/**
 * Whether the tree of `size` entries holds the tile at (level, index) `width` hashes wide. A partial
 * tile of an earlier checkpoint stays available: its hashes never change.
 */
export function tileExists(size: number, level: number, index: number, width: number): boolean {
  return index * TILE_WIDTH + width <= Math.floor(size / TILE_WIDTH ** level);
}
