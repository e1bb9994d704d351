/**
 * The hot part of a search: every agent's relevance to a query (ranking.ts), the floor, and the cut
 * below which an agent cannot reach the results. It holds what that needs of each agent (its word
 * vector, stemmed words, concepts, and its sentence vector in one float32 block), by slot, and runs
 * inside the scoring worker (scoring-worker.ts) so that the request thread only asks and answers.
 * Pure computation: no I/O, no clock.
 */
import { createVectorMatrix } from './vector-matrix.ts';
import { conceptSimilarity, dot, type Concepts } from './concepts.ts';
import { MIN_RELEVANCE, queryCoverage, RELATIVE_RELEVANCE_FLOOR, relevanceOf, SCORE_WEIGHTS, sentenceSimilarity } from './ranking.ts';

/** What relevance needs of one agent. */
export interface ScoredAgent {
  /** Word-vector embedding; null while the embedder could not embed it. */
  vector: Float32Array | null;
  /** The content words of its text, stemmed. */
  stems: string[];
  concepts: Concepts;
}

export interface RelevanceQuery {
  /** The query's sentence vector (after the query map); null: the word vectors decide the semantic part. */
  sentence: Float32Array | null;
  /** The query's word vector; null with `sentence` null: no semantic part. */
  vector: Float32Array | null;
  concepts: Concepts;
  stems: string[];
  /** Full-text hits: slot and rank, in step. */
  lexicalSlots: Int32Array;
  lexicalScores: Float64Array;
  /** Only these slots may be results (a filter); null: every agent. */
  only: Int32Array | null;
  /** How many results are ranked. */
  maxResults: number;
}

/**
 * The agents that may make the results, best relevance first: above the floor, and not below
 * SCORE_WEIGHTS.base x the maxResults-th best relevance (trust and availability scale relevance by
 * base..1, so such an agent cannot make the cut whatever its trust).
 */
export interface Candidates {
  slots: Int32Array<ArrayBuffer>;
  relevance: Float64Array<ArrayBuffer>;
}

interface Entry {
  vector: Float32Array | null;
  stems: Set<string>;
  concepts: Concepts;
  /** In the sentence matrix; -1 until the agent has a sentence vector. */
  sentenceSlot: number;
}

export function createRelevanceScorer() {
  const entries: (Entry | undefined)[] = [];
  const sentences = createVectorMatrix();

  return {
    /** Sets an agent's data; `keepSentence` keeps its sentence vector (its text did not change). */
    put(slot: number, agent: ScoredAgent, keepSentence: boolean): void {
      const previous = entries[slot];
      let sentenceSlot = previous?.sentenceSlot ?? -1;
      if (!keepSentence) {
        sentences.free(sentenceSlot);
        sentenceSlot = -1;
      }
      entries[slot] = { vector: agent.vector, stems: new Set(agent.stems), concepts: agent.concepts, sentenceSlot };
    },

    setSentence(slot: number, vector: Float32Array): void {
      const entry = entries[slot];
      if (entry) entry.sentenceSlot = sentences.put(entry.sentenceSlot, vector);
    },

    remove(slot: number): void {
      sentences.free(entries[slot]?.sentenceSlot ?? -1);
      entries[slot] = undefined;
    },

    score(query: RelevanceQuery): Candidates {
      const cosines = query.sentence ? sentences.dotAll(query.sentence) : null;
      const lexical = new Map<number, number>();
      let bestLexical = 0;
      query.lexicalSlots.forEach((slot, i) => {
        lexical.set(slot, query.lexicalScores[i]!);
        bestLexical = Math.max(bestLexical, query.lexicalScores[i]!);
      });
      const stems = new Set(query.stems);

      const slots: number[] = [];
      if (query.only) slots.push(...query.only);
      else entries.forEach((entry, slot) => entry && slots.push(slot));
      const relevance = new Float64Array(slots.length);
      let best = 0;
      for (let i = 0; i < slots.length; i++) {
        const entry = entries[slots[i]!];
        if (!entry) continue;
        const hit = lexical.get(slots[i]!);
        const lexicalScore = hit && bestLexical > 0 ? (hit / bestLexical) * queryCoverage(stems, entry.stems) : 0;
        // The sentence encoder where both sides have its vector, else the word-vector embedder.
        const semantic =
          cosines && entry.sentenceSlot >= 0
            ? sentenceSimilarity(cosines[entry.sentenceSlot]!)
            : query.vector
              ? entry.vector
                ? dot(query.vector, entry.vector)
                : 0
              : null;
        const value = relevanceOf(semantic, lexicalScore, conceptSimilarity(query.concepts, entry.concepts));
        relevance[i] = value;
        if (value > best) best = value;
      }
      const floor = Math.max(MIN_RELEVANCE, RELATIVE_RELEVANCE_FLOOR * best);
      const passing: number[] = [];
      for (let i = 0; i < relevance.length; i++) if (relevance[i]! >= floor) passing.push(i);
      passing.sort((a, b) => relevance[b]! - relevance[a]!);
      const cut = passing.length > query.maxResults ? relevance[passing[query.maxResults - 1]!]! * SCORE_WEIGHTS.base : 0;
      const kept = passing.filter((i) => relevance[i]! >= cut);
      return { slots: Int32Array.from(kept, (i) => slots[i]!), relevance: Float64Array.from(kept, (i) => relevance[i]!) };
    },
  };
}

export type RelevanceScorer = ReturnType<typeof createRelevanceScorer>;
