import { findCapability } from './capabilities.ts';
import { capabilityClassOf } from './class-names.ts';

/**
 * A task's class: the one its requester set, or else the class of the first capability of the agent
 * that took it: its catalogue class, or for a term the catalogue does not know `other.<the term as a
 * slug>` (class-names.ts), so that its requesters can sign receipts bound to its tasks. Null when the
 * agent has no capability. Trust receipts bound to the task must name it.
 */
export function taskClassOf(requested: string | null, agentCapabilities: readonly string[] | null | undefined): string | null {
  if (requested) return requested;
  const first = agentCapabilities?.[0];
  return first === undefined ? null : capabilityClassOf(first, findCapability);
}
