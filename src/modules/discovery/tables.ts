/**
 * The tables the discovery module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
import type { Generated } from 'kysely';

/** Sentence-encoder vectors of agents, by the hash of model and text embedded (migration 0009). */
export interface DiscoverySentenceVectorsTable {
  agent_id: string;
  text_hash: string;
  /** float32, little endian */
  vector: Buffer;
}

/**
 * Completed, well-rated tasks that count as evidence of what an agent is for (migration 0034). The
 * words are never returned by any route; rows go with their task, agent or requester (foreign keys).
 */
export interface DiscoveryWorkEvidenceTable {
  id: Generated<number>;
  task_id: string;
  agent_id: string;
  requester_id: string;
  /** The task's title and description. */
  text: string;
  /** The search that led the requester to the task's form, if the client passed it. */
  search_query: string | null;
  /** Whom the agent was visible to at the rating: `public`, `private` or `org:<org id>`; used only while it still is (or for `public`, always). */
  audience: string;
  /** The sentence encoder model the vectors were made with; null: not made yet (the index makes them). */
  vector_model: string | null;
  /** float32, little endian, of `text` and of `search_query`. */
  vector: Buffer | null;
  query_vector: Buffer | null;
  rated_at: string;
}

/** Agents whose evidence changed, appended by triggers on `discovery_work_evidence` (migration 0034). */
export interface DiscoveryWorkChangesTable {
  seq: Generated<number>;
  agent_id: string;
}

/** Accounts whose completed tasks do not improve search (the setting is on for everyone else). */
export interface DiscoverySearchOptOutsTable {
  account_id: string;
  at: string;
}

export interface DiscoveryTables {
  discovery_sentence_vectors: DiscoverySentenceVectorsTable;
  discovery_work_evidence: DiscoveryWorkEvidenceTable;
  discovery_work_changes: DiscoveryWorkChangesTable;
  discovery_search_opt_outs: DiscoverySearchOptOutsTable;
}
