/**
 * How a capability term becomes a task class, without the catalogue itself: the web app's agent form
 * uses this with the catalogue it has fetched to say, before registration, under which class the
 * agent's trust will be counted; the service uses it with the catalogue in memory (task-class.ts).
 */

/** A capability as far as its class goes. */
export interface ClassedCapability {
  slug: string;
  category: string;
  name: string;
  aliases: readonly string[];
}

/** Lowercased and trimmed; runs of spaces, underscores and hyphens become one hyphen. */
export function normalizeCapabilityTerm(term: string): string {
  return term
    .toLowerCase()
    .trim()
    .replace(/[\s_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The category capabilities outside the catalogue are counted under. */
export const OWN_TERM_CATEGORY = 'other';

/**
 * The class of a capability term the catalogue does not know: `other.<term as a slug>`, e.g.
 * `Quantum Knitting` gives `other.quantum-knitting`. Agents that use the same words share it. Null
 * for a term with no letter or digit of a-z, 0-9 left to name it by.
 */
export function ownTermClassOf(term: string): string | null {
  const slug = normalizeCapabilityTerm(term)
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug ? `${OWN_TERM_CATEGORY}.${slug}` : null;
}

/** A capability term's class: `<category>.<slug>` of the catalogue capability it names, else ownTermClassOf. */
export function capabilityClassOf(term: string, find: (term: string) => ClassedCapability | undefined): string | null {
  const known = find(term);
  return known ? `${known.category}.${known.slug}` : ownTermClassOf(term);
}

/**
 * A finder over a catalogue list by slug, or by slug, name or alias normalized (the tests guarantee
 * no two capabilities share one; the first would win). Built once per list.
 */
export function catalogueFinder<T extends ClassedCapability>(list: readonly T[]): (term: string) => T | undefined {
  const bySlug = new Map<string, T>(list.map((capability) => [capability.slug, capability]));
  const byTerm = new Map<string, T>();
  for (const capability of list)
    for (const term of [capability.slug, capability.name, ...capability.aliases]) {
      const key = normalizeCapabilityTerm(term);
      if (key && !byTerm.has(key)) byTerm.set(key, capability);
    }
  return (term) => {
    const direct = bySlug.get(term);
    if (direct) return direct;
    const key = normalizeCapabilityTerm(term);
    return key ? byTerm.get(key) : undefined;
  };
}
