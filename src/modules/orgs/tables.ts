/**
 * The tables the orgs module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
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

export interface OrgsTables {
  orgs: OrgsTable;
  org_members: OrgMembersTable;
}
