/**
 * Catalogue of standardized agent capabilities (served by GET /v1/capabilities). The catalogue is
 * data, in catalogue.json beside this file; it is checked against its schema when loaded, so a
 * malformed edit stops the service at start instead of serving a broken catalogue.
 *
 * Used for:
 *  - search: aliases are the other words people use for a capability, so a query such as
 *    "summarise my inbox" can find the "email-digest" capability;
 *  - task routing: a task asking for "text-summarization" also matches an agent tagged
 *    with an alias such as "summarize" (see expandCapabilityTerms).
 *
 * Invariants beyond the schema (enforced by test/unit/catalog.test.ts):
 *  - slugs and names are unique; every capability's category exists;
 *  - every category has at least 3 capabilities;
 *  - after normalization no alias collides with another capability's slug, name or aliases.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import catalogueData from './catalogue.json' with { type: 'json' };
import { catalogueFinder, normalizeCapabilityTerm } from './class-names.ts';

export { normalizeCapabilityTerm };

const CategorySlug = Type.String({ pattern: '^[a-z0-9-]{1,40}$' });

const CapabilityCategory = Type.Object({ slug: CategorySlug, name: Type.String({ minLength: 1, maxLength: 80 }) }, { additionalProperties: false });
export type CapabilityCategory = Static<typeof CapabilityCategory>;

const Capability = Type.Object(
  {
    slug: Type.String({ pattern: '^[a-z0-9-]{1,60}$' }),
    name: Type.String({ minLength: 1, maxLength: 80 }),
    category: CategorySlug,
    description: Type.String({ minLength: 1, maxLength: 300 }),
    aliases: Type.Array(Type.String({ pattern: '^[^A-Z]+$', minLength: 1, maxLength: 60 }), { minItems: 3, maxItems: 8 }),
  },
  { additionalProperties: false },
);
export type Capability = Static<typeof Capability>;

const Catalogue = Type.Object(
  {
    /** The category slugs that agents themselves can be filed under. */
    agentCategories: Type.Array(CategorySlug, { minItems: 1 }),
    categories: Type.Array(CapabilityCategory, { minItems: 1 }),
    capabilities: Type.Array(Capability, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export function loadCatalogue(data: unknown): Static<typeof Catalogue> {
  if (Value.Check(Catalogue, data)) return data;
  const first = Value.Errors(Catalogue, data).First();
  throw new Error(`catalogue.json does not match its schema at ${first?.path ?? '/'}: ${first?.message ?? 'invalid'}`);
}

const catalogue = loadCatalogue(catalogueData);

/** The category slugs that agents themselves can be filed under. */
export const agentCategorySlugs: string[] = catalogue.agentCategories;
export const capabilityCategories: CapabilityCategory[] = catalogue.categories;
export const capabilities: Capability[] = catalogue.capabilities;

/** Canonical slug + aliases per capability slug, returned (as copies) by expandCapabilityTerms. */
const expandedTermsBySlug = new Map<string, readonly string[]>(capabilities.map((capability) => [capability.slug, [capability.slug, ...capability.aliases]]));

/** Finds a capability by slug, name or alias, ignoring case, whitespace, underscores and hyphens. */
export const findCapability: (term: string) => Capability | undefined = catalogueFinder(capabilities);

/**
 * Expands a capability term into every term that should match it: the canonical slug plus all
 * aliases when the term is known, otherwise just the normalized term. Used to match a task's
 * requested capabilities against agents' capability tags (compare via normalizeCapabilityTerm).
 */
export function expandCapabilityTerms(term: string): string[] {
  const capability = findCapability(term);
  if (capability) return [...(expandedTermsBySlug.get(capability.slug) ?? [capability.slug])];
  const key = normalizeCapabilityTerm(term);
  return key ? [key] : [];
}

/** Number of capabilities per category, in catalogue category order (zero counts included). */
export function categoryCounts(): { slug: string; name: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const capability of capabilities) {
    counts.set(capability.category, (counts.get(capability.category) ?? 0) + 1);
  }
  return capabilityCategories.map((category) => ({
    slug: category.slug,
    name: category.name,
    count: counts.get(category.slug) ?? 0,
  }));
}
