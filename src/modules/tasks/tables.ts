/**
 * The tables the tasks module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
import type { Generated } from 'kysely';
import type { ReadOnlyTable } from '../../db/tables.ts';

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
  /** The search that led the requester to the task's form (migration 0034): write-only, told to discovery when the task is rated well. */
  search_query: string | null;
  /** A task a long poll handed out: when the agent's lease on it runs out and it goes back to the queue (migration 0047). */
  poll_lease_until: string | null;
  /** How many times polls have handed the task out. */
  poll_handouts: Generated<number>;
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

/**
 * A task's status changes, one row per account told of each (the requester, and the assigned agent's
 * owner when that is another account), written by triggers on `tasks` in the transaction of the
 * change (migrations 0018, 0021). The events module streams them (GET /v1/events).
 */
export interface TaskStatusEventsTable {
  id: Generated<number>;
  account_id: string;
  type: 'task.status';
  /** JSON object sent as the event's data: `{ taskId, status, at, role }`. */
  data: string;
  created_at: string;
}

export interface TaskStatusEventsHorizonTable {
  /** The highest event id pruned: a Last-Event-ID below it may have missed events. */
  pruned_through: number | string;
}

/** A webhook agent whose deliveries a `listen` session takes until `until` (migration 0038). */
export interface WebhookListenersTable {
  agent_id: string;
  until: string;
}

export interface TasksTables {
  tasks: TasksTable;
  task_deliveries: TaskDeliveriesTable;
  webhook_listeners: WebhookListenersTable;
  task_status_events: TaskStatusEventsTable;
  task_status_events_horizon: TaskStatusEventsHorizonTable;
}

/**
 * Read by the receipts store: whether an outcome receipt is bound to a task this registry routed
 * (docs/trust.md, "Task-bound evidence"): who asked, who took it, how it ended, its class.
 */
export type TaskBindingReadModel = {
  tasks: ReadOnlyTable<Pick<TasksTable, 'id' | 'requester_id' | 'status' | 'task_class' | 'assigned_agent_id'>>;
};
