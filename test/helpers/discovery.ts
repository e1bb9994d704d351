/**
 * Discovery on an in-memory store, for unit tests that exercise the service's ranking without a
 * database: agents as records, no trust, everyone offline, everything visible.
 */
import { systemClock } from '../../src/lib/clock.ts';
import { createWordVectorEmbedder } from '../../src/modules/discovery/embedder.ts';
import { createDiscoveryService, type DiscoveryDeps } from '../../src/modules/discovery/service.ts';
import type { DiscoveryStore } from '../../src/modules/discovery/store.ts';
import type { AgentRecord } from '../../src/modules/registry/index.ts';

/** The fields of an agent that search reads (the view is just the id). */
export function agentRecord(agent: { id: string; name: string; description: string; capabilities?: string[]; tags?: string[] }): AgentRecord {
  return {
    id: agent.id,
    name: agent.name,
    slug: agent.id,
    description: agent.description,
    capabilities: agent.capabilities ?? [],
    tags: agent.tags ?? [],
    examples: [],
    categories: [],
    protocols: [],
    visibility: 'public',
    listing: { state: 'listed', reason: null, since: null },
    ownerLimited: false,
    ownerId: null,
    orgId: null,
    status: 'active',
    verifiedDomain: null,
    deliveryMode: 'webhook',
    lastSeenAt: null,
    lastPolledAt: null,
    provenKey: null,
  } as unknown as AgentRecord;
}

function memoryStore(agents: AgentRecord[]): DiscoveryStore {
  return {
    lexical: async () => new Map(),
    workLexical: async () => new Map(),
    agentChanges: { last: async () => 0, since: async () => [] },
    workChanges: { last: async () => 0, since: async () => [] },
    workEvidence: async () => [],
    agentsPage: async (afterId: string | null, limit: number) =>
      [...agents]
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .filter((agent) => afterId === null || agent.id > afterId)
        .slice(0, limit),
    agentsByIds: async (ids: string[]) => agents.filter((agent) => ids.includes(agent.id)),
    agentBySlug: async (slug: string) => agents.find((agent) => agent.slug === slug),
    seenSince: async () => [],
    sentenceVectors: async () => [],
    saveSentenceVectors: async () => {},
    deleteSentenceVectors: async () => {},
    deleteOrphanSentenceVectors: async () => {},
  } as unknown as DiscoveryStore;
}

/** One word table per test process: loading it is the slow part, and the embedder keeps no other state. */
const sharedWordVectors = createWordVectorEmbedder();

/** Discovery over a store (in memory, or a real one): no trust, everyone offline, everything visible. */
export function discoveryOver(
  store: DiscoveryStore,
  options: Pick<DiscoveryDeps<{ id: string }>, 'sentenceEncoders' | 'sentenceModel' | 'queryMap' | 'onEmbedderError' | 'indexDir'>,
) {
  return createDiscoveryService({
    store,
    registry: {
      view: (agent) => ({ id: agent.id }),
      canSee: async () => true,
      discoverableFor: () => () => true,
      availabilityOf: () => 'offline',
      healthOf: () => ({ status: 'unknown' }),
    },
    trust: { trustBySubject: async () => new Map() },
    embedder: sharedWordVectors,
    clock: systemClock,
    ...options,
  });
}

/** A search function over `agents`: the ids found for a query, best first; `close` stops the service. */
export function memorySearch(agents: AgentRecord[], options: Pick<DiscoveryDeps<{ id: string }>, 'sentenceEncoders' | 'queryMap' | 'onEmbedderError'>) {
  const service = discoveryOver(memoryStore(agents), options);
  const search = async (q: string) => (await service.search(null, { q, limit: 10, offset: 0 })).data.map((found) => found.id);
  return Object.assign(search, { close: () => service.close() });
}
