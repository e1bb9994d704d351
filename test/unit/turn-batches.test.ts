import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTurnBatches } from '../../src/lib/turn-batches.ts';
import { createTurnLoader } from '../../src/lib/turn-loader.ts';

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

describe('createTurnLoader', () => {
  it('answers the keys asked for in one turn from one load of each distinct key, and undefined for a key it does not find', async () => {
    const loads: string[][] = [];
    const loader = createTurnLoader<string, number>(10, async (keys) => {
      loads.push(keys);
      return new Map(keys.filter((key) => key !== 'missing').map((key) => [key, key.length]));
    });
    const answers = await Promise.all(['a', 'bb', 'a', 'missing', 'ccc'].map(loader.load));
    assert.deepEqual(answers, [1, 2, 1, undefined, 3]);
    assert.deepEqual(loads, [['a', 'bb', 'missing', 'ccc']]);
    assert.equal(await loader.load('dddd'), 4);
    assert.equal(loads.length, 2, 'a later turn loads again: nothing is cached');
  });

  it('splits a large turn into loads of at most the maximum, and a failed load fails only its own callers', async () => {
    const loader = createTurnLoader<number, number>(2, async (keys) => {
      if (keys.includes(3)) throw new Error('the database is gone');
      return new Map(keys.map((key) => [key, key * 10]));
    });
    const answers = await Promise.allSettled([1, 2, 3, 4].map(loader.load));
    assert.deepEqual(
      answers.map((answer) => (answer.status === 'fulfilled' ? answer.value : (answer.reason as Error).message)),
      [10, 20, 'the database is gone', 'the database is gone'],
    );
  });
});
