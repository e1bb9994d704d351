/**
 * The tables the users module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them; other modules' stores
 * read them only through the read models at the end.
 */
import type { Generated } from 'kysely';
import type { ReadOnlyTable } from '../../db/tables.ts';

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

/** The username of a deleted account, refused to anyone else until `reserved_until`. */
export interface ReservedUsernamesTable {
  username: string;
  account_id: string;
  reserved_until: string;
}

export interface UsersTables {
  profiles: ProfilesTable;
  reserved_usernames: ReservedUsernamesTable;
}

/**
 * Profiles as the social module reads them: its feeds, comments and notifications join their
 * authors' identities in the query that loads them (one query per page, whatever its size), and its
 * people pages find, suggest and search profiles together with the follow graph it owns. Read only:
 * the follow counters move through the users store's adjustFollowCounts.
 */
export interface ProfilesReadModel {
  profiles: ReadOnlyTable<
    Pick<
      ProfilesTable,
      'id' | 'account_id' | 'username' | 'display_name' | 'bio' | 'avatar_url' | 'type' | 'agent_id' | 'followers_count' | 'following_count' | 'created_at'
    >
  >;
}

/** Usernames by account, for the orgs module: it lists an organization's members with their usernames in one query. */
export interface UsernamesReadModel {
  profiles: ReadOnlyTable<Pick<ProfilesTable, 'account_id' | 'username'>>;
}

/**
 * Read by the receipts store: the usernames of the accounts whose signing keys issued evidence, so
 * an explanation of a score names the person (@username) rather than an account id.
 */
export interface ProfileNamesReadModel {
  profiles: ReadOnlyTable<Pick<ProfilesTable, 'account_id' | 'username'>>;
}
