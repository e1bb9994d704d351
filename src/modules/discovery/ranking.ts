/**
 * How a result's score is made (docs/discovery.md explains the choice of each number).
 *
 *   relevance = 0.5 * max(0, cosine(query, agent))   semantic: embedder vectors
 *             + 0.1 * lexical / best lexical           full-text rank, relative to this query's best
 *             + 0.4 * concept similarity               shared catalogue capabilities
 *   score     = relevance * (0.7 + 0.2 * trust + 0.1 * availability)
 *
 * Relevance comes first: trust and availability move a result by at most 30%, enough to order
 * agents that fit a query about equally well; an agent less than 70% as relevant never overtakes.
 */
import type { Availability } from '../registry/index.ts';

export const RELEVANCE_WEIGHTS = { semantic: 0.5, lexical: 0.1, concepts: 0.4 } as const;
export const SCORE_WEIGHTS = { base: 0.7, trust: 0.2, availability: 0.1 } as const;
export const AVAILABILITY_VALUE: Record<Availability, number> = { available: 1, away: 0.5, offline: 0 };

/**
 * An agent whose relevance is below this share of the best match's is not a result of the query.
 * Relative, because how high similarities run depends on the embedder.
 */
export const RELATIVE_RELEVANCE_FLOOR = 0.25;
/** Results ranked per query; deeper pages are empty. */
export const MAX_RESULTS = 500;

const clamp = (x: number) => Math.min(1, Math.max(0, x));

/** `semantic` is null when the query could not be embedded: the other two parts then share its weight. */
export function relevanceOf(semantic: number | null, lexical: number, concepts: number): number {
  const rest = RELEVANCE_WEIGHTS.lexical * clamp(lexical) + RELEVANCE_WEIGHTS.concepts * clamp(concepts);
  if (semantic === null) return rest / (1 - RELEVANCE_WEIGHTS.semantic);
  return RELEVANCE_WEIGHTS.semantic * clamp(semantic) + rest;
}

export function scoreOf(relevance: number, trust: number, availability: Availability): number {
  return relevance * (SCORE_WEIGHTS.base + SCORE_WEIGHTS.trust * trust + SCORE_WEIGHTS.availability * AVAILABILITY_VALUE[availability]);
}
