/**
 * Discovery on an in-memory store, for unit tests that exercise the service's ranking without a
 * database: agents as rows, no trust, everyone offline, everything visible.
 */
import { systemClock } from '../../src/lib/clock.ts';
import { createWordVectorEmbedder } from '../../src/modules/discovery/embedder.ts';
import { createDiscoveryService, type DiscoveryDeps } from '../../src/modules/discovery/service.ts';
import type { AgentRow, DiscoveryStore } from '../../src/modules/discovery/store.ts';

export function agentRow(agent: { id: string; name: string; description: string; capabilities?: string[]; tags?: string[] }): AgentRow {
  return {
    id: agent.id,
    name: agent.name,
    slug: agent.id,
    description: agent.description,
    capabilities: JSON.stringify(agent.capabilities ?? []),
    tags: JSON.stringify(agent.tags ?? []),
    categories: '[]',
    protocols: '[]',
    visibility: 'public',
    last_seen_at: null,
    registration_pubkey: null,
    key_verified_at: null,
  } as unknown as AgentRow;
}

function memoryStore(rows: AgentRow[]): DiscoveryStore {
  return {
    lexical: async () => new Map(),
    lastChange: async () => 0,
    changesSince: async () => [],
    allAgents: async () => rows,
    agentsByIds: async (ids: string[]) => rows.filter((row) => ids.includes(row.id)),
    agentBySlug: async (slug: string) => rows.find((row) => row.slug === slug),
    seenSince: async () => [],
    sentenceVectors: async () => [],
    saveSentenceVectors: async () => {},
    deleteSentenceVectors: async () => {},
    deleteOrphanSentenceVectors: async () => {},
  } as unknown as DiscoveryStore;
}

/** Discovery over a store (in memory, or a real one): no trust, everyone offline, everything visible. */
export function discoveryOver(
  store: DiscoveryStore,
  options: Pick<DiscoveryDeps<{ id: string }>, 'sentenceEncoders' | 'sentenceModel' | 'queryMap' | 'onEmbedderError'>,
) {
  return createDiscoveryService({
    store,
    registry: { view: (row) => ({ id: row.id }), canSee: async () => true, visibilityFor: () => () => true, availabilityOf: () => 'offline' },
    trust: { trustBySubject: async () => new Map() },
    embedder: createWordVectorEmbedder(),
    clock: systemClock,
    ...options,
  });
}

/** A search function over `rows`: the ids found for a query, best first; `close` stops the service. */
export function memorySearch(rows: AgentRow[], options: Pick<DiscoveryDeps<{ id: string }>, 'sentenceEncoders' | 'queryMap' | 'onEmbedderError'>) {
  const service = discoveryOver(memoryStore(rows), options);
  const search = async (q: string) => (await service.search(null, { q, limit: 10, offset: 0 })).data.map((found) => found.id);
  return Object.assign(search, { close: () => service.close() });
}
