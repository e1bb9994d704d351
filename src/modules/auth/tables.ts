/**
 * The tables the auth module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
import type { ReadOnlyTable } from '../../db/tables.ts';

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
  /** When the person deleted the account; its email, password and identity-provider link are cleared then. */
  deleted_at?: string | null;
}

/** Read by the receipts store: the agent an agent service account speaks for, whose key is then the account's. */
export type AccountAgentReadModel = { accounts: ReadOnlyTable<Pick<AccountsTable, 'id' | 'agent_id'>> };

/** Read by the tasks store: the person answerable for a requesting account (an agent's service account: its owner). */
export type AccountOwnerReadModel = { accounts: ReadOnlyTable<Pick<AccountsTable, 'id' | 'owner_account_id'>> };

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

export interface AuthTables {
  accounts: AccountsTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
}

/**
 * Read by the moderation store: the account an operator names by email (the admin command), and an
 * account's kind, age and whether it still exists (a report's subject, the queue's owner history).
 */
export type AccountStandingReadModel = {
  accounts: ReadOnlyTable<Pick<AccountsTable, 'id' | 'kind' | 'email' | 'owner_account_id' | 'created_at' | 'deleted_at'>>;
};
