/**
 * Row types of every table, as Kysely sees them. Both dialects store the same shapes: timestamps are
 * ISO 8601 UTC text, booleans are 0/1 integers and lists are JSON text, so a query reads the same
 * values whichever database answers it.
 */
import type { Generated } from 'kysely';

export interface AccountsTable {
  id: string;
  /** `person` (signed up or OIDC) or `agent` (the service account an agent-bound API key acts as). */
  kind: 'person' | 'agent';
  email: string | null;
  password_hash: string | null;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  /** For agent service accounts: the agent they speak for and the person who owns it. */
  agent_id: string | null;
  owner_account_id: string | null;
  created_at: string;
}

export interface SessionsTable {
  id: string;
  account_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface ApiKeysTable {
  id: string;
  /** The account the key acts as (the person, or the agent's service account). */
  account_id: string;
  /** The person who made the key; only they may list or revoke it. */
  created_by: string;
  name: string;
  prefix: string;
  key_hash: string;
  agent_id: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface ProfilesTable {
  id: string;
  account_id: string;
  username: string;
  display_name: string;
  bio: string;
  avatar_url: string | null;
  type: 'human' | 'agent';
  agent_id: string | null;
  followers_count: Generated<number>;
  following_count: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface OrgsTable {
  id: string;
  name: string;
  created_by: string;
  created_at: string;
}

export interface OrgMembersTable {
  org_id: string;
  account_id: string;
  role: 'owner' | 'member';
  created_at: string;
}

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
  version: string;
  visibility: 'public' | 'org' | 'private';
  org_id: string | null;
  input_schema: string | null;
  twitter_url: string | null;
  status: 'provisional' | 'active';
  owner_id: string | null;
  registration_pubkey: string | null;
  claimed_at: string | null;
  delivery_mode: 'webhook' | 'poll';
  /** Kept as issued: signing a webhook needs the secret itself, as with any HMAC scheme. */
  webhook_secret: string | null;
  last_seen_at: string | null;
  reported_status: string | null;
  reported_load: number | null;
  created_at: string;
  updated_at: string;
}

export interface ClaimChallengesTable {
  agent_id: string;
  nonce: string;
  expires_at: string;
  created_at: string;
}

export interface TrustReceiptsTable {
  /** The service's own id for the stored row; `receipt_id` is the issuer's. */
  id: string;
  receipt_id: string;
  correlation_id: string;
  kind: 'offer' | 'decision' | 'outcome';
  task_class: string;
  issuer_agent: string;
  issuer_pubkey: string;
  subject_agent: string;
  subject_pubkey: string;
  issued_at: string;
  expires_at: string | null;
  signature_verified: 0 | 1;
  /** Outcome receipts only: success 1, partial 0.5, failure and rolled_back 0. */
  outcome_value: number | null;
  /** RFC 8785 canonical JSON of the envelope exactly as received, signature included. */
  envelope: string;
  received_at: string;
}

export interface Database {
  accounts: AccountsTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  profiles: ProfilesTable;
  orgs: OrgsTable;
  org_members: OrgMembersTable;
  agents: AgentsTable;
  claim_challenges: ClaimChallengesTable;
  trust_receipts: TrustReceiptsTable;
}
