/**
 * Wakes the event streams of the accounts a task status change concerns, after the change commits.
 * The triggers on `tasks` write the events in the change's own transaction (status-events.ts) but
 * raise no signal there: on PostgreSQL a transaction that has sent a NOTIFY takes a database-wide
 * lock at commit and holds it through the WAL flush, so the task writes could not share commits.
 *
 * The signals are coalesced: while one is on its way to the database, and for SIGNAL_SPACING_MS
 * after it set out, the accounts of the changes that commit meanwhile gather, and go in the next, as
 * one payload of ids separated by commas. A node so sends at most 100 signals a second however fast
 * tasks change (each a transaction of its own on PostgreSQL), and a stream hears a change at most
 * that much later.
 * Streams on this node hear at once; other nodes when the database relays the signal. A signal lost
 * (a node stopping between a commit and its signal) only delays a stream until it looks again on its
 * own (events module), as signals carry no data of record.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Signals } from '../../db/signals.ts';
import type { TaskParties } from './store.ts';

/** The channel the events streams listen on; the payload is one account id or several separated by commas. */
export const EVENTS_CHANNEL = 'events';
/** The least time between two signals a node sends: changes within it wait for the next. */
const SIGNAL_SPACING_MS = 10;
/** Below the signal bus's payload limit (7,999 bytes) with room to spare. */
const MAX_PAYLOAD_BYTES = 7000;
/** Agents whose owner is remembered (an agent's owner never changes once it is claimed). */
const MAX_KNOWN_OWNERS = 10_000;
/** A provisional agent has no owner yet; it may be claimed, so that is remembered only briefly. */
const NO_OWNER_MS = 5000;

export interface StatusSignalsDeps {
  signals: Signals;
  /** The account that owns the agent, or null (a provisional agent, or one gone). */
  ownerOf(agentId: string): Promise<string | null>;
  now(): number;
  onError(error: unknown): void;
}

/** The account ids a payload of the `events` channel names. */
export const accountsInEventsPayload = (payload: string): string[] => (payload === '' ? [] : payload.split(','));

export function createStatusSignals(deps: StatusSignalsDeps) {
  const owners = new Map<string, string>();
  const noOwnerUntil = new Map<string, number>();
  const waiting = new Set<string>();
  let sending: Promise<void> | null = null;

  async function ownerOf(agentId: string): Promise<string | null> {
    const known = owners.get(agentId);
    if (known) return known;
    if ((noOwnerUntil.get(agentId) ?? 0) > deps.now()) return null;
    const owner = await deps.ownerOf(agentId);
    if (owner) {
      if (owners.size >= MAX_KNOWN_OWNERS) owners.clear();
      owners.set(agentId, owner);
      noOwnerUntil.delete(agentId);
    } else {
      if (noOwnerUntil.size >= MAX_KNOWN_OWNERS) noOwnerUntil.clear();
      noOwnerUntil.set(agentId, deps.now() + NO_OWNER_MS);
    }
    return owner;
  }

  function payloads(accounts: string[]): string[] {
    const out: string[] = [];
    let current = '';
    for (const id of accounts) {
      if (current && Buffer.byteLength(current) + Buffer.byteLength(id) + 1 > MAX_PAYLOAD_BYTES) {
        out.push(current);
        current = '';
      }
      current = current ? `${current},${id}` : id;
    }
    if (current) out.push(current);
    return out;
  }

  function send(): void {
    if (sending || waiting.size === 0) return;
    const accounts = [...waiting];
    waiting.clear();
    sending = (async () => {
      const spaced = delay(SIGNAL_SPACING_MS);
      for (const payload of payloads(accounts)) await deps.signals.publish(EVENTS_CHANNEL, payload).catch(deps.onError);
      await spaced;
    })().finally(() => {
      sending = null;
      send();
    });
  }

  function tell(account: string): void {
    waiting.add(account);
    send();
  }

  return {
    /** Status changes that committed: wakes their requesters' and agent owners' streams. */
    changed(parties: readonly TaskParties[]): void {
      for (const { requesterId, assignedAgentId } of parties) {
        tell(requesterId);
        if (!assignedAgentId) continue;
        const known = owners.get(assignedAgentId);
        if (known) {
          if (known !== requesterId) tell(known);
          continue;
        }
        ownerOf(assignedAgentId).then((owner) => {
          if (owner && owner !== requesterId) tell(owner);
        }, deps.onError);
      }
    },
    /** Until the signals in flight have gone (for shutdown). */
    async settled(): Promise<void> {
      while (sending) await sending;
    },
  };
}
