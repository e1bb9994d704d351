/**
 * The hot part of a search: every agent's relevance to a query (ranking.ts), the floor, and the cut
 * below which an agent cannot reach the results. It holds what that needs of each agent (its word
 * vector, stemmed words, concepts, and its sentence vector in one float32 block), by slot, and runs
 * inside the scoring worker (scoring-worker.ts) so that the request thread only asks and answers.
 * Pure computation: no I/O, no clock.
 */
import { createCandidateIndex } from './candidate-index.ts';
import { createVectorMatrix } from './vector-matrix.ts';
import { capabilityStems, conceptSimilarity, dot, type Concepts } from './concepts.ts';
import {
  MIN_RELEVANCE,
  queryCoverage,
  RELATIVE_RELEVANCE_FLOOR,
  relevanceParts,
  SCORE_WEIGHTS,
  sentenceSimilarity,
  VOCABULARY_CONCEPT_WEIGHT,
  wordCoverage,
  type QueryWord,
  type RelevanceParts,
} from './ranking.ts';

/** What relevance needs of one agent. */
export interface ScoredAgent {
  /** Word-vector embedding; null while the embedder could not embed it. */
  vector: Float32Array | null;
  /** The content words of its text, stemmed. */
  stems: string[];
  concepts: Concepts;
}

/**
 * An agent's completed work (docs/discovery.md, "Completed work"): per task, its sentence vectors
 * (of the title and description, and of the search that led to it) and word vectors, and the
 * stems of all its words.
 */
export interface ScoredWork {
  items: { sentences: Float32Array[]; vectors: Float32Array[] }[];
  stems: string[];
}

export interface RelevanceQuery {
  /** The query's sentence vector (after the query map); null: the word vectors decide the semantic part. */
  sentence: Float32Array | null;
  /** The query's word vector; null with `sentence` null: no semantic part. */
  vector: Float32Array | null;
  concepts: Concepts;
  stems: string[];
  /** The query's own content words, for how many of them a candidate accounts for (`Candidates.coverage`). */
  words: QueryWord[];
  /** Full-text hits: slot and rank, in step. */
  lexicalSlots: Int32Array;
  lexicalScores: Float64Array;
  /** Full-text hits on completed work: slot and the agent's best task's rank, in step. */
  workLexicalSlots?: Int32Array;
  workLexicalScores?: Float64Array;
  /** Only these slots may be results (a filter); null: every agent. */
  only: Int32Array | null;
  /** How many results are ranked. */
  maxResults: number;
  /**
   * Scores only candidates (a large registry): the `nearest` agents to the query's sentence vector in
   * the candidate index, with the lexical hits, the agents strongest in the catalogue capabilities the
   * query maps to, agents with completed work and agents still without a sentence vector. 0 or
   * absent: every agent is scored.
   */
  nearest?: number;
}

/**
 * The agents that may make the results, best relevance first: above the floor, and not below
 * SCORE_WEIGHTS.base x the maxResults-th best relevance (trust and availability scale relevance by
 * base..1, so such an agent cannot make the cut whatever its trust).
 */
export interface Candidates {
  slots: Int32Array<ArrayBuffer>;
  relevance: Float64Array<ArrayBuffer>;
  /** What each candidate's relevance is made of, PART_COUNT values per candidate in PARTS order (why it matched). */
  parts: Float64Array<ArrayBuffer>;
  /** Share of the query's words each candidate accounts for (ranking.ts wordCoverage): with relevance, whether it is a weak match. */
  coverage: Float64Array<ArrayBuffer>;
}

/** The parts of relevance handed back per candidate, in this order. */
export const PARTS = ['agentSemantic', 'workSemantic', 'agentLexical', 'workLexical', 'concepts'] as const satisfies readonly (keyof RelevanceParts)[];
export const PART_COUNT = PARTS.length;

interface WorkEntry {
  /** Per task: its rows in the work sentence matrix, and its word vectors. */
  items: { rows: number[]; vectors: Float32Array[] }[];
  stems: Set<string>;
}

interface Entry {
  vector: Float32Array | null;
  stems: Set<string>;
  concepts: Concepts;
  /** In the sentence matrix; -1 until the agent has a sentence vector. */
  sentenceSlot: number;
}

/** Agents taken per catalogue capability the query maps to, by their weight in it. */
const CONCEPT_DEPTH = 200;
/** Posting entries added since a capability's list was last sorted, before it is sorted again. */
const UNSORTED_TAIL = 1_000;

/**
 * The agents of one catalogue capability, strongest first, for the candidates of a query. Entries
 * are added as agents are put and never removed: one that no longer matches its agent (replaced or
 * removed) is skipped when read, and dropped at the next sort.
 */
interface Posting {
  concept: number;
  slots: number[];
  weights: number[];
  /** Entries below this are sorted by weight, strongest first. */
  sorted: number;
}

export function createRelevanceScorer() {
  const entries: (Entry | undefined)[] = [];
  const sentences = createVectorMatrix();
  const candidateIndex = createCandidateIndex();
  // Vectors waiting to join the candidate index: added in one batch before the next search.
  const pendingNearest = new Map<number, Float32Array>();
  // Agents ranked by their word vector (no sentence vector yet) and agents with completed work: always candidates.
  const unsentenced = new Set<number>();
  const postings = new Map<number, Posting>();
  const current = (slot: number, concept: number, weight: number) => entries[slot]?.concepts.some((c) => c.index === concept && c.weight === weight) ?? false;

  function sortPosting(posting: Posting): void {
    const order = posting.slots.map((_, i) => i).filter((i) => current(posting.slots[i]!, posting.concept, posting.weights[i]!));
    order.sort((a, b) => posting.weights[b]! - posting.weights[a]!);
    posting.slots = order.map((i) => posting.slots[i]!);
    posting.weights = order.map((i) => posting.weights[i]!);
    posting.sorted = posting.slots.length;
  }

  /** The strongest agents of a capability: the top of its sorted part and all of its recent tail. */
  function strongestIn(concept: number, into: Set<number>): void {
    const posting = postings.get(concept);
    if (!posting) return;
    if (posting.slots.length - posting.sorted > UNSORTED_TAIL) sortPosting(posting);
    let taken = 0;
    for (let i = 0; i < posting.sorted && taken < CONCEPT_DEPTH; i++)
      if (current(posting.slots[i]!, concept, posting.weights[i]!)) {
        into.add(posting.slots[i]!);
        taken++;
      }
    for (let i = posting.sorted; i < posting.slots.length; i++) if (current(posting.slots[i]!, concept, posting.weights[i]!)) into.add(posting.slots[i]!);
  }

  function flushNearest(): void {
    if (pendingNearest.size === 0) return;
    candidateIndex.putMany([...pendingNearest.keys()], [...pendingNearest.values()]);
    pendingNearest.clear();
  }

  /** The slots a query with `nearest` set scores (RelevanceQuery.nearest). */
  function candidatesOf(query: RelevanceQuery, lexical: Map<number, number>, workLexical: Map<number, number>): number[] {
    const found = new Set<number>(unsentenced);
    if (query.sentence) {
      flushNearest();
      for (const slot of candidateIndex.nearest(query.sentence, query.nearest!)) found.add(slot);
    }
    for (const slot of lexical.keys()) found.add(slot);
    for (const slot of workLexical.keys()) found.add(slot);
    for (const slot of withWork) found.add(slot);
    for (const concept of query.concepts) strongestIn(concept.index, found);
    return [...found].filter((slot) => entries[slot] !== undefined);
  }
  // Completed work, by agent slot; kept apart from the agent's entry, which its own edits replace.
  const work: (WorkEntry | undefined)[] = [];
  const workSentences = createVectorMatrix();
  const withWork = new Set<number>();
  const freeWork = (slot: number) => {
    for (const item of work[slot]?.items ?? []) for (const row of item.rows) workSentences.free(row);
    work[slot] = undefined;
    withWork.delete(slot);
  };

  /**
   * Share of the query's words the agent in `slot` accounts for: its own words, those of the catalogue
   * capabilities it is strongest in, its completed work's; or close in meaning to its text or that work.
   */
  function coverageOf(words: QueryWord[], slot: number): number {
    const entry = entries[slot]!;
    const agentWork = work[slot];
    const vocabulary = entry.concepts.filter((c) => c.weight >= VOCABULARY_CONCEPT_WEIGHT).map((c) => capabilityStems[c.index]!);
    const knows = (stem: string) => entry.stems.has(stem) || (agentWork?.stems.has(stem) ?? false) || vocabulary.some((stems) => stems.has(stem));
    const similarity = (vector: Float32Array) => {
      let best = entry.vector ? dot(vector, entry.vector) : 0;
      for (const item of agentWork?.items ?? []) for (const taskVector of item.vectors) best = Math.max(best, dot(vector, taskVector));
      return best;
    };
    return wordCoverage(words, knows, similarity);
  }

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
      if (sentenceSlot < 0) {
        unsentenced.add(slot);
        pendingNearest.delete(slot);
        candidateIndex.remove(slot);
      }
      for (const { index, weight } of agent.concepts) {
        let posting = postings.get(index);
        if (!posting) {
          posting = { concept: index, slots: [], weights: [], sorted: 0 };
          postings.set(index, posting);
        }
        posting.slots.push(slot);
        posting.weights.push(weight);
      }
    },

    setSentence(slot: number, vector: Float32Array): void {
      const entry = entries[slot];
      if (!entry) return;
      entry.sentenceSlot = sentences.put(entry.sentenceSlot, vector);
      unsentenced.delete(slot);
      pendingNearest.set(slot, vector);
    },

    /** Replaces an agent's completed work (none: an empty list). */
    setWork(slot: number, scored: ScoredWork): void {
      freeWork(slot);
      if (scored.items.length === 0) return;
      withWork.add(slot);
      work[slot] = {
        items: scored.items.map((item) => ({ rows: item.sentences.map((vector) => workSentences.put(-1, vector)), vectors: item.vectors })),
        stems: new Set(scored.stems),
      };
    },

    remove(slot: number): void {
      sentences.free(entries[slot]?.sentenceSlot ?? -1);
      entries[slot] = undefined;
      unsentenced.delete(slot);
      pendingNearest.delete(slot);
      candidateIndex.remove(slot);
      freeWork(slot);
    },

    score(query: RelevanceQuery): Candidates {
      const workCosines = query.sentence && workSentences.size > 0 ? workSentences.dotAll(query.sentence) : null;
      const hits = (slots: Int32Array, scores: Float64Array) => {
        const found = new Map<number, number>();
        let best = 0;
        slots.forEach((slot, i) => {
          found.set(slot, scores[i]!);
          best = Math.max(best, scores[i]!);
        });
        return { found, best };
      };
      const { found: lexical, best: bestLexical } = hits(query.lexicalSlots, query.lexicalScores);
      const { found: workLexical, best: bestWorkLexical } = hits(query.workLexicalSlots ?? new Int32Array(0), query.workLexicalScores ?? new Float64Array(0));
      const stems = new Set(query.stems);

      /** The agent's best task: the sentence encoder where both have its vectors, else word vectors. */
      const workSimilarity = (entry: WorkEntry): number => {
        let best = 0;
        for (const item of entry.items) {
          if (workCosines && item.rows.length > 0) for (const row of item.rows) best = Math.max(best, sentenceSimilarity(workCosines[row]!));
          else if (query.vector) for (const vector of item.vectors) best = Math.max(best, dot(query.vector, vector));
        }
        return best;
      };

      const slots: number[] = [];
      if (query.only) slots.push(...query.only);
      else if (query.nearest) slots.push(...candidatesOf(query, lexical, workLexical));
      else entries.forEach((entry, slot) => entry && slots.push(slot));
      // Cosines of the query with the scored agents, in `slots` order: one kernel call over every row
      // when most are scored, row by row for a set of candidates.
      const rows = Int32Array.from(slots, (slot) => entries[slot]?.sentenceSlot ?? -1);
      let cosines: Float32Array | null = null;
      if (query.sentence && 4 * slots.length >= sentences.size) {
        const all = sentences.dotAll(query.sentence);
        cosines = Float32Array.from(rows, (row) => (row >= 0 ? (all[row] ?? 0) : 0));
      } else if (query.sentence) cosines = sentences.dotSome(query.sentence, rows);
      const relevance = new Float64Array(slots.length);
      const parts = new Float64Array(slots.length * PART_COUNT);
      let best = 0;
      for (let i = 0; i < slots.length; i++) {
        const entry = entries[slots[i]!];
        if (!entry) continue;
        const hit = lexical.get(slots[i]!);
        const lexicalScore = hit && bestLexical > 0 ? (hit / bestLexical) * queryCoverage(stems, entry.stems) : 0;
        const agentWork = work[slots[i]!];
        const workHit = agentWork ? workLexical.get(slots[i]!) : undefined;
        const workLexicalScore = agentWork && workHit && bestWorkLexical > 0 ? (workHit / bestWorkLexical) * queryCoverage(stems, agentWork.stems) : 0;
        // The sentence encoder where both sides have its vector, else the word-vector embedder.
        const semantic =
          cosines && entry.sentenceSlot >= 0 ? sentenceSimilarity(cosines[i]!) : query.vector ? (entry.vector ? dot(query.vector, entry.vector) : 0) : null;
        const { value, parts: why } = relevanceParts({
          agentSemantic: semantic,
          workSemantic: agentWork && semantic !== null ? workSimilarity(agentWork) : 0,
          agentLexical: lexicalScore,
          workLexical: workLexicalScore,
          concepts: conceptSimilarity(query.concepts, entry.concepts),
        });
        relevance[i] = value;
        PARTS.forEach((part, p) => (parts[i * PART_COUNT + p] = why[part]));
        if (value > best) best = value;
      }
      const floor = Math.max(MIN_RELEVANCE, RELATIVE_RELEVANCE_FLOOR * best);
      const passing: number[] = [];
      for (let i = 0; i < relevance.length; i++) if (relevance[i]! >= floor) passing.push(i);
      passing.sort((a, b) => relevance[b]! - relevance[a]!);
      const cut = passing.length > query.maxResults ? relevance[passing[query.maxResults - 1]!]! * SCORE_WEIGHTS.base : 0;
      const kept = passing.filter((i) => relevance[i]! >= cut);
      const keptParts = new Float64Array(kept.length * PART_COUNT);
      kept.forEach((i, k) => keptParts.set(parts.subarray(i * PART_COUNT, (i + 1) * PART_COUNT), k * PART_COUNT));
      return {
        slots: Int32Array.from(kept, (i) => slots[i]!),
        relevance: Float64Array.from(kept, (i) => relevance[i]!),
        parts: keptParts,
        coverage: Float64Array.from(kept, (i) => coverageOf(query.words, slots[i]!)),
      };
    },
  };
}

export type RelevanceScorer = ReturnType<typeof createRelevanceScorer>;
