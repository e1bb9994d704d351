/**
 * The tables the users module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
import type { Generated } from 'kysely';

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

export interface UsersTables {
  profiles: ProfilesTable;
}
