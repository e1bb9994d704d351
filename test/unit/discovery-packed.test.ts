/**
 * What discovery keeps per agent, packed by slot: int8 vectors (quantized-rows.ts) and lists of ids
 * (slot-lists.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createQuantizedRows } from '../../src/modules/discovery/quantized-rows.ts';
import { createSlotLists } from '../../src/modules/discovery/slot-lists.ts';

/** A deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}
const unitVector = (next: () => number, dimensions: number) => {
  const vector = Float32Array.from({ length: dimensions }, () => next() - 0.5);
  const length = Math.hypot(...vector);
  return vector.map((x) => x / length);
};
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('discovery: packed per-agent data', () => {
  it('int8 rows give dot products within 0.005 of float32 ones, for any slot, through growth and reuse', () => {
    const next = random(5);
    const rows = createQuantizedRows();
    const vectors = Array.from({ length: 600 }, () => unitVector(next, 512));
    vectors.forEach((vector, slot) => rows.put(slot, vector));
    const query = unitVector(next, 512);
    const prepared = rows.prepare(query);
    let worst = 0;
    vectors.forEach((vector, slot) => (worst = Math.max(worst, Math.abs(rows.dot(slot, prepared) - dot(vector, query)))));
    assert.ok(worst < 0.005, `largest error ${worst}`);
    assert.ok(Math.abs(dot(rows.vectorAt(7), query) - dot(vectors[7]!, query)) < 0.005, 'a row read back is the vector');

    rows.put(3, vectors[9]!);
    assert.ok(Math.abs(rows.dot(3, prepared) - dot(vectors[9]!, query)) < 0.005, 'a slot written again holds the new vector');
    rows.clear(4);
    assert.equal(rows.dot(4, prepared), 0, 'an empty slot is a zero row');
    assert.equal(rows.dot(10_000, prepared), 0, 'so is a slot never written');
    const short = rows.prepare(query.subarray(0, 100));
    assert.ok(Math.abs(rows.dot(0, short) - dot(vectors[0]!.subarray(0, 100), query.subarray(0, 100))) < 0.005, 'a shorter query counts its own length');
  });

  it('slot lists keep each slot its own list through growth, shrinking, clearing and packing', () => {
    const lists = createSlotLists();
    const expected = new Map<number, number[]>();
    const next = random(9);
    // Many rewrites of random lengths: lists that grow move to the end, and the space left is packed away.
    for (let round = 0; round < 20_000; round++) {
      const slot = Math.floor(next() * 500);
      if (next() < 0.1) {
        lists.clear(slot);
        expected.delete(slot);
        continue;
      }
      const values = Array.from({ length: Math.floor(next() * 12) }, () => Math.floor(next() * 1000));
      lists.set(slot, values);
      expected.set(slot, values);
    }
    for (let slot = 0; slot < 600; slot++) {
      const values = expected.get(slot) ?? [];
      assert.deepEqual([...lists.get(slot)], values, `slot ${slot}`);
      for (const value of values) assert.ok(lists.has(slot, value));
      assert.equal(lists.has(slot, 5000), false);
    }
  });
});
