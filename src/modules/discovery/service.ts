import type { Principal } from '../../lib/principal.ts';
import type { Clock } from '../../lib/clock.ts';
import { notFound } from '../../lib/errors.ts';
import { findCapability, normalizeCapabilityTerm } from '../catalog/index.ts';
import type { AgentRecord, Availability } from '../registry/index.ts';
import { createAgentIndex, type IndexedAgent } from './agent-index.ts';
import { createConceptMapper, mentionedCapabilities } from './concepts.ts';
import type { Embedder } from './embedder.ts';
import { MAX_RESULTS, scoreOf } from './ranking.ts';
import type { Candidates } from './relevance-scorer.ts';
import { lazyQueryMap, type QueryMap } from './query-map.ts';
import type { DiscoverQuery } from './schemas.ts';
import { createSentenceEncoder, SENTENCE_ENCODER_MODEL, withRecentVectors } from './sentence-encoder.ts';
import type { DiscoveryStore } from './store.ts';
import { contentWords, stem, wordsOf } from '../../lib/words.ts';
import type { ClassTrust, TrustLookup } from '../receipts/index.ts';
import { NEUTRAL_TRUST, trustWithSample } from './trust.ts';

/** What discovery uses of the registry: its one visibility rule and its agent view. */
export interface RegistryView<View> {
  view(agent: AgentRecord): View;
  canSee(agent: AgentRecord, personId: string | null): Promise<boolean>;
  visibilityFor(personId: string | null): (agent: AgentRecord) => boolean | Promise<boolean>;
  availabilityOf(agent: AgentRecord): Availability;
}

export interface DiscoveryDeps<View> {
  store: DiscoveryStore;
  registry: RegistryView<View>;
  trust: TrustLookup;
  embedder: Embedder;
  /**
   * The semantic signal's encoder, for queries and for agents (the built-in one runs both on one
   * model, a query going before waiting agent batches). Default: the built-in sentence encoder; null: none, the
   * semantic signal uses `embedder` (as it does for any agent or query the encoder fails on).
   */
  sentenceEncoders?: { queries: Embedder; agents: Embedder } | null;
  /**
   * The sentence encoder's model, under which agents' vectors are stored in the database for other
   * nodes and later starts. Default: the built-in encoder's, when it is used; null: not stored.
   */
  sentenceModel?: string | null;
  /**
   * Applied to query sentence vectors (query-map.ts). Default: assets/query-map.bin, read on the
   * first query, and only with the built-in sentence encoder, the vector space it was fitted in;
   * null: none.
   */
  queryMap?: QueryMap | null;
  clock: Clock;
  /** Told when an embedder fails; search then ranks by the signals left. */
  onEmbedderError?(error: unknown): void;
}

interface Candidate {
  agent: IndexedAgent;
  relevance: number;
  availability: Availability;
  trust: number;
  trustReceipts: number;
  score: number;
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;
/** Lexical hits taken per query: the signal is relative to the best hit, so the long tail adds nothing. */
const LEXICAL_DEPTH = 200;
/** Query vectors remembered (a few hundred KB): a repeated query skips the 15-30 ms model run. */
const RECENT_QUERIES = 256;

/** One model for both: agents' batches give way to queries (sentence-worker.ts). */
function builtInSentenceEncoders() {
  const encoder = createSentenceEncoder();
  return { queries: withRecentVectors(encoder, RECENT_QUERIES), agents: encoder.background };
}

/** The map given, else the shipped one, which only fits the built-in encoder's vector space. */
function queryMapFor(given: QueryMap | null | undefined, builtInEncoder: boolean, onError: (error: unknown) => void): () => QueryMap | null {
  if (given !== undefined) return () => given;
  return builtInEncoder ? lazyQueryMap(onError) : () => null;
}

export function createDiscoveryService<View extends object>({
  store,
  registry,
  trust,
  embedder,
  sentenceEncoders,
  sentenceModel = sentenceEncoders === undefined ? SENTENCE_ENCODER_MODEL : null,
  queryMap,
  clock,
  onEmbedderError: report = () => {},
}: DiscoveryDeps<View>) {
  // Searches still running at shutdown see the encoders fail because they were closed: not news.
  let closed = false;
  const onEmbedderError = (error: unknown) => {
    if (!closed) report(error);
  };
  const sentences = sentenceEncoders === undefined ? builtInSentenceEncoders() : sentenceEncoders;
  const mapFor = queryMapFor(queryMap, sentenceEncoders === undefined, onEmbedderError);
  const concepts = createConceptMapper(embedder);
  const index = createAgentIndex({ store, embedder, concepts, sentenceEncoder: sentences?.agents ?? null, sentenceModel, clock, onEmbedderError });

  async function embedQuery(q: string, using: Embedder | undefined): Promise<Float32Array | null> {
    if (!using) return null;
    try {
      return (await using.embed([q]))[0] ?? null;
    } catch (error) {
      onEmbedderError(error);
      return null;
    }
  }

  /** The query's sentence vector, moved towards how agents describe themselves (query-map.ts). */
  async function sentenceOf(q: string): Promise<Float32Array | null> {
    const vector = await embedQuery(q, sentences?.queries);
    const map = vector ? mapFor() : null;
    return vector && map ? map.apply(vector) : vector;
  }

  function filterFor(query: DiscoverQuery) {
    const capability = query.capability ? findCapability(query.capability)?.slug : undefined;
    const capabilityTerm = query.capability ? normalizeCapabilityTerm(query.capability) : undefined;
    return (agent: IndexedAgent): boolean =>
      (!query.category || agent.record.categories.includes(query.category)) &&
      (!query.protocol || agent.record.protocols.includes(query.protocol)) &&
      (!capabilityTerm || agent.terms.has(capabilityTerm) || (capability !== undefined && agent.declared.includes(capability)));
  }

  /**
   * The agents among `agents` (null: all) that may be results of `q`, best relevance first, or null
   * when `q` has no words to search by (browse). The query's parts are worked out here; the pass over
   * every agent runs in the scorer (scoring.ts).
   */
  async function candidatesFor(q: string | undefined, agents: IndexedAgent[] | null): Promise<{ candidates: Candidates; stems: Set<string> } | null> {
    const words = q ? contentWords(q) : [];
    if (!q || words.length === 0) return null;
    const named = mentionedCapabilities(q);
    // Words of the capabilities the query names verbatim widen the lexical query (aliases -> canonical terms).
    const namedWords = named.flatMap((slug) => wordsOf(slug));
    const [lexical, vector, sentence] = await Promise.all([
      store.lexical([...new Set([...words, ...namedWords])], LEXICAL_DEPTH),
      embedQuery(q, embedder),
      sentenceOf(q),
    ]);
    const queryConcepts = await concepts.conceptsOf(q, vector, named, { scaleByConfidence: true });
    const stems = new Set([...words, ...namedWords].map(stem));
    const candidates = await index.score({ sentence, vector, concepts: queryConcepts, stems: [...stems], lexical, only: agents, maxResults: MAX_RESULTS });
    return { candidates, stems };
  }

  // Searches under way, so that closing lets them finish before the scorer stops.
  const searching = new Set<Promise<unknown>>();

  async function search(viewer: Principal | null, query: DiscoverQuery) {
    await index.refresh();
    const filtered = Boolean(query.category || query.protocol || query.capability);
    const passes = filterFor(query);
    const relevant = await candidatesFor(query.q, filtered ? [...index.agents()].filter(passes) : null);
    const mayBeSeen = registry.visibilityFor(viewer?.personId ?? null);

    // With a query, only the scorer's candidates (those that can make the cut); browsing, every agent.
    const considered: { agent: IndexedAgent; relevance: number }[] = [];
    if (relevant) {
      const { slots, relevance } = relevant.candidates;
      for (let i = 0; i < slots.length; i++) {
        const agent = index.agentAt(slots[i]!);
        // An agent replaced while the query was scored is left out, not shown under another's score.
        if (agent && passes(agent)) considered.push({ agent, relevance: relevance[i]! });
      }
    } else for (const agent of index.agents()) if (passes(agent)) considered.push({ agent, relevance: 1 });
    const pool: { agent: IndexedAgent; relevance: number }[] = [];
    for (const { agent, relevance } of considered) {
      const visible = mayBeSeen(agent.record);
      if (visible === true || (visible !== false && (await visible))) pool.push({ agent, relevance });
    }
    // Neutral trust first: trust is looked up only for the MAX_RESULTS best by relevance and availability.
    const shortlist: Candidate[] = pool
      .map(({ agent, relevance }) => {
        const availability = registry.availabilityOf(agent.record);
        return { agent, relevance, availability, trust: NEUTRAL_TRUST, trustReceipts: 0, score: scoreOf(relevance, NEUTRAL_TRUST, availability) };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_RESULTS);

    // Only proven keys bring their trust: an agent registered under someone else's key stays neutral.
    const pubkeys = [...new Set(shortlist.map((c) => c.agent.record.provenKey).filter((k): k is string => k !== null))];
    const evidence = pubkeys.length > 0 ? await trust.trustBySubject(pubkeys) : new Map<string, ClassTrust[]>();
    const queryStems = new Set([...(relevant?.stems ?? []), ...(query.capability ? wordsOf(query.capability).map(stem) : [])]);
    for (const candidate of shortlist) {
      const key = candidate.agent.record.provenKey;
      const { trust: classTrust, receipts } = trustWithSample(key ? evidence.get(key) : undefined, queryStems);
      candidate.trust = classTrust;
      candidate.trustReceipts = receipts;
      candidate.score = scoreOf(candidate.relevance, candidate.trust, candidate.availability);
    }
    shortlist.sort(
      (a, b) =>
        b.score - a.score ||
        b.relevance - a.relevance ||
        a.agent.record.name.localeCompare(b.agent.record.name) ||
        a.agent.record.id.localeCompare(b.agent.record.id),
    );

    const page = shortlist.slice(query.offset, query.offset + query.limit);
    // Views come from fresh records: endpoint, docs and other fields search does not index may have changed.
    const fresh = new Map((await store.agentsByIds(page.map((c) => c.agent.record.id))).map((agent) => [agent.id, agent]));
    const data = page.flatMap((c) => {
      const agent = fresh.get(c.agent.record.id);
      return agent
        ? [{ ...registry.view(agent), score: round(c.score), relevance: round(c.relevance), trust: round(c.trust), trustReceipts: c.trustReceipts }]
        : [];
    });
    return {
      data,
      pagination: { limit: query.limit, offset: query.offset, total: shortlist.length, hasMore: query.offset + page.length < shortlist.length },
    };
  }

  return {
    /** Loads the index now (at start), so the first search does not wait for it. */
    warm(): void {
      void index.refresh().catch(onEmbedderError);
    },

    search(viewer: Principal | null, query: DiscoverQuery) {
      const running = search(viewer, query);
      searching.add(running);
      void running.catch(() => {}).finally(() => searching.delete(running));
      return running;
    },

    /**
     * Writes the agent vectors made so far, stops the sentence encoder (searches under way go on
     * without it), lets those searches finish, then stops the scorer (at shutdown).
     */
    async close() {
      closed = true;
      await index.flush();
      await Promise.all([sentences?.queries.close?.(), sentences?.agents.close?.()]);
      await Promise.allSettled([...searching]);
      await index.close();
    },

    async get(viewer: Principal | null, slug: string) {
      const agent = await store.agentBySlug(slug);
      if (!agent || !(await registry.canSee(agent, viewer?.personId ?? null))) throw notFound('Agent not found');
      const key = agent.provenKey;
      const evidence = key ? (await trust.trustBySubject([key])).get(key) : undefined;
      const { trust: overall, receipts } = trustWithSample(evidence, new Set());
      return { ...registry.view(agent), trust: round(overall), trustReceipts: receipts };
    },
  };
}

export type DiscoveryService = ReturnType<typeof createDiscoveryService>;
