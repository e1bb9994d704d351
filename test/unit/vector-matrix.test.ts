/**
 * The vector matrix (src/modules/discovery/vector-matrix.ts) and its SIMD kernel (dot-kernel.ts beside it): the
 * shipped bytes are the shipped source compiled, and both the kernel and the JavaScript loop give
 * the dot products a plain loop gives, through growth, freed and reused slots, and vectors of odd
 * lengths.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import wabtInit from 'wabt';
import { createVectorMatrix, DOT_KERNEL_WASM, DOT_KERNEL_WAT, instantiateDotKernel } from '../../src/modules/discovery/index.ts';

const vectorOf = (length: number, seed: number) => Float32Array.from({ length }, (_, i) => Math.sin(seed * 12.9898 + i * 78.233));
const plainDot = (a: Float32Array, b: Float32Array) => {
  let sum = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) sum += a[i]! * b[i]!;
  return sum;
};
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-4, `${what}: ${actual} against ${expected}`);

describe('dot kernel', () => {
  it('is the compiled form of its WebAssembly text', async () => {
    const wabt = await wabtInit();
    const module = wabt.parseWat('dot-kernel.wat', DOT_KERNEL_WAT, { simd: true });
    try {
      assert.ok(Buffer.from(module.toBinary({}).buffer).equals(DOT_KERNEL_WASM), 'DOT_KERNEL_WASM is not DOT_KERNEL_WAT compiled: paste the new base64');
    } finally {
      module.destroy();
    }
  });

  it('runs here (Node has WebAssembly SIMD)', () => {
    assert.ok(instantiateDotKernel(), 'the SIMD kernel did not instantiate: search would fall back to the slower JavaScript loop');
  });
});

for (const useWasm of [true, false]) {
  describe(`vector matrix (${useWasm ? 'SIMD kernel' : 'JavaScript loop'})`, () => {
    it('gives the dot product of a query with every stored vector, by slot, through growth', () => {
      const matrix = createVectorMatrix({ useWasm });
      const vectors = Array.from({ length: 300 }, (_, i) => vectorOf(512, i));
      const slots = vectors.map((vector) => matrix.put(-1, vector));
      assert.deepEqual(
        slots,
        vectors.map((_, i) => i),
      );
      assert.equal(matrix.size, 300);
      const query = vectorOf(512, 1000);
      const dots = matrix.dotAll(query);
      assert.equal(dots.length, 300);
      vectors.forEach((vector, i) => close(dots[i]!, plainDot(query, vector), `slot ${i}`));
    });

    it('replaces a vector in place, and hands a freed slot out again with nothing of its old vector', () => {
      const matrix = createVectorMatrix({ useWasm });
      const first = matrix.put(-1, vectorOf(8, 1));
      const second = matrix.put(-1, vectorOf(8, 2));
      assert.equal(matrix.put(second, vectorOf(8, 3)), second);
      const query = vectorOf(8, 9);
      close(matrix.dotAll(query)[second]!, plainDot(query, vectorOf(8, 3)), 'replaced vector');

      matrix.free(first);
      assert.equal(matrix.size, 1);
      assert.equal(matrix.dotAll(query)[first], 0, 'a freed slot scores 0');
      assert.equal(matrix.put(-1, vectorOf(8, 4)), first, 'the freed slot is reused');
      close(matrix.dotAll(query)[first]!, plainDot(query, vectorOf(8, 4)), 'reused slot');
      matrix.free(-1);
      assert.equal(matrix.size, 2);
    });

    it('pads lengths that are not a multiple of 4, and compares vectors of other lengths on the common part', () => {
      const matrix = createVectorMatrix({ useWasm });
      const odd = vectorOf(10, 1);
      const slot = matrix.put(-1, odd);
      const shorter = matrix.put(-1, vectorOf(6, 2));
      const longer = matrix.put(-1, vectorOf(14, 3));
      for (const query of [vectorOf(10, 7), vectorOf(5, 8), vectorOf(20, 9)]) {
        const dots = matrix.dotAll(query);
        close(dots[slot]!, plainDot(query, odd), `query of ${query.length}, stored 10`);
        close(dots[shorter]!, plainDot(query, vectorOf(6, 2)), `query of ${query.length}, stored 6`);
        close(dots[longer]!, plainDot(query.subarray(0, 12), vectorOf(12, 3)), `query of ${query.length}, stored 14 (kept 12)`);
      }
    });

    it('answers an empty matrix with no products, and gives copies a later search cannot change', () => {
      const matrix = createVectorMatrix({ useWasm });
      assert.equal(matrix.dotAll(vectorOf(4, 1)).length, 0);
      matrix.put(-1, vectorOf(4, 1));
      const before = matrix.dotAll(vectorOf(4, 2));
      const kept = before[0];
      matrix.dotAll(vectorOf(4, 3));
      for (let i = 0; i < 100; i++) matrix.put(-1, vectorOf(4, i)); // grows the memory
      assert.equal(before[0], kept);
    });
  });
}
