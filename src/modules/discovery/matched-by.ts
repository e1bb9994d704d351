/**
 * `matchedBy` of a discovery result: what it matched on, so a person can judge it (docs/discovery.md).
 * Worked out for the page's results only, from the parts of their relevance (relevance-scorer.ts)
 * and the words the query shares with each part of the agent.
 */
import type { AgentRecord } from '../registry/index.ts';
import { contentWords, stem } from '../../lib/words.ts';
import type { RelevanceParts } from './ranking.ts';

export type MatchedBy = 'description' | 'capabilities' | 'examples' | 'completedWork';
export const matchedByValues = ['description', 'capabilities', 'examples', 'completedWork'] as const satisfies readonly MatchedBy[];

/** A semantic similarity (0..1 after rescaling) from which a part counts as matched. */
const SEMANTIC_MATCH = 0.15;
/** Concept similarity from which the agent's capabilities count as matched. */
const CONCEPT_MATCH = 0.25;

const sharesWords = (queryStems: ReadonlySet<string>, texts: string[]): boolean =>
  texts.some((text) => contentWords(text).some((word) => queryStems.has(stem(word))));

export function matchedByOf(
  agent: Pick<AgentRecord, 'name' | 'description' | 'capabilities' | 'tags' | 'examples'>,
  parts: RelevanceParts,
  queryStems: ReadonlySet<string>,
  capabilityFilter: boolean,
): MatchedBy[] {
  const work = Math.max(parts.workSemantic, parts.workLexical);
  const matched = new Set<MatchedBy>();
  if (parts.agentSemantic >= SEMANTIC_MATCH || sharesWords(queryStems, [agent.name, agent.description])) matched.add('description');
  if (capabilityFilter || parts.concepts >= CONCEPT_MATCH || sharesWords(queryStems, [...agent.capabilities, ...agent.tags])) matched.add('capabilities');
  if (sharesWords(queryStems, agent.examples)) matched.add('examples');
  // Completed work is named when it is what carried the match: above the agent's own text on a signal.
  if (work > 0 && (parts.workSemantic > Math.max(parts.agentSemantic, SEMANTIC_MATCH / 2) || parts.workLexical > parts.agentLexical))
    matched.add('completedWork');
  if (matched.size === 0) {
    // Something always carried a result: the largest part.
    const own = parts.agentSemantic + parts.agentLexical;
    matched.add(work > own && work > parts.concepts ? 'completedWork' : parts.concepts > own ? 'capabilities' : 'description');
  }
  return matchedByValues.filter((value) => matched.has(value));
}
