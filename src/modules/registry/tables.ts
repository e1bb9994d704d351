import type { ReadOnlyTable } from '../../db/tables.ts';

/**
 * The tables the registry module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
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

export interface RegistryTables {
  agents: AgentsTable;
  claim_challenges: ClaimChallengesTable;
}

/**
 * What the tasks store reads of agents: an agent owner's task list (GET /v1/tasks?role=agent) joins
 * the tasks to the owner's agents, so that a page and its total stay one query each.
 */
export type AgentOwnersReadModel = { agents: ReadOnlyTable<Pick<AgentsTable, 'id' | 'owner_id'>> };
