/**
 * How a result's score is made (docs/discovery.md explains the choice of each number).
 *
 *   relevance = 0.5 * semantic                        sentence-encoder cosine rescaled from 0.28
 *                                                      (word-vector cosine where a vector is missing)
 *             + 0.1 * lexical / best lexical           full-text rank, relative to this query's best,
 *                     * queryCoverage                  times the share of the query's terms the agent has
 *             + 0.4 * concept similarity               shared catalogue capabilities
 *   score     = relevance * (0.7 + 0.2 * trust + 0.1 * availability)
 *
 * Relevance comes first: trust and availability move a result by at most 30%, enough to order
 * agents that fit a query about equally well; an agent less than 70% as relevant never overtakes.
 */
import type { Availability } from '../registry/index.ts';

export const RELEVANCE_WEIGHTS = { semantic: 0.5, lexical: 0.1, concepts: 0.4 } as const;
export const SCORE_WEIGHTS = { base: 0.7, trust: 0.2, availability: 0.1 } as const;
/** An agent never heard from (`unknown`) ranks below one heard from within a day, above one silent for longer. */
export const AVAILABILITY_VALUE: Record<Availability, number> = { available: 1, away: 0.5, unknown: 0.25, offline: 0 };

/**
 * An agent whose relevance is below this share of the best match's is not a result of the query.
 * Relative, because how high similarities run depends on the embedder.
 */
export const RELATIVE_RELEVANCE_FLOOR = 0.25;
/**
 * And below this, whatever the best: a sliver of similarity is no fit. The sentence encoder leaves
 * a little similarity between almost any two texts even after SENTENCE_UNRELATED, so without this
 * the only agent a filter lets through would be a result of any query ("email" among travel agents).
 * 0.02 let that one through in some runs (it scores just above): hence 0.05.
 */
export const MIN_RELEVANCE = 0.05;
/**
 * A result whose relevance is below this is a weak match, whatever else: shown, flagged `weakMatch`,
 * never dropped or moved (docs/discovery.md, "Weak matches"). The same rule decides that a task
 * described in words has no agent close enough.
 */
export const WEAK_MATCH_FLOOR = 0.08;
/**
 * What a close match needs besides the floor: its semantic similarity (0..1, rescaled) plus the share
 * of the query's words it accounts for (wordCoverage) at least this. Relevance alone cannot tell a
 * nonsense request from a real one: the sentence encoder gives "quantum knitting patterns for cats"
 * 0.39 of similarity to a log watcher (relevance 0.20) and "medieval jousting tournament tickets"
 * a ticket router through one word (0.28), while 20 of the 67 agents real requests want score below
 * 0.20. Nonsense is carried by one kind of evidence only: a similarity of 0.39 at most with none of
 * its words accounted for, or one word of four. Chosen on the relevance fixtures (docs/discovery.md).
 */
export const CLOSE_MATCH_SUPPORT = 0.5;

/**
 * Whether a result is a weak match: below the floor, or with too little support from meaning and
 * words together (CLOSE_MATCH_SUPPORT). `semantic` is the semantic part of its relevance, `coverage`
 * the share of the query's words it accounts for.
 */
export const isWeakMatch = (relevance: number, semantic: number, coverage: number): boolean =>
  relevance < WEAK_MATCH_FLOOR || semantic + coverage < CLOSE_MATCH_SUPPORT;

/** A query word close to this (word-vector cosine) to an agent's text counts as accounted for by it. */
export const WORD_SIMILARITY = 0.4;
/** An agent's catalogue capabilities from this concept weight lend it their words (name, description, aliases). */
export const VOCABULARY_CONCEPT_WEIGHT = 0.3;

/**
 * Share of the query's own content words an agent accounts for: the word (stemmed) is among the
 * agent's words (`knows`: its own text, the words of its catalogue capabilities, its completed
 * work), or its word vector is at least WORD_SIMILARITY close to the agent's text (`similarity`).
 * A query without words leaves nothing unaccounted for: 1.
 */
export function wordCoverage(words: readonly QueryWord[], knows: (stem: string) => boolean, similarity: (vector: Float32Array) => number): number {
  if (words.length === 0) return 1;
  let covered = 0;
  for (const word of words) if (knows(word.stem) || (word.vector !== null && similarity(word.vector) >= WORD_SIMILARITY)) covered++;
  return covered / words.length;
}

/** One of the query's own content words: stemmed, and its word vector (null: the embedder had none). */
export interface QueryWord {
  stem: string;
  vector: Float32Array | null;
}

/** Results ranked per query; deeper pages are empty. */
export const MAX_RESULTS = 500;

const clamp = (x: number) => Math.min(1, Math.max(0, x));

/**
 * The sentence encoder's cosine below which texts count as unrelated. Unlike the word vectors
 * (centred, so unrelated texts sit near 0), it gives almost any two texts some similarity: on the
 * fixture set half of the unrelated query/agent pairs score above 0.20 and one in ten above 0.37,
 * while nine in ten relevant pairs score above 0.31. Rescaling from 0.25 to 1 took most unrelated
 * agents out of the results at a small cost in MRR (0.648 unscaled, 0.637 scaled, in process). The
 * query map (query-map.ts) pulls every query a little towards the catalogue, so unrelated pairs score
 * a little higher: from 0.25 an "email" query let a travel agent through the floor (relevance
 * 0.06-0.08); from 0.28 it sits at 0.01-0.03 (MRR 0.679 -> 0.673).
 */
const SENTENCE_UNRELATED = 0.28;
export const sentenceSimilarity = (cosine: number): number => clamp((cosine - SENTENCE_UNRELATED) / (1 - SENTENCE_UNRELATED));

/**
 * Share of the lexical query's terms (the query's words and those of the catalogue capabilities it
 * names, stemmed) that an agent's text has, like the coordination factor of classic Lucene scoring:
 * the lexical signal is scaled by it. The full-text rank is relative to the query's best hit, so
 * without this a hit on one incidental word of a longer query ("keep" in "keep my brand's feeds
 * active", "following" in "are we following european privacy law" against "Follows parcels") took
 * the signal's full weight; an agent named by every term keeps it all. On the relevance set: MRR
 * 0.673 -> 0.698, held-out half 0.676 -> 0.706 (docs/discovery.md, "How well it finds").
 */
export function queryCoverage(queryStems: ReadonlySet<string>, agentStems: ReadonlySet<string>): number {
  if (queryStems.size === 0) return 0;
  let found = 0;
  for (const s of queryStems) if (agentStems.has(s)) found++;
  return found / queryStems.size;
}

/** `semantic` is null when the query could not be embedded: the other two parts then share its weight. */
export function relevanceOf(semantic: number | null, lexical: number, concepts: number): number {
  const rest = RELEVANCE_WEIGHTS.lexical * clamp(lexical) + RELEVANCE_WEIGHTS.concepts * clamp(concepts);
  if (semantic === null) return rest / (1 - RELEVANCE_WEIGHTS.semantic);
  return RELEVANCE_WEIGHTS.semantic * clamp(semantic) + rest;
}

/**
 * Completed work (docs/discovery.md, "Completed work"): the words people used when they gave the
 * agent work that went well. Its semantic similarity is the best of the agent's tasks' (a query
 * worded like one past request finds the agent even when the agent's own text shares nothing with
 * it); it stands beside the agent's own, the larger counting, times WORK_WEIGHTS.semantic. Its
 * lexical rank likewise, beside the agent's full-text rank.
 */
export const WORK_WEIGHTS = {
  semantic: 1,
  lexical: 1,
  /** Share of the smaller of the two semantic signals added to the larger (0: the larger alone; not tuned yet). */
  agreement: 0,
} as const;

/** What a relevance is made of (each 0..1 before its weight), and the relevance. */
export interface RelevanceParts {
  agentSemantic: number;
  workSemantic: number;
  agentLexical: number;
  workLexical: number;
  concepts: number;
}

/** `agentSemantic` null: the query could not be embedded (relevanceOf). */
export function relevanceParts(input: Omit<RelevanceParts, 'agentSemantic'> & { agentSemantic: number | null }): { value: number; parts: RelevanceParts } {
  const agent = input.agentSemantic === null ? null : clamp(input.agentSemantic);
  const work = WORK_WEIGHTS.semantic * clamp(input.workSemantic);
  const semantic = agent === null ? null : Math.max(agent, work) + WORK_WEIGHTS.agreement * Math.min(agent, work);
  const lexical = Math.max(clamp(input.agentLexical), WORK_WEIGHTS.lexical * clamp(input.workLexical));
  const concepts = clamp(input.concepts);
  return {
    value: relevanceOf(semantic === null ? null : clamp(semantic), lexical, concepts),
    parts: {
      agentSemantic: agent ?? 0,
      workSemantic: work,
      agentLexical: clamp(input.agentLexical),
      workLexical: WORK_WEIGHTS.lexical * clamp(input.workLexical),
      concepts,
    },
  };
}

export function scoreOf(relevance: number, trust: number, availability: Availability): number {
  return relevance * (SCORE_WEIGHTS.base + SCORE_WEIGHTS.trust * trust + SCORE_WEIGHTS.availability * AVAILABILITY_VALUE[availability]);
}
