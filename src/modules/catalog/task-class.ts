import { findCapability } from './capabilities.ts';

/**
 * The task class of a catalogue capability: `<category>.<capability slug>`, e.g.
 * `documents.text-summarization`. Null for a term the catalogue does not know: a class must mean
 * the same work for every agent that uses it, and free-form tags do not.
 */
export function catalogueClassOf(capability: string): string | null {
  const known = findCapability(capability);
  return known ? `${known.category}.${known.slug}` : null;
}

/**
 * A task's class: the one its requester set, or else the catalogue class of the first capability of
 * the agent that took it (null when neither gives one). Trust receipts bound to the task must name it.
 */
export function taskClassOf(requested: string | null, agentCapabilities: readonly string[] | null | undefined): string | null {
  if (requested) return requested;
  const first = agentCapabilities?.[0];
  return first === undefined ? null : catalogueClassOf(first);
}
