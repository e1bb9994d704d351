/**
 * The tables the registry module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them; what other modules read of
 * them in their own queries is typed by the read models at the end.
 */
import type { ColumnType, Generated } from 'kysely';
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
  /** JSON array of requests in users' own words (migration 0031). */
  examples: ColumnType<string, string | undefined, string>;
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
  /** The last sign of life: a heartbeat, a poll, or (webhook and A2A agents) a successful delivery or callback. */
  last_seen_at: string | null;
  /** The last poll for tasks (migration 0023): a poll agent is available only while it polls. */
  last_polled_at: string | null;
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
  /** The `name` of the MCP server.json the agent was registered from, if any (migration 0030; docs/interop.md "Names"). */
  mcp_server_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** The endpoint host whose control the owner proved (migration 0042); null until proven, and again once lost. */
  verified_domain: ColumnType<string | null, string | null | undefined, string | null>;
  domain_verified_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** The verified signature of the A2A card at manifest_url, as JSON (migration 0048); null for no manifest or an unsigned one. */
  card_signature: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * Whether the agent is listed (migration 0041): only a public, listed agent is shown to everyone;
   * a pending, rejected or delisted one only to its owner. Written by moderation and the listing policy.
   */
  listing: ColumnType<AgentListing, AgentListing | undefined, AgentListing>;
  /** The moderators' reason for a delisting or rejection; `new` or `changed` while pending. */
  listing_reason: ColumnType<string | null, string | null | undefined, string | null>;
  listing_since: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1 while the owner's account is limited: the agent stays out of discovery. */
  owner_limited: ColumnType<number, number | undefined, number>;
}

/**
 * An agent's domain proof (migration 0042): the token its owner serves at the endpoint host's
 * `/.well-known/agentry.json`, and the state of the daily re-check once verified.
 */
export interface AgentDomainProofsTable {
  agent_id: string;
  /** The host the token was issued for; a token never proves another. */
  domain: string;
  token: string;
  created_at: string;
  /** The last check, passed or failed; null until the first verification. */
  checked_at: string | null;
  /** The first of the re-checks failing since the last that passed. */
  failing_since: string | null;
  last_failure: string | null;
}

export type AgentListing = 'listed' | 'pending' | 'rejected' | 'delisted';

/** Claim and key challenges: an agent's recent nonces, numbered by `seq` in the order issued (docs/registry.md). */
export interface ClaimChallengesTable {
  agent_id: string;
  seq: number;
  nonce: string;
  expires_at: string;
  created_at: string;
  /** Set when newer challenges pushed this one out of the valid few. */
  replaced_at: string | null;
  /** The account it was issued to, whose claim alone may use it; null when asked for without a credential. */
  account_id: string | null;
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

/**
 * Written by the triggers on `agents` (migration 0030): a row for each change of an agent that is public
 * or was public before the change (`public` 0 when it no longer is, or was deleted), read by mirrors
 * through GET /v1/agents/changes. `txid` is the writing transaction on PostgreSQL (0 on SQLite), which
 * orders the feed with `seq` (docs/interop.md). A column added to `agents` that agent views show must
 * be added to the triggers' watched columns.
 */
export interface AgentFeedTable {
  seq: Generated<number>;
  txid: number;
  agent_id: string;
  public: number;
  at: string;
}

/**
 * Written by the triggers on `agents` (migration 0030): each version at which an agent was listed in the
 * MCP Registry view (public, speaks MCP, has an endpoint), with what was public at that version.
 */
export interface AgentMcpVersionsTable {
  agent_id: string;
  version: string;
  /** The agent's own server.json name at that version, or null (the registry names it). */
  server_name: string | null;
  slug: string;
  name: string;
  description: string;
  endpoint: string;
  published_at: string;
  updated_at: string;
  is_latest: number;
  deleted: number;
}

export interface RegistryTables {
  agents: AgentsTable;
  claim_challenges: ClaimChallengesTable;
  agent_changes: AgentChangesTable;
  agent_search_documents: AgentSearchDocumentsTable;
  agent_feed: AgentFeedTable;
  agent_mcp_versions: AgentMcpVersionsTable;
  registry_log_events: RegistryLogEventsTable;
  agent_domain_proofs: AgentDomainProofsTable;
}

/**
 * The registry log's queue and index of agent events (migration 0039): each queued in the
 * transaction of its change, numbered by `seq`, and given its `log_index` when the registry
 * sequencer appends it. Rows outlive their agent: the log keeps a deleted agent's history.
 */
export interface RegistryLogEventsTable {
  seq: Generated<number | string>;
  agent_id: string;
  event: string;
  /** The entry's RFC 8785 text, as logged. */
  entry: string;
  /** 1 when the entry shows the agent's values (it was public then). */
  public: number;
  created_at: string;
  log_index: number | string | null;
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
export type AgentKeysReadModel = {
  agents: ReadOnlyTable<Pick<AgentsTable, 'id' | 'slug' | 'name' | 'owner_id' | 'registration_pubkey' | 'key_verified_at' | 'visibility' | 'capabilities'>>;
};

/**
 * What the tasks store reads of agents: an agent owner's task list (GET /v1/tasks?role=agent) joins
 * the tasks to the owner's agents, so that a page and its total stay one query each.
 */
export type AgentOwnersReadModel = { agents: ReadOnlyTable<Pick<AgentsTable, 'id' | 'owner_id'>> };

/** Read by the MCP Registry API (mcp-registry module): the versions agents were listed at. */
export type AgentMcpVersionsReadModel = { agent_mcp_versions: ReadOnlyTable<AgentMcpVersionsTable> };
