/**
 * The tables the registry module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them; what other modules read of
 * them in their own queries is typed by the read models at the end.
 */
import type { Generated } from 'kysely';
import type { ReadOnlyTable } from '../../db/tables.ts';

export interface AgentsTable {
  id: string;
  name: string;
  slug: string;
  description: string;
  long_description: string | null;
  endpoint: string | null;
  /** JSON arrays of strings. */
  protocols: string;
  categories: string;
  capabilities: string;
  tags: string;
  docs_url: string | null;
  manifest_url: string | null;
  auth_type: string;
  /** The credential for the agent's A2A endpoint, sealed (AES-256-GCM) with the service's secrets key. */
  auth_credential: string | null;
  version: string;
  visibility: 'public' | 'org' | 'private';
  org_id: string | null;
  input_schema: string | null;
  twitter_url: string | null;
  status: 'provisional' | 'active';
  owner_id: string | null;
  registration_pubkey: string | null;
  claimed_at: string | null;
  /** When holding `registration_pubkey` was first proven; until then the agent carries none of its trust (migration 0008). */
  key_verified_at: string | null;
  delivery_mode: 'webhook' | 'poll' | 'a2a';
  /** Kept as issued: signing a webhook needs the secret itself, as with any HMAC scheme. */
  webhook_secret: string | null;
  last_seen_at: string | null;
  reported_status: string | null;
  reported_load: number | null;
  created_at: string;
  updated_at: string;
  /** 0 = free. Integer cents of `currency` (docs/payments.md). */
  price_per_task_cents: number;
  currency: string;
  /**
   * The name's lookalike keys (src/lib/confusables.ts), each unique; NULL only for an agent that
   * already looked like an older one when the keys were introduced (migration 0015).
   */
  name_skeleton: string | null;
  name_skeleton_lower: string | null;
  /** When a manifest last filled fields in, and which (a JSON array of field names); migration 0016. */
  manifest_imported_at: string | null;
  manifest_fields: string | null;
}

/** Claim and key challenges: an agent's recent nonces, numbered by `seq` in the order issued (docs/registry.md). */
export interface ClaimChallengesTable {
  agent_id: string;
  seq: number;
  nonce: string;
  expires_at: string;
  created_at: string;
  /** Set when newer challenges pushed this one out of the valid few. */
  replaced_at: string | null;
}

/**
 * Written by the triggers on `agents` (migration 0020): the id of every agent inserted, deleted, or
 * updated in a column search reads (heartbeats are not), in commit order on SQLite; PostgreSQL takes
 * `seq` before commit, so a lower one can appear after a higher one was read.
 */
export interface AgentChangesTable {
  seq: Generated<number>;
  agent_id: string;
}

/**
 * An agent's full-text document, kept by the triggers on `agents` (migration 0020). Its other columns
 * differ by engine, so it is queried in SQL written per engine: on SQLite `doc_id`, `name`,
 * `description` and `terms`, indexed by the FTS5 table `agent_search_fts` (rowid = doc_id); on
 * PostgreSQL `search`, a weighted tsvector with a GIN index.
 */
export interface AgentSearchDocumentsTable {
  agent_id: string;
}

export interface RegistryTables {
  agents: AgentsTable;
  claim_challenges: ClaimChallengesTable;
  agent_changes: AgentChangesTable;
  agent_search_documents: AgentSearchDocumentsTable;
}

/**
 * Read by discovery's store: whole agent rows, which it maps with `agentRecordOf` for its in-memory
 * index (and hands back, as records, to this module's view and visibility rule), and the heartbeats
 * since its last look (indexed on `last_seen_at`); its deletion of stored vectors whose agent is gone
 * is one statement against `agents`.
 */
export type AgentRowsReadModel = { agents: ReadOnlyTable<AgentsTable> };

/**
 * Read by discovery's store: the change log from each node's last position (to refresh its in-memory
 * index on every search) and the full-text documents (its lexical search, one query per engine joining
 * `agent_search_fts` on SQLite).
 */
export type AgentSearchReadModel = {
  agent_changes: ReadOnlyTable<AgentChangesTable>;
  agent_search_documents: ReadOnlyTable<AgentSearchDocumentsTable>;
};

/**
 * Read by the receipts store: which agents hold a registration key, the candidates for a receipt's
 * registered issuer. The evidence query filters its issuers by it inside the statement (an EXISTS
 * per row, by index), so evidence from unregistered keys costs a read nothing.
 */
export type AgentKeysReadModel = { agents: ReadOnlyTable<Pick<AgentsTable, 'id' | 'slug' | 'owner_id' | 'registration_pubkey'>> };

/**
 * What the tasks store reads of agents: an agent owner's task list (GET /v1/tasks?role=agent) joins
 * the tasks to the owner's agents, so that a page and its total stay one query each.
 */
export type AgentOwnersReadModel = { agents: ReadOnlyTable<Pick<AgentsTable, 'id' | 'owner_id'>> };
