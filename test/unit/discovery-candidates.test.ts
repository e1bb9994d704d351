/**
 * Scoring only candidates (RelevanceQuery.nearest): the approximate index's nearest agents with the
 * lexical hits, agents without a sentence vector and the strongest agents of the query's catalogue
 * capabilities, ranked as scoring every agent ranks them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCandidateIndex } from '../../src/modules/discovery/candidate-index.ts';
import { createRelevanceScorer, type RelevanceQuery } from '../../src/modules/discovery/relevance-scorer.ts';
import { createScorer } from '../../src/modules/discovery/scoring.ts';

const DIM = 64;
const CLUSTERS = 40;
const AGENTS = 2_000;

/** A deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}
const unit = (v: Float32Array) => {
  const length = Math.hypot(...v);
  return v.map((x) => x / length);
};

const centres = (() => {
  const next = random(3);
  return Array.from({ length: CLUSTERS }, () => unit(Float32Array.from({ length: DIM }, () => next() - 0.5)));
})();
/** Vectors around CLUSTERS centres, as sentence vectors of agents saying similar things are. */
function clustered(count: number, seed: number): Float32Array[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, i) => unit(centres[i % CLUSTERS]!.map((x) => x + (next() - 0.5) * 0.12)));
}

const query = (parts: Partial<RelevanceQuery>): RelevanceQuery => ({
  sentence: null,
  vector: null,
  concepts: [],
  stems: [],
  words: [],
  lexicalSlots: new Int32Array(0),
  lexicalScores: new Float64Array(0),
  only: null,
  maxResults: 50,
  ...parts,
});

describe('discovery: candidates from the approximate index', () => {
  const vectors = clustered(AGENTS, 7);
  const queries = clustered(60, 11);

  it('finds the nearest vectors: recall@50 against an exact scan at or above 0.95', () => {
    const index = createCandidateIndex();
    index.putMany(
      vectors.map((_, slot) => slot),
      vectors,
    );
    let found = 0;
    for (const q of queries) {
      const exact = vectors
        .map((v, slot) => ({ slot, cosine: v.reduce((sum, x, d) => sum + x * q[d]!, 0) }))
        .sort((a, b) => b.cosine - a.cosine)
        .slice(0, 50)
        .map((hit) => hit.slot);
      const near = new Set(index.nearest(q, 50));
      found += exact.filter((slot) => near.has(slot)).length;
    }
    const recall = found / (50 * queries.length);
    assert.ok(recall >= 0.95, `recall@50 ${recall.toFixed(3)}`);
  });

  it('ranks candidates as scoring every agent does, and keeps lexical hits and agents without a sentence vector', () => {
    const scorer = createRelevanceScorer();
    const far = unit(Float32Array.from({ length: DIM }, (_, d) => (d === 0 ? 1 : 0)));
    vectors.forEach((vector, slot) => {
      scorer.put(slot, { vector: null, stems: [], concepts: [] }, false);
      scorer.setSentence(slot, vector);
    });
    // One agent known only by its words, one not embedded yet: ranked by its word vector.
    const lexicalOnly = AGENTS;
    scorer.put(lexicalOnly, { vector: null, stems: ['kubernetes'], concepts: [] }, false);
    scorer.setSentence(lexicalOnly, far);
    const wordVectorOnly = AGENTS + 1;
    scorer.put(wordVectorOnly, { vector: far, stems: [], concepts: [] }, false);

    // The index is approximate (and not the same graph every run), so the measure is recall: of the top
    // 20 a full scan ranks for each query, how many the candidates' top 20 holds. Runs measure 0.995-1.
    let found = 0;
    for (const q of queries.slice(0, 20)) {
      const full = scorer.score(query({ sentence: q }));
      const candidates = scorer.score(query({ sentence: q, nearest: 200 }));
      assert.ok(full.slots.length >= 20, 'the query is near enough to many agents');
      const top = new Set([...candidates.slots].slice(0, 20));
      found += [...full.slots].slice(0, 20).filter((slot) => top.has(slot)).length;
    }
    assert.ok(found / 400 >= 0.97, `recall at 20 over 20 queries: ${found / 400}`);
    const lexical = { lexicalSlots: Int32Array.of(lexicalOnly), lexicalScores: Float64Array.of(1), stems: ['kubernetes'] };
    // A query near no agent in meaning: only its words find one.
    const next = random(99);
    const nowhere = unit(Float32Array.from({ length: DIM }, () => next() - 0.5));
    const withWords = scorer.score(query({ sentence: nowhere, nearest: 200, ...lexical }));
    assert.equal(withWords.slots[0], lexicalOnly, 'a lexical hit far in meaning is still scored');
    const byWordVector = scorer.score(query({ sentence: queries[0]!, vector: far, nearest: 200 }));
    assert.ok([...byWordVector.slots].includes(wordVectorOnly), 'an agent waiting for its sentence vector is still scored');
  });

  it('follows agents that change meaning or leave', () => {
    const scorer = createRelevanceScorer();
    vectors.slice(0, 500).forEach((vector, slot) => {
      scorer.put(slot, { vector: null, stems: [], concepts: [] }, false);
      scorer.setSentence(slot, vector);
    });
    const target = queries[3]!;
    const best = () => scorer.score(query({ sentence: target, nearest: 20 })).slots[0];
    const leader = best();
    assert.notEqual(leader, undefined);
    scorer.remove(leader!);
    assert.notEqual(best(), leader, 'a removed agent is no candidate');
    // Another agent's text changes to say exactly what the query asks.
    scorer.put(1, { vector: null, stems: [], concepts: [] }, false);
    scorer.setSentence(1, target);
    assert.equal(best(), 1);
  });

  it('runs on the scoring worker', async () => {
    const scorer = createScorer();
    try {
      vectors.slice(0, 300).forEach((vector, slot) => {
        scorer.put(slot, { vector: null, stems: [], concepts: [] }, false);
        scorer.setSentence(slot, vector);
      });
      const inWorker = await scorer.score(query({ sentence: vectors[42]!, nearest: 50 }));
      assert.equal(inWorker.slots[0], 42);
    } finally {
      await scorer.close();
    }
  });
});
