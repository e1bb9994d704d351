/**
 * The tables the events module owns, as Kysely sees them (timestamps ISO 8601 UTC text, booleans 0/1,
 * lists JSON text on both databases). Only this module's store names them.
 */
import type { Generated } from 'kysely';

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

export interface EventsTables {
  account_events: AccountEventsTable;
  account_events_horizon: AccountEventsHorizonTable;
}
