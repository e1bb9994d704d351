/**
 * The ARD registry API (`/ard`: search, explore, a deterministic listing) and the AI Catalog at
 * `/.well-known/ai-catalog.json`, over this registry's public agents (docs/interop.md).
 */
import { AppError } from '../../lib/errors.ts';
import type { AgentRecord, Availability } from '../registry/index.ts';
import { CATALOG_TYPE, createCatalog, type CatalogEntry } from './catalog.ts';

/** Agents per catalog document; a larger registry nests the next page as a catalog entry. */
export const CATALOG_PAGE = 200;
/** How many ranked results a search filters and pages through (discovery's own bound). */
const SEARCH_DEPTH = 500;
/** A listing with a filter reads the public agents in chunks of this many, up to LISTING_MAX. */
const LISTING_CHUNK = 1000;
const LISTING_MAX = 20_000;

export interface RankedAgent {
  id: string;
  relevance: number;
  trust: number;
  availability: Availability;
}

export interface ArdDeps {
  publicUrl: string;
  publicAgents(afterSlug: string | null, limit: number): Promise<AgentRecord[]>;
  findMany(ids: string[]): Promise<AgentRecord[]>;
  /** Public agents ranked for `text` by discovery, best first. */
  rank(text: string, limit: number): Promise<RankedAgent[]>;
  availabilityOf(agent: AgentRecord): Availability;
}

export type FilterValues = Record<string, string | string[]>;

interface Item {
  entry: CatalogEntry;
  agent: AgentRecord;
  availability: Availability;
}

const invalid = (message: string, path: string) => new AppError('BAD_REQUEST', message, [{ path, message }]);

/** Offsets travel as opaque tokens. */
const encodeToken = (offset: number) => Buffer.from(`o:${offset}`).toString('base64url');
function decodeToken(token: string | undefined, path: string): number {
  if (token === undefined || token === '') return 0;
  const match = /^o:(0|[1-9]\d{0,6})$/.exec(/^[A-Za-z0-9_-]{1,40}$/.test(token) ? Buffer.from(token, 'base64url').toString() : '');
  if (!match) throw invalid('pageToken is not one this registry gave out', path);
  return Number(match[1]);
}

/** The values a field has for an item: ARD's own entry fields by dotted path, and this registry's facets by name. */
function valuesAt(item: Item, field: string): string[] {
  switch (field) {
    case 'category':
    case 'categories':
      return item.agent.categories;
    case 'capability':
    case 'capabilities':
      return item.agent.capabilities;
    case 'protocol':
    case 'protocols':
      return item.agent.protocols;
    case 'availability':
      return [item.availability];
    case 'tag':
      return item.agent.tags;
  }
  let value: unknown = item.entry;
  for (const part of field.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, part)) return [];
    value = (value as Record<string, unknown>)[part];
  }
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean').map(String);
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? [String(value)] : [];
}

/** Every key's values must meet the item's (any one of them, without regard to case). */
function matches(item: Item, filter: FilterValues | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([field, wanted]) => {
    const have = new Set(valuesAt(item, field).map((v) => v.toLowerCase()));
    return (Array.isArray(wanted) ? wanted : [wanted]).some((w) => have.has(w.toLowerCase()));
  });
}

/** `path = 'value'` terms joined by AND: the part of ARD's filter grammar this registry answers. */
function parseListingFilter(expression: string | undefined): FilterValues | undefined {
  if (expression === undefined || expression.trim() === '') return undefined;
  const filter: Record<string, string[]> = {};
  for (const term of expression.split(/\s+AND\s+/i)) {
    const match = /^\s*([A-Za-z][A-Za-z0-9_.-]*)\s*=\s*'([^']*)'\s*$/.exec(term);
    if (!match) {
      throw invalid(`filter term "${term.trim().slice(0, 80)}" is not of the form field = 'value' (terms joined by AND)`, '/querystring/filter');
    }
    (filter[match[1]!] ??= []).push(match[2]!);
  }
  return filter;
}

const ORDERS = {
  identifier: (e: CatalogEntry) => e.identifier,
  displayName: (e: CatalogEntry) => e.displayName.toLowerCase(),
  updatedAt: (e: CatalogEntry) => e.updatedAt ?? '',
};

function parseOrder(orderBy: string | undefined): { key: keyof typeof ORDERS; descending: boolean } {
  if (orderBy === undefined || orderBy.trim() === '') return { key: 'identifier', descending: false };
  const match = /^\s*(identifier|displayName|updatedAt)(?:\s+(ASC|DESC))?\s*$/i.exec(orderBy);
  const key = match ? (Object.keys(ORDERS).find((k) => k.toLowerCase() === match[1]!.toLowerCase()) as keyof typeof ORDERS) : undefined;
  if (!match || !key) throw invalid('orderBy is one of identifier, displayName, updatedAt, optionally followed by ASC or DESC', '/querystring/orderBy');
  return { key, descending: match[2]?.toUpperCase() === 'DESC' };
}

export function createArdService(deps: ArdDeps) {
  const catalog = createCatalog(deps.publicUrl);
  const source = `${deps.publicUrl}/ard`;
  const itemOf = (agent: AgentRecord): Item => ({ entry: catalog.entryOf(agent), agent, availability: deps.availabilityOf(agent) });

  /** Every public agent, by slug (bounded). */
  async function allItems(): Promise<Item[]> {
    const items: Item[] = [];
    let after: string | null = null;
    while (items.length < LISTING_MAX) {
      const chunk = await deps.publicAgents(after, LISTING_CHUNK);
      items.push(...chunk.map(itemOf));
      if (chunk.length < LISTING_CHUNK) break;
      after = chunk[chunk.length - 1]!.slug;
    }
    return items;
  }

  /** Public agents ranked for `text`, with their relevance and trust, in discovery's order. */
  async function ranked(text: string): Promise<(Item & { relevance: number; trust: number })[]> {
    const ranking = await deps.rank(text, SEARCH_DEPTH);
    const records = new Map((await deps.findMany(ranking.map((r) => r.id))).map((agent) => [agent.id, agent]));
    return ranking.flatMap((r) => {
      const agent = records.get(r.id);
      return agent && agent.visibility === 'public' && agent.listing.state === 'listed'
        ? [{ ...itemOf(agent), availability: r.availability, relevance: r.relevance, trust: r.trust }]
        : [];
    });
  }

  return {
    /** The catalog document: page 1 at /.well-known/ai-catalog.json, later pages nested under /ard/catalog/<n>. */
    async catalogPage(page: number) {
      let after: string | null = null;
      // Pages are read by slug; page n starts after page n-1's last slug.
      for (let skipped = 1; skipped < page; skipped++) {
        const previous = await deps.publicAgents(after, CATALOG_PAGE);
        if (previous.length < CATALOG_PAGE) throw new AppError('NOT_FOUND', `The catalog has no page ${page}`);
        after = previous[previous.length - 1]!.slug;
      }
      const agents = await deps.publicAgents(after, CATALOG_PAGE + 1);
      if (page > 1 && agents.length === 0) throw new AppError('NOT_FOUND', `The catalog has no page ${page}`);
      const entries = agents.slice(0, CATALOG_PAGE).map(catalog.entryOf);
      if (agents.length > CATALOG_PAGE) entries.push(catalog.nextPageEntry(page + 1));
      return {
        specVersion: '1.0' as const,
        host: { displayName: `Agentry registry at ${catalog.host}`, documentationUrl: `${deps.publicUrl}/docs` },
        entries,
      };
    },

    async search(request: { query: { text: string; filter?: FilterValues }; pageSize?: number; pageToken?: string }) {
      const offset = decodeToken(request.pageToken, '/body/pageToken');
      const pageSize = request.pageSize ?? 10;
      const hits = (await ranked(request.query.text)).filter((item) => matches(item, request.query.filter));
      const page = hits.slice(offset, offset + pageSize);
      return {
        results: page.map((hit) => ({
          ...hit.entry,
          // Relevance alone: ARD's score is never a trust score; trust travels beside it.
          score: Math.max(0, Math.min(100, Math.round(hit.relevance * 100))),
          source,
          trust: hit.trust,
          availability: hit.availability,
        })),
        ...(offset + page.length < hits.length ? { pageToken: encodeToken(offset + page.length) } : {}),
      };
    },

    async explore(request: {
      query?: { text?: string; filter?: FilterValues };
      resultType: { facets: { field: string; limit?: number; minCount?: number }[] };
    }) {
      const text = request.query?.text?.trim();
      const items = (text ? await ranked(text) : await allItems()).filter((item) => matches(item, request.query?.filter));
      const facets: Record<string, { buckets: { value: string; count: number }[]; otherCount?: number }> = {};
      for (const facet of request.resultType.facets) {
        const counts = new Map<string, number>();
        for (const item of items) for (const value of new Set(valuesAt(item, facet.field))) counts.set(value, (counts.get(value) ?? 0) + 1);
        const buckets = [...counts]
          .filter(([, count]) => count >= (facet.minCount ?? 1))
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
          .map(([value, count]) => ({ value, count }));
        const limit = facet.limit ?? 20;
        const shown = buckets.slice(0, limit);
        const other = buckets.slice(limit).reduce((sum, b) => sum + b.count, 0);
        facets[facet.field] = { buckets: shown, ...(other > 0 ? { otherCount: other } : {}) };
      }
      return { resultType: 'facets' as const, facets };
    },

    async list(query: { filter?: string; orderBy?: string; pageSize: number; pageToken?: string }) {
      const filter = parseListingFilter(query.filter);
      const order = parseOrder(query.orderBy);
      const offset = decodeToken(query.pageToken, '/querystring/pageToken');
      const key = ORDERS[order.key];
      const items = (await allItems()).filter((item) => matches(item, filter));
      items.sort((a, b) => {
        const ka = key(a.entry);
        const kb = key(b.entry);
        const byKey = ka < kb ? -1 : ka > kb ? 1 : 0;
        return (order.descending ? -byKey : byKey) || (a.entry.identifier < b.entry.identifier ? -1 : 1);
      });
      const page = items.slice(offset, offset + query.pageSize);
      return {
        items: page.map((item) => item.entry),
        total: items.length,
        ...(offset + page.length < items.length ? { pageToken: encodeToken(offset + page.length) } : {}),
      };
    },
  };
}

export type ArdService = ReturnType<typeof createArdService>;
export { CATALOG_TYPE };
