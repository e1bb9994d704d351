import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTurnBatches } from '../../src/lib/turn-batches.ts';

describe('createTurnBatches', () => {
  it('passes on what one turn collected, after the turn, in chunks of at most the maximum', async () => {
    const chunks: number[][] = [];
    const batches = createTurnBatches<number>(3, (chunk) => chunks.push(chunk));
    for (let i = 1; i <= 7; i++) batches.add(i);
    assert.deepEqual(chunks, [], 'nothing before the turn ends');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(chunks, [[1, 2, 3], [4, 5, 6], [7]]);
    batches.add(8);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(chunks.at(-1), [8], 'a later turn is a batch of its own');
  });

  it('flushes on demand, and the scheduled flush then finds nothing to pass on twice', async () => {
    const chunks: string[][] = [];
    const batches = createTurnBatches<string>(10, (chunk) => chunks.push(chunk));
    batches.add('a');
    batches.flush();
    assert.deepEqual(chunks, [['a']]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(chunks, [['a']]);
  });
});
