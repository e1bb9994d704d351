import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../src/lib/module-worker.ts';
import type { RelevanceQuery, ScoredAgent } from '../../src/modules/discovery/relevance-scorer.ts';
import { createScorer, type Scorer } from '../../src/modules/discovery/scoring.ts';
import { capabilities } from '../../src/modules/catalog/index.ts';
import { stem } from '../../src/lib/words.ts';

const scoringWorkerUrl = new URL('../../src/modules/discovery/scoring.ts', import.meta.url).href;
const unit = (values: number[]) => {
  const length = Math.hypot(...values);
  return Float32Array.from(values, (v) => v / length);
};
const agent = (vector: number[], stems: string[] = []): ScoredAgent => ({ vector: unit(vector), stems, concepts: [] });
const query = (parts: Partial<RelevanceQuery> = {}): RelevanceQuery => ({
  sentence: null,
  vector: unit([1, 0, 0]),
  concepts: [],
  stems: [],
  words: [],
  lexicalSlots: new Int32Array(0),
  lexicalScores: new Float64Array(0),
  only: null,
  maxResults: 500,
  ...parts,
});
const ranked = async (scorer: Scorer, q: RelevanceQuery = query()) => [...(await scorer.score(q)).slots];

function fill(scorer: Scorer): void {
  scorer.put(0, agent([1, 0, 0]), false);
  scorer.put(1, agent([0.8, 0.6, 0]), false);
  scorer.put(2, agent([0, 1, 0]), false);
  scorer.put(3, agent([0.9, 0.1, 0]), false);
}

describe('discovery: scoring on a worker thread', () => {
  it('ranks like scoring on the request thread, and sees every change made before a query', async () => {
    const inWorker = createScorer();
    const inProcess = createScorer({ inProcess: true });
    try {
      for (const scorer of [inWorker, inProcess]) fill(scorer);
      assert.deepEqual(await ranked(inWorker), [0, 3, 1], 'best first; the unrelated agent is no result');
      assert.deepEqual(await ranked(inWorker), await ranked(inProcess));

      // A removal, a changed agent and a sentence vector, then at once a query.
      for (const scorer of [inWorker, inProcess]) {
        scorer.remove(0);
        scorer.put(2, agent([1, 0.05, 0]), false);
        scorer.setSentence(1, unit([0, 0, 1]));
      }
      const withSentence = query({ sentence: unit([0, 0, 1]) });
      assert.deepEqual(await ranked(inWorker, withSentence), await ranked(inProcess, withSentence));
      assert.equal((await ranked(inWorker, withSentence))[0], 1, 'the agent with a matching sentence vector comes first');
      assert.ok(!(await ranked(inWorker)).includes(0), 'a removed agent is gone');
      assert.deepEqual(await ranked(inWorker, query({ only: Int32Array.from([1, 3]) })), [3, 1], 'a filter keeps to its agents');
    } finally {
      await Promise.all([inWorker.close(), inProcess.close()]);
    }
  });

  it('goes on scoring on the request thread when the worker dies, and asks for the agents again', async () => {
    let worker: Worker | null = null;
    let resets = 0;
    const errors: unknown[] = [];
    const scorer = createScorer({
      startWorker: () => (worker = startModuleWorker('scoring-worker', scoringWorkerUrl)),
      onReset: () => resets++,
      onError: (error) => errors.push(error),
    });
    try {
      fill(scorer);
      assert.deepEqual(await ranked(scorer), [0, 3, 1]);
      await worker!.terminate();
      assert.equal(resets, 1);
      assert.match(String(errors[0]), /scoring worker stopped/);
      assert.deepEqual(await ranked(scorer), [], 'the new scorer starts empty');
      fill(scorer);
      assert.deepEqual(await ranked(scorer), [0, 3, 1]);
    } finally {
      await scorer.close();
    }
  });

  it("answers the share of the query's words each candidate accounts for, its capabilities' words included", async () => {
    const scorer = createScorer({ inProcess: true });
    try {
      const shipmentTracking = capabilities.findIndex((capability) => capability.slug === 'shipment-tracking');
      // Both follow parcels; only the first is mapped onto the catalogue's shipment tracking, whose aliases say "package".
      scorer.put(0, { vector: unit([1, 0, 0]), stems: [stem('parcels')], concepts: [{ index: shipmentTracking, weight: 1 }] }, false);
      scorer.put(1, { vector: unit([1, 0, 0]), stems: [stem('parcels')], concepts: [] }, false);
      const answer = await scorer.score(
        query({
          words: [
            { stem: stem('package'), vector: null },
            { stem: 'quantum', vector: unit([0, 1, 0]) },
          ],
        }),
      );
      const coverageOf = (slot: number) => answer.coverage[[...answer.slots].indexOf(slot)];
      assert.equal(coverageOf(0), 0.5, '"package" is a word people use for its capability; "quantum" is nothing to it');
      assert.equal(coverageOf(1), 0);
      const close = await scorer.score(query({ words: [{ stem: 'quantum', vector: unit([1, 0.1, 0]) }] }));
      assert.deepEqual([...close.coverage], [1, 1], 'a word close in meaning to the text is accounted for');
    } finally {
      await scorer.close();
    }
  });
});
