import type { Principal } from '../../lib/principal.ts';
import type { Clock } from '../../lib/clock.ts';
import { notFound } from '../../lib/errors.ts';
import { findCapability, normalizeCapabilityTerm } from '../catalog/index.ts';
import { provenKeyOf, type Availability } from '../registry/index.ts';
import { createAgentIndex, type IndexedAgent } from './agent-index.ts';
import { conceptSimilarity, createConceptMapper, dot, mentionedCapabilities } from './concepts.ts';
import type { Embedder } from './embedder.ts';
import { MAX_RESULTS, MIN_RELEVANCE, queryCoverage, RELATIVE_RELEVANCE_FLOOR, relevanceOf, SCORE_WEIGHTS, scoreOf, sentenceSimilarity } from './ranking.ts';
import { lazyQueryMap, type QueryMap } from './query-map.ts';
import type { DiscoverQuery } from './schemas.ts';
import { createSentenceEncoder, SENTENCE_ENCODER_MODEL, withRecentVectors } from './sentence-encoder.ts';
import type { AgentRow, DiscoveryStore } from './store.ts';
import { contentWords, stem, wordsOf } from './tokenize.ts';
import type { ClassTrust, TrustLookup } from '../receipts/index.ts';
import { NEUTRAL_TRUST, trustWithSample } from './trust.ts';

/** What discovery uses of the registry: its one visibility rule and its agent view. */
export interface RegistryView<View> {
  view(row: AgentRow): View;
  canSee(row: AgentRow, personId: string | null): Promise<boolean>;
  visibilityFor(personId: string | null): (row: AgentRow) => boolean | Promise<boolean>;
  availabilityOf(row: AgentRow): Availability;
}

export interface DiscoveryDeps<View> {
  store: DiscoveryStore;
  registry: RegistryView<View>;
  trust: TrustLookup;
  embedder: Embedder;
  /**
   * The semantic signal's encoder, for queries and for agents (two instances, so a query never
   * waits behind a batch of agents). Default: the built-in sentence encoder; null: none, the
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

const builtInSentenceEncoders = () => ({ queries: withRecentVectors(createSentenceEncoder(), RECENT_QUERIES), agents: createSentenceEncoder() });

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
      (!query.category || agent.categories.includes(query.category)) &&
      (!query.protocol || agent.protocols.includes(query.protocol)) &&
      (!capabilityTerm || agent.terms.has(capabilityTerm) || (capability !== undefined && agent.declared.includes(capability)));
  }

  /**
   * Relevance of each of `agents` to `q` (by position; 0 = not a result), or null when `q` has no
   * words to search by (browse). The hot loop of a search: one pass, no allocation per agent.
   */
  async function relevanceByAgent(q: string | undefined, agents: IndexedAgent[]): Promise<{ relevance: Float64Array; stems: Set<string> } | null> {
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
    let bestLexical = 0;
    for (const score of lexical.values()) bestLexical = Math.max(bestLexical, score);

    const sentenceCosines = sentence ? index.sentenceSimilarities(sentence) : null;
    const relevance = new Float64Array(agents.length);
    let best = 0;
    for (let i = 0; i < agents.length; i++) {
      const agent = agents[i]!;
      const hit = lexical.get(agent.row.id);
      const lexicalScore = hit && bestLexical > 0 ? (hit / bestLexical) * queryCoverage(stems, agent.stems) : 0;
      // The sentence encoder where both sides have its vector, else the word-vector embedder.
      const semantic =
        sentenceCosines && agent.sentenceSlot >= 0 ? sentenceSimilarity(sentenceCosines[agent.sentenceSlot]!) : vector ? (agent.vector ? dot(vector, agent.vector) : 0) : null;
      const value = relevanceOf(semantic, lexicalScore, conceptSimilarity(queryConcepts, agent.concepts));
      relevance[i] = value;
      if (value > best) best = value;
    }
    const floor = Math.max(MIN_RELEVANCE, RELATIVE_RELEVANCE_FLOOR * best);
    for (let i = 0; i < relevance.length; i++) if (relevance[i]! < floor) relevance[i] = 0;
    return { relevance, stems };
  }

  return {
    async search(viewer: Principal | null, query: DiscoverQuery) {
      await index.refresh();
      const passes = filterFor(query);
      const matching = [...index.agents()].filter(passes);
      const relevant = await relevanceByAgent(query.q, matching);
      const mayBeSeen = registry.visibilityFor(viewer?.personId ?? null);

      // Trust and availability scale relevance by SCORE_WEIGHTS.base..1: an agent below base x the
      // MAX_RESULTS-th best relevance cannot make the cut, whatever its trust.
      let cut = Number.MIN_VALUE;
      if (relevant) {
        const ranked = relevant.relevance.filter((r) => r > 0).sort();
        if (ranked.length > MAX_RESULTS) cut = ranked[ranked.length - MAX_RESULTS]! * SCORE_WEIGHTS.base;
      }
      const pool: { agent: IndexedAgent; relevance: number }[] = [];
      for (const [i, agent] of matching.entries()) {
        const relevance = relevant ? relevant.relevance[i]! : 1;
        if (relevance < cut) continue;
        const visible = mayBeSeen(agent.row);
        if (visible === true || (visible !== false && (await visible))) pool.push({ agent, relevance });
      }
      // Neutral trust first: trust is looked up only for the MAX_RESULTS best by relevance and availability.
      const shortlist: Candidate[] = pool
        .map(({ agent, relevance }) => {
          const availability = registry.availabilityOf(agent.row);
          return { agent, relevance, availability, trust: NEUTRAL_TRUST, trustReceipts: 0, score: scoreOf(relevance, NEUTRAL_TRUST, availability) };
        })
        .sort((a, b) => b.score - a.score)
        .slice(0, MAX_RESULTS);

      // Only proven keys bring their trust: an agent registered under someone else's key stays neutral.
      const pubkeys = [...new Set(shortlist.map((c) => provenKeyOf(c.agent.row)).filter((k): k is string => k !== null))];
      const evidence = pubkeys.length > 0 ? await trust.trustBySubject(pubkeys) : new Map<string, ClassTrust[]>();
      const queryStems = new Set([...(relevant?.stems ?? []), ...(query.capability ? wordsOf(query.capability).map(stem) : [])]);
      for (const candidate of shortlist) {
        const key = provenKeyOf(candidate.agent.row);
        const { trust: classTrust, receipts } = trustWithSample(key ? evidence.get(key) : undefined, queryStems);
        candidate.trust = classTrust;
        candidate.trustReceipts = receipts;
        candidate.score = scoreOf(candidate.relevance, candidate.trust, candidate.availability);
      }
      shortlist.sort((a, b) => b.score - a.score || b.relevance - a.relevance || a.agent.row.name.localeCompare(b.agent.row.name) || a.agent.row.id.localeCompare(b.agent.row.id));

      const page = shortlist.slice(query.offset, query.offset + query.limit);
      // Views come from fresh rows: endpoint, docs and other fields search does not index may have changed.
      const fresh = new Map((await store.agentsByIds(page.map((c) => c.agent.row.id))).map((row) => [row.id, row]));
      const data = page.flatMap((c) => {
        const row = fresh.get(c.agent.row.id);
        return row ? [{ ...registry.view(row), score: round(c.score), relevance: round(c.relevance), trust: round(c.trust), trustReceipts: c.trustReceipts }] : [];
      });
      return {
        data,
        pagination: { limit: query.limit, offset: query.offset, total: shortlist.length, hasMore: query.offset + page.length < shortlist.length },
      };
    },

    /** Writes the agent vectors made so far, then stops the sentence encoder's workers (at shutdown). */
    async close() {
      closed = true;
      await index.flush();
      await Promise.all([sentences?.queries.close?.(), sentences?.agents.close?.()]);
    },

    async get(viewer: Principal | null, slug: string) {
      const row = await store.agentBySlug(slug);
      if (!row || !(await registry.canSee(row, viewer?.personId ?? null))) throw notFound('Agent not found');
      const key = provenKeyOf(row);
      const evidence = key ? (await trust.trustBySubject([key])).get(key) : undefined;
      const { trust: overall, receipts } = trustWithSample(evidence, new Set());
      return { ...registry.view(row), trust: round(overall), trustReceipts: receipts };
    },
  };
}

export type DiscoveryService = ReturnType<typeof createDiscoveryService>;
