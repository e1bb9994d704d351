/**
 * The tables the discovery module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
/** Sentence-encoder vectors of agents, by the hash of model and text embedded (migration 0009). */
export interface DiscoverySentenceVectorsTable {
  agent_id: string;
  text_hash: string;
  /** float32, little endian */
  vector: Buffer;
}

export interface DiscoveryTables {
  discovery_sentence_vectors: DiscoverySentenceVectorsTable;
}
