/**
 * The hot part of a search: every agent's relevance to a query (ranking.ts), the floor, and the cut
 * below which an agent cannot reach the results. It holds what that needs of each agent (its word
 * and sentence vectors as int8, stemmed words, concepts), packed by slot, and runs
 * inside the scoring worker (scoring-worker.ts) so that the request thread only asks and answers.
 * No clock, and no I/O but the files it is told to save itself to or restore itself from.
 */
import { join } from 'node:path';
import { createCandidateIndex } from './candidate-index.ts';
import { createVectorMatrix } from './vector-matrix.ts';
import { createQuantizedRows } from './quantized-rows.ts';
import { createSlotLists } from './slot-lists.ts';
import { packJson, readPackedFile, unpackJson, writePackedFile } from './packed-file.ts';
import { capabilityStems, conceptSimilarity, CONCEPTS_KEPT, dot, type Concepts } from './concepts.ts';
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

/** Agents taken per catalogue capability the query maps to, by their weight in it. */
const CONCEPT_DEPTH = 200;
/** Posting entries added since a capability's list was last sorted, before it is sorted again. */
const UNSORTED_TAIL = 1_000;
/** Sentence vectors waiting to join the candidate index, from which they are added without waiting for a search. */
const NEAREST_BATCH = 4_096;
const GROWTH = 1.25;

/**
 * The agents of one catalogue capability, strongest first, for the candidates of a query. Entries
 * are added as agents are put and never removed: one that no longer matches its agent (replaced or
 * removed) is skipped when read, and dropped at the next sort.
 */
interface Posting {
  concept: number;
  slots: number[];
  /** As float32, the precision agents' weights are kept in. */
  weights: number[];
  /** Entries below this are sorted by weight, strongest first. */
  sorted: number;
}

/** Grows a typed array to hold `slot`, new places filled with `fill`. */
function grown<T extends Uint8Array | Int16Array | Float32Array>(array: T, slot: number, perSlot: number, fill: number, make: (length: number) => T): T {
  if ((slot + 1) * perSlot <= array.length) return array;
  const next = make(Math.max(256, slot + 1, Math.ceil((array.length / perSlot) * GROWTH)) * perSlot);
  next.fill(fill);
  next.set(array);
  return next;
}

/**
 * The scorer's files of one save in a node's index directory: its agents' data and the candidate
 * index. Named by the save, so that one cut short leaves the last complete save as it was.
 */
export const SCORER_FILES_PREFIX = 'discovery-scorer-';
const scorerFile = (generation: string): string => `${SCORER_FILES_PREFIX}${generation}.bin`;
const nearestFile = (generation: string): string => `${SCORER_FILES_PREFIX}${generation}.usearch`;

export function createRelevanceScorer() {
  // What each agent slot holds, packed (no object per agent: at a million agents the per-object
  // overhead alone would be gigabytes): whether it holds an agent and its sentence vector, its word
  // and sentence vectors as int8, its stemmed words as ids, and its catalogue concepts.
  let present: Uint8Array = new Uint8Array(0);
  let sentenced: Uint8Array = new Uint8Array(0);
  let conceptIndexes: Int16Array = new Int16Array(0);
  let conceptWeights: Float32Array = new Float32Array(0);
  let slotsUsed = 0;
  const wordVectors = createQuantizedRows();
  const sentenceVectors = createQuantizedRows();
  const stemsOf = createSlotLists();
  const stemIds = new Map<string, number>();
  const candidateIndex = createCandidateIndex();
  // Slots whose sentence vector is still to join the candidate index: added in one batch before the next search.
  const pendingNearest = new Set<number>();
  // Agents ranked by their word vector (no sentence vector yet) and agents with completed work: always candidates.
  const unsentenced = new Set<number>();
  const postings = new Map<number, Posting>();

  function ensure(slot: number): void {
    present = grown(present, slot, 1, 0, (n) => new Uint8Array(n));
    sentenced = grown(sentenced, slot, 1, 0, (n) => new Uint8Array(n));
    conceptIndexes = grown(conceptIndexes, slot, CONCEPTS_KEPT, -1, (n) => new Int16Array(n));
    conceptWeights = grown(conceptWeights, slot, CONCEPTS_KEPT, 0, (n) => new Float32Array(n));
    slotsUsed = Math.max(slotsUsed, slot + 1);
  }

  const stemId = (stem: string): number => {
    let id = stemIds.get(stem);
    if (id === undefined) stemIds.set(stem, (id = stemIds.size));
    return id;
  };
  const knowsStem = (slot: number, stem: string): boolean => {
    const id = stemIds.get(stem);
    return id !== undefined && stemsOf.has(slot, id);
  };

  function conceptsAt(slot: number): Concepts {
    const concepts: Concepts = [];
    for (let k = 0; k < CONCEPTS_KEPT; k++) {
      const index = conceptIndexes[slot * CONCEPTS_KEPT + k]!;
      if (index >= 0) concepts.push({ index, weight: conceptWeights[slot * CONCEPTS_KEPT + k]! });
    }
    return concepts;
  }

  function current(slot: number, concept: number, weight: number): boolean {
    if (!present[slot]) return false;
    for (let k = 0; k < CONCEPTS_KEPT; k++)
      if (conceptIndexes[slot * CONCEPTS_KEPT + k] === concept && conceptWeights[slot * CONCEPTS_KEPT + k] === weight) return true;
    return false;
  }

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
    const slots = [...pendingNearest];
    candidateIndex.putMany(
      slots,
      slots.map((slot) => sentenceVectors.vectorAt(slot)),
    );
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
    return [...found].filter((slot) => present[slot] === 1);
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
    const agentWork = work[slot];
    const vocabulary = conceptsAt(slot)
      .filter((c) => c.weight >= VOCABULARY_CONCEPT_WEIGHT)
      .map((c) => capabilityStems[c.index]!);
    const knows = (stem: string) => knowsStem(slot, stem) || (agentWork?.stems.has(stem) ?? false) || vocabulary.some((stems) => stems.has(stem));
    const similarity = (vector: Float32Array) => {
      let best = wordVectors.dot(slot, wordVectors.prepare(vector));
      for (const item of agentWork?.items ?? []) for (const taskVector of item.vectors) best = Math.max(best, dot(vector, taskVector));
      return best;
    };
    return wordCoverage(words, knows, similarity);
  }

  function addPostings(slot: number, concepts: Concepts): void {
    for (const { index, weight } of concepts.slice(0, CONCEPTS_KEPT)) {
      let posting = postings.get(index);
      if (!posting) {
        posting = { concept: index, slots: [], weights: [], sorted: 0 };
        postings.set(index, posting);
      }
      posting.slots.push(slot);
      posting.weights.push(Math.fround(weight));
    }
  }

  function forgetSentence(slot: number): void {
    sentenced[slot] = 0;
    sentenceVectors.clear(slot);
    pendingNearest.delete(slot);
    candidateIndex.remove(slot);
  }

  return {
    /** Sets an agent's data; `keepSentence` keeps its sentence vector (its text did not change). */
    put(slot: number, agent: ScoredAgent, keepSentence: boolean): void {
      ensure(slot);
      if (!keepSentence) forgetSentence(slot);
      present[slot] = 1;
      if (agent.vector) wordVectors.put(slot, agent.vector);
      else wordVectors.clear(slot);
      stemsOf.set(slot, [...new Set(agent.stems.map(stemId))]);
      for (let k = 0; k < CONCEPTS_KEPT; k++) {
        const concept = agent.concepts[k];
        conceptIndexes[slot * CONCEPTS_KEPT + k] = concept ? concept.index : -1;
        conceptWeights[slot * CONCEPTS_KEPT + k] = concept ? concept.weight : 0;
      }
      if (!sentenced[slot]) unsentenced.add(slot);
      addPostings(slot, agent.concepts);
    },

    /**
     * Writes the agents' data (not their completed work, which a node reads from the database at
     * every start) and the candidate index to files of `generation` under `dir`.
     */
    save(dir: string, generation: string): void {
      flushNearest();
      const held = candidateIndex.save(join(dir, nearestFile(generation)));
      const words = wordVectors.snapshot();
      const sentenceRows = sentenceVectors.snapshot();
      const stems = stemsOf.snapshot();
      writePackedFile(
        join(dir, scorerFile(generation)),
        { generation, slotsUsed, wordDimensions: words.dimensions, sentenceDimensions: sentenceRows.dimensions },
        {
          present,
          sentenced,
          conceptIndexes,
          conceptWeights,
          held,
          wordRows: words.rows,
          wordScales: words.scales,
          sentenceRows: sentenceRows.rows,
          sentenceScales: sentenceRows.scales,
          stemData: stems.data,
          stemStarts: stems.starts,
          stemLengths: stems.lengths,
          stems: packJson([...stemIds.keys()]),
        },
      );
    },

    /** Takes what `save` wrote under `dir` with `generation` (into an empty scorer); throws when the files do not fit. */
    restore(dir: string, generation: string): void {
      const file = scorerFile(generation);
      const { meta, arrays } = readPackedFile(join(dir, file));
      const saved = meta as { generation: string; slotsUsed: number; wordDimensions: number; sentenceDimensions: number };
      if (saved.generation !== generation) throw new Error(`${file} is of another save`);
      const typed = <T extends Uint8Array | Int8Array | Int16Array | Int32Array | Uint32Array | Float32Array>(
        name: string,
        kind: new (length: number) => T,
        length: number,
      ): T => {
        const array = arrays[name];
        if (!(array instanceof kind) || array.length < length) throw new Error(`${file}: ${name} does not fit`);
        return array;
      };
      const used = saved.slotsUsed;
      const restored = {
        present: typed('present', Uint8Array, used),
        sentenced: typed('sentenced', Uint8Array, used),
        conceptIndexes: typed('conceptIndexes', Int16Array, used * CONCEPTS_KEPT),
        conceptWeights: typed('conceptWeights', Float32Array, used * CONCEPTS_KEPT),
        held: typed('held', Uint8Array, 0),
      };
      candidateIndex.load(join(dir, nearestFile(generation)), saved.sentenceDimensions, restored.held);
      wordVectors.restore({ dimensions: saved.wordDimensions, rows: typed('wordRows', Int8Array, 0), scales: typed('wordScales', Float32Array, 0) });
      sentenceVectors.restore({
        dimensions: saved.sentenceDimensions,
        rows: typed('sentenceRows', Int8Array, 0),
        scales: typed('sentenceScales', Float32Array, 0),
      });
      stemsOf.restore({ data: typed('stemData', Int32Array, 0), starts: typed('stemStarts', Uint32Array, 0), lengths: typed('stemLengths', Uint32Array, 0) });
      for (const stem of unpackJson(typed('stems', Uint8Array, 0)) as string[]) stemId(stem);
      ({ present, sentenced, conceptIndexes, conceptWeights } = restored);
      slotsUsed = used;
      for (let slot = 0; slot < used; slot++) {
        if (!present[slot]) continue;
        if (!sentenced[slot]) unsentenced.add(slot);
        addPostings(slot, conceptsAt(slot));
      }
      // Sorted now, so that the first searches do not each sort a capability's million entries.
      for (const posting of postings.values()) sortPosting(posting);
    },

    setSentence(slot: number, vector: Float32Array): void {
      if (!present[slot]) return;
      sentenceVectors.put(slot, vector);
      sentenced[slot] = 1;
      unsentenced.delete(slot);
      pendingNearest.add(slot);
      if (pendingNearest.size >= NEAREST_BATCH) flushNearest();
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
      if (slot >= slotsUsed) return;
      forgetSentence(slot);
      present[slot] = 0;
      wordVectors.clear(slot);
      stemsOf.clear(slot);
      conceptIndexes.fill(-1, slot * CONCEPTS_KEPT, (slot + 1) * CONCEPTS_KEPT);
      unsentenced.delete(slot);
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
      const queryStemIds = [...stems].map((stem) => stemIds.get(stem) ?? -1);
      // ranking.ts queryCoverage, on word ids.
      const lexicalCoverage = (slot: number): number => {
        if (stems.size === 0) return 0;
        let found = 0;
        for (const id of queryStemIds) if (id >= 0 && stemsOf.has(slot, id)) found++;
        return found / stems.size;
      };

      /** The agent's best task: the sentence encoder where both have its vectors, else word vectors. */
      const workSimilarity = (entry: WorkEntry): number => {
        let best = 0;
        for (const item of entry.items) {
          if (workCosines && item.rows.length > 0) for (const row of item.rows) best = Math.max(best, sentenceSimilarity(workCosines[row]!));
          else if (query.vector) for (const vector of item.vectors) best = Math.max(best, dot(query.vector, vector));
        }
        return best;
      };

      let slots: number[] = [];
      if (query.only) slots = Array.from(query.only);
      else if (query.nearest) slots = candidatesOf(query, lexical, workLexical);
      else for (let slot = 0; slot < slotsUsed; slot++) if (present[slot]) slots.push(slot);
      const sentence = query.sentence ? sentenceVectors.prepare(query.sentence) : null;
      const vector = query.vector ? wordVectors.prepare(query.vector) : null;
      const relevance = new Float64Array(slots.length);
      const parts = new Float64Array(slots.length * PART_COUNT);
      let best = 0;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!;
        if (!present[slot]) continue;
        const hit = lexical.get(slot);
        const lexicalScore = hit && bestLexical > 0 ? (hit / bestLexical) * lexicalCoverage(slot) : 0;
        const agentWork = work[slot];
        const workHit = agentWork ? workLexical.get(slot) : undefined;
        const workLexicalScore = agentWork && workHit && bestWorkLexical > 0 ? (workHit / bestWorkLexical) * queryCoverage(stems, agentWork.stems) : 0;
        // The sentence encoder where both sides have its vector, else the word-vector embedder.
        const semantic = sentence && sentenced[slot] ? sentenceSimilarity(sentenceVectors.dot(slot, sentence)) : vector ? wordVectors.dot(slot, vector) : null;
        const { value, parts: why } = relevanceParts({
          agentSemantic: semantic,
          workSemantic: agentWork && semantic !== null ? workSimilarity(agentWork) : 0,
          agentLexical: lexicalScore,
          workLexical: workLexicalScore,
          concepts: conceptSimilarity(query.concepts, conceptsAt(slot)),
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
