/**
 * The agent lifecycle events of the registry log (docs/trust.md, "The registry log"). An event is
 * queued as a row of `registry_log_events` in the transaction that makes the change, so a change
 * that commits has its event and one that rolls back has none, whatever crashes when; the registry
 * sequencer appends queued events to the log in queue order and records their indexes.
 */
import type { Kysely } from 'kysely';
import { registryLogEntry, type RegistryEventName } from '@agentry/sdk/tlog';
import type { AgentsTable, RegistryTables } from './tables.ts';

type Own = Kysely<RegistryTables>;

/** What the log shows of an agent: only these columns, and only while the agent is public. */
export type LoggedAgent = Pick<
  AgentsTable,
  'id' | 'name' | 'slug' | 'status' | 'owner_id' | 'registration_pubkey' | 'endpoint' | 'delivery_mode' | 'visibility'
>;

export interface RegistryEvent {
  agentId: string;
  event: RegistryEventName;
  values: Record<string, unknown>;
  /** Whether `values` may be shown (the agent was public): an event of a hidden agent is its id and name alone. */
  public: boolean;
  time: string;
}

const isPublic = (agent: LoggedAgent) => agent.visibility === 'public';

/** An agent's whole public state, as `registered` (and a return to public view) logs it. */
export function registeredValues(agent: LoggedAgent): Record<string, unknown> {
  return {
    name: agent.name,
    slug: agent.slug,
    provisional: agent.status === 'provisional',
    ownerId: agent.owner_id,
    key: agent.registration_pubkey,
    endpoint: agent.endpoint,
    deliveryMode: agent.delivery_mode,
  };
}

function eventOf(agent: LoggedAgent, event: RegistryEventName, values: Record<string, unknown>, time: string): RegistryEvent {
  const shown = isPublic(agent);
  return { agentId: agent.id, event, values: shown ? values : {}, public: shown, time };
}

export const registeredEvent = (agent: LoggedAgent, time: string): RegistryEvent => eventOf(agent, 'registered', registeredValues(agent), time);

/** The events one change of an agent makes, in the order they are logged. */
export function changeEvents(before: LoggedAgent, after: LoggedAgent, time: string): RegistryEvent[] {
  const events: RegistryEvent[] = [];
  if (before.visibility !== after.visibility && isPublic(before) !== isPublic(after)) {
    // Coming into public view, the whole state is shown at once; the events below would repeat it.
    if (isPublic(after)) return [eventOf(after, 'visibility_changed', { visibility: after.visibility, ...registeredValues(after) }, time)];
    // Leaving it: the last public word is that it is no longer public.
    return [{ agentId: after.id, event: 'visibility_changed', values: { visibility: after.visibility }, public: true, time }];
  }
  if (before.status === 'provisional' && after.status !== 'provisional') events.push(eventOf(after, 'claimed', { ownerId: after.owner_id }, time));
  if (before.registration_pubkey !== after.registration_pubkey) {
    if (before.registration_pubkey === null) events.push(eventOf(after, 'key_added', { key: after.registration_pubkey }, time));
    else if (after.registration_pubkey === null) events.push(eventOf(after, 'key_revoked', { previousKey: before.registration_pubkey }, time));
    else events.push(eventOf(after, 'key_rotated', { key: after.registration_pubkey, previousKey: before.registration_pubkey }, time));
  }
  if (before.endpoint !== after.endpoint || before.delivery_mode !== after.delivery_mode)
    events.push(eventOf(after, 'endpoint_changed', { endpoint: after.endpoint, deliveryMode: after.delivery_mode }, time));
  if (before.name !== after.name) events.push(eventOf(after, 'name_changed', { name: after.name }, time));
  return events;
}

export const deletedEvent = (agent: LoggedAgent, time: string): RegistryEvent => eventOf(agent, 'deleted', {}, time);

/** The columns a change must touch for `changeEvents` to find anything: other updates (heartbeats) skip the comparison. */
export const loggedColumns = ['name', 'status', 'owner_id', 'registration_pubkey', 'endpoint', 'delivery_mode', 'visibility'] as const;

/** Queues events in the caller's transaction (which holds the agent's row): they commit, or roll back, with the change. */
export async function queueRegistryEvents(tx: Own, events: RegistryEvent[]): Promise<void> {
  if (events.length === 0) return;
  await tx
    .insertInto('registry_log_events')
    .values(
      events.map((event) => ({
        agent_id: event.agentId,
        event: event.event,
        entry: registryLogEntry(event).toString('utf8'),
        public: event.public ? 1 : 0,
        created_at: event.time,
        log_index: null,
      })),
    )
    .execute();
}

/**
 * Logs an event about an agent that the registry's own changes do not make: `domain_verified` and
 * `domain_lost` (the agent's domain proof), `delisted` and `relisted` (a moderator's action, with
 * `{ category }`, the reason's category). Call it in the transaction that records the change, with
 * the agent as it stands after it; a hidden agent's event carries its id alone.
 */
export async function logAgentEvent(
  tx: Kysely<unknown>,
  agent: LoggedAgent,
  event: Extract<RegistryEventName, 'domain_verified' | 'domain_lost' | 'delisted' | 'relisted'>,
  values: Record<string, unknown>,
  time: string,
): Promise<void> {
  await queueRegistryEvents(tx as unknown as Own, [eventOf(agent, event, values, time)]);
}
