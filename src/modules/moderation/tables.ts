/**
 * The tables the moderation module owns, as Kysely sees them (timestamps ISO 8601 UTC text, lists
 * JSON text on both databases). Only this module's store names them.
 */
import type { ReadOnlyTable } from '../../db/tables.ts';

export type ModeratorRole = 'admin' | 'moderator';
export type SubjectType = 'post' | 'comment' | 'agent' | 'account';
export type ReportReason = 'spam' | 'abuse' | 'impersonation' | 'unsafe' | 'illegal' | 'other';
export type ModerationActionName = 'dismiss' | 'hide' | 'restore' | 'limit' | 'unlimit' | 'suspend' | 'unsuspend' | 'delist' | 'relist' | 'approve' | 'reject';
/** What an action leaves in force on its subject until the action that undoes it. */
export type ModerationState = 'hidden' | 'limited' | 'suspended' | 'delisted';

export interface ModeratorRolesTable {
  account_id: string;
  role: ModeratorRole;
  /** The admin who granted it through the API; null when granted by the command on the server. */
  granted_by: string | null;
  granted_at: string;
}

export interface ReportsTable {
  id: string;
  /** The account that reported (a person's, or the service account an agent key acts as). */
  reporter_id: string;
  subject_type: SubjectType;
  subject_id: string;
  reason: ReportReason;
  note: string | null;
  status: 'open' | 'resolved';
  created_at: string;
  resolved_at: string | null;
  /** The action that resolved it. */
  action_id: string | null;
}

export interface ModerationActionsTable {
  id: string;
  moderator_id: string;
  action: ModerationActionName;
  subject_type: SubjectType;
  subject_id: string;
  /** The account answerable for the subject when the action was taken: who is notified and may appeal. */
  subject_owner_id: string | null;
  reason: string;
  /** JSON array of the report ids the action resolved. */
  report_ids: string;
  created_at: string;
}

export interface ModerationStatesTable {
  subject_type: SubjectType;
  subject_id: string;
  state: ModerationState;
  action_id: string;
  reason: string;
  since: string;
}

export interface AppealsTable {
  id: string;
  action_id: string;
  appellant_id: string;
  note: string;
  status: 'open' | 'upheld' | 'reversed';
  created_at: string;
  decided_by: string | null;
  decided_at: string | null;
  decision_reason: string | null;
}

/** A setting an admin changed (migration 0041); `value` is JSON text. */
export interface InstancePoliciesTable {
  name: string;
  value: string;
  updated_by: string | null;
  updated_at: string;
}

/** An account waiting under the sign-up approval policy, or rejected (migration 0046); no row: in good standing. */
export interface AccountApprovalsTable {
  account_id: string;
  state: 'pending' | 'rejected';
  /** The moderators' reason for a rejection; null while pending. */
  reason: string | null;
  since: string;
}

export interface ModerationTables {
  moderator_roles: ModeratorRolesTable;
  reports: ReportsTable;
  moderation_actions: ModerationActionsTable;
  moderation_states: ModerationStatesTable;
  appeals: AppealsTable;
  instance_policies: InstancePoliciesTable;
  account_approvals: AccountApprovalsTable;
}

/**
 * Read by the modules whose listings leave out what moderation took away (hidden posts, delisted
 * agents, limited or suspended accounts): an indexed NOT EXISTS inside their own queries.
 */
export type ModerationStatesReadModel = { moderation_states: ReadOnlyTable<ModerationStatesTable> };
