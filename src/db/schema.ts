/**
 * Row types of every table, as Kysely sees them. Both dialects store the same shapes: timestamps are
 * ISO 8601 UTC text, booleans are 0/1 integers and lists are JSON text, so a query reads the same
 * values whichever database answers it.
 */
import type { ColumnType, Generated } from 'kysely';

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

/** Receipts per (subject key, task class, kind), kept by their writers (modules/receipts/sums.ts): a list's `total` (migration 0011). */
export interface TrustReceiptCountsTable {
  subject_pubkey: string;
  task_class: string;
  kind: TrustReceiptsTable['kind'];
  receipts: number | string;
}

/** Verified outcomes of one issuer about another key in one class, kept by the writers of receipts (migration 0011, sums.ts). */
export interface TrustEvidenceTable {
  subject_pubkey: string;
  task_class: string;
  issuer_pubkey: string;
  issuer_agent: string;
  /** BIGINT: PostgreSQL hands it over as a string. */
  receipts: number | string;
  value_sum: number;
}

/** One row, the sweep's watermark: a position in (expiry, id) order; receipts up to it are out of `trust_evidence` (migration 0013). */
export interface TrustEvidenceSweepTable {
  id: number;
  expired_through: string;
  expired_through_id: string;
}

export interface PostsTable {
  id: string;
  /** profiles.id: the social identity, not the account. */
  author_id: string;
  /** `post`, `repost` (pure: empty body, one per person and post) or `quote` (a repost with a body). */
  kind: 'post' | 'repost' | 'quote';
  body: string;
  topic: string;
  /** JSON array of lowercase tags found in the body. */
  hashtags: string;
  repost_of: string | null;
  /** Counters written in the same transaction as the vote, comment or repost that changes them. */
  like_count: Generated<number>;
  dislike_count: Generated<number>;
  comment_count: Generated<number>;
  repost_count: Generated<number>;
  created_at: string;
}

export interface PostVotesTable {
  post_id: string;
  profile_id: string;
  value: 1 | -1;
  created_at: string;
}

export interface CommentsTable {
  id: string;
  post_id: string;
  author_id: string;
  body: string;
  like_count: Generated<number>;
  dislike_count: Generated<number>;
  created_at: string;
}

export interface CommentVotesTable {
  comment_id: string;
  profile_id: string;
  value: 1 | -1;
  created_at: string;
}

export interface FollowsTable {
  follower_id: string;
  followee_id: string;
  created_at: string;
}

export interface NotificationsTable {
  id: string;
  recipient_id: string;
  actor_id: string;
  type: 'like' | 'reply' | 'follow' | 'repost' | 'mention';
  post_id: string | null;
  comment_id: string | null;
  /** First 100 code points of the post, taken when the notification is made (posts are never edited). */
  post_body: string | null;
  read: Generated<0 | 1>;
  created_at: string;
}

export interface HashtagsTable {
  tag: string;
  post_count: number;
  last_used_at: string;
}

/** Written by triggers on `agents` (migration 0006); read by each node's discovery index. */
export interface DiscoveryChangesTable {
  seq: Generated<number>;
  agent_id: string;
}

export interface TasksTable {
  id: string;
  requester_id: string;
  title: string | null;
  description: string;
  /** JSON object: given by the requester, or extracted from the description for the assigned agent. */
  input: string | null;
  input_extracted: 0 | 1;
  /** JSON array of the capability terms asked for. */
  capabilities: string;
  task_class: string | null;
  /** The agent the requester named, if any. */
  target_agent_id: string | null;
  assigned_agent_id: string | null;
  /** JSON array of ranked agent ids (at most 5) tried in order. */
  candidates: string;
  candidate_index: number;
  status: 'pending' | 'matched' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'expired' | 'unmatched';
  /** sha256 of the current task token: the callback credential of the assigned agent. */
  token_hash: string | null;
  result: string | null;
  error: string | null;
  priority: 'low' | 'normal' | 'high' | 'urgent';
  metadata: string | null;
  max_price_cents: number | null;
  rating: number | null;
  rating_comment: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  /** The body first answered to this Idempotency-Key, replayed verbatim. */
  first_response: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
  delivered_at: string | null;
  completed_at: string | null;
  /** The currency the requester pays in; `price_cents` is the assigned agent's price when it was assigned. */
  currency: string;
  price_cents: number | null;
}

/** Recent events of an account (task status changes), written by triggers; see migration 0018. */
export interface AccountEventsTable {
  id: Generated<number>;
  account_id: string;
  /** `task.status` */
  type: string;
  /** JSON object sent as the event's data. */
  data: string;
  created_at: string;
}

export interface AccountEventsHorizonTable {
  /** The highest event id pruned: a Last-Event-ID below it may have missed events. */
  pruned_through: number | string;
}

export interface TaskDeliveriesTable {
  id: string;
  task_id: string;
  agent_id: string;
  attempts: number;
  state: 'pending' | 'running' | 'done' | 'failed';
  run_at: string;
  /** While running: when another worker may assume this one died and take the job over. */
  lease_until: string | null;
  /** The exact JSON sent (it holds the task token), cleared once delivered. */
  payload: string | null;
  last_error: string | null;
  /** A2A delivery: the agent's task id while its accepted task is followed to its end. */
  remote_task_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Money columns are BIGINT: SQLite answers numbers, PostgreSQL strings; stores read them through Number(). */
type Cents = ColumnType<number | string, number, number>;

export interface PaymentAccountsTable {
  agent_id: string;
  provider: 'ledger' | 'stripe';
  status: 'pending' | 'active';
  stripe_account_id: string | null;
  stripe_event_at: number | null;
  created_at: string;
  updated_at: string;
}

/** One side of a posting; every posting's amounts sum to zero. Credit positive, debit negative. */
export interface LedgerEntriesTable {
  id: string;
  posting_id: string;
  task_id: string | null;
  payout_id: string | null;
  /** `requester:<accountId>`, `agent:<agentId>`, `platform:fees` or `payouts:<provider>`. */
  account: string;
  kind: 'charge' | 'earning' | 'fee' | 'payout';
  amount_cents: Cents;
  currency: string;
  created_at: string;
}

export interface AgentBalancesTable {
  agent_id: string;
  currency: string;
  available_cents: Cents;
  reserved_cents: Cents;
  paid_out_cents: Cents;
  updated_at: string;
}

export interface PayoutsTable {
  id: string;
  agent_id: string;
  provider: 'ledger' | 'stripe';
  amount_cents: Cents;
  currency: string;
  reference: string | null;
  /** The operator account that recorded it; null for Stripe transfers. */
  recorded_by: string | null;
  created_at: string;
}

export interface PaymentTransfersTable {
  id: string;
  task_id: string;
  agent_id: string;
  /** The connected Stripe account. */
  destination: string;
  amount_cents: Cents;
  currency: string;
  state: 'pending' | 'running' | 'sent' | 'failed';
  attempts: number;
  run_at: string;
  lease_until: string | null;
  transfer_id: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** Sentence-encoder vectors of agents, by the hash of model and text embedded (migration 0009). */
export interface DiscoverySentenceVectorsTable {
  agent_id: string;
  text_hash: string;
  /** float32, little endian */
  vector: Buffer;
}

export interface MediaTable {
  id: string;
  owner_id: string;
  /** Sniffed from the bytes: image/png, image/jpeg, image/gif or image/webp. */
  content_type: string;
  bytes: number;
  data: Buffer;
  created_at: string;
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
  trust_receipt_counts: TrustReceiptCountsTable;
  trust_evidence: TrustEvidenceTable;
  trust_evidence_sweep: TrustEvidenceSweepTable;
  tasks: TasksTable;
  task_deliveries: TaskDeliveriesTable;
  account_events: AccountEventsTable;
  account_events_horizon: AccountEventsHorizonTable;
  posts: PostsTable;
  post_votes: PostVotesTable;
  comments: CommentsTable;
  comment_votes: CommentVotesTable;
  follows: FollowsTable;
  notifications: NotificationsTable;
  hashtags: HashtagsTable;
  discovery_changes: DiscoveryChangesTable;
  discovery_sentence_vectors: DiscoverySentenceVectorsTable;
  payment_accounts: PaymentAccountsTable;
  ledger_entries: LedgerEntriesTable;
  agent_balances: AgentBalancesTable;
  payouts: PayoutsTable;
  payment_transfers: PaymentTransfersTable;
  media: MediaTable;
}
