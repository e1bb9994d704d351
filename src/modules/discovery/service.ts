import { readerOf, type Principal } from '../../lib/principal.ts';
import type { Clock } from '../../lib/clock.ts';
import { forbidden, notFound } from '../../lib/errors.ts';
import { findCapability, normalizeCapabilityTerm } from '../catalog/index.ts';
import type { AgentRecord, Availability } from '../registry/index.ts';
import { createAgentIndex } from './agent-index.ts';
import type { AgentFilter, AvailabilityFields, VisibilityFields } from './agent-columns.ts';
import { createConceptMapper, mentionedCapabilities } from './concepts.ts';
import type { Embedder } from './embedder.ts';
import { isWeakMatch, MAX_RESULTS, scoreOf } from './ranking.ts';
import { matchedByOf, type MatchedBy } from './matched-by.ts';
import { PART_COUNT, PARTS } from './relevance-scorer.ts';
import type { Candidates } from './relevance-scorer.ts';
import { lazyQueryMap, type QueryMap } from './query-map.ts';
import type { DiscoverQuery } from './schemas.ts';
import { createSentenceEncoder, SENTENCE_ENCODER_MODEL, withRecentVectors, type SentenceEncoder } from './sentence-encoder.ts';
import type { DiscoveryStore } from './store.ts';
import { contentWords, stem, wordsOf } from '../../lib/words.ts';
import { isoNow } from '../../lib/clock.ts';
import type { ClassTrust, TrustLookup } from '../receipts/index.ts';
import { NEUTRAL_TRUST, trustWithSample } from './trust.ts';
import { audienceOf } from './agent-index.ts';

/** What discovery uses of the registry: its one visibility rule and its agent view. */
export interface RegistryView<View> {
  view(agent: AgentRecord): View;
  canSee(agent: AgentRecord, personId: string | null): Promise<boolean>;
  /** The visibility rule, less what is not listed or belongs to a limited account: what search shows. */
  discoverableFor(personId: string | null): (agent: VisibilityFields) => boolean | Promise<boolean>;
  availabilityOf(agent: AvailabilityFields): Availability;
  /** Measured health: an agent that is `down` ranks below the rest. */
  healthOf(agentId: string): { status: string };
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
   * The built-in sentence encoder, when it is the one used. Default: one of discovery's own, closed
   * with it. Given, it is shared with other apps of the process and left open (tests share one:
   * loading its model costs seconds of CPU).
   */
  sharedBuiltInEncoder?: SentenceEncoder;
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
  /** From this many agents a search scores only candidates (RelevanceQuery.nearest); 0: always. Default 5,000. */
  candidatesFrom?: number;
  /**
   * Where the index is saved and restored from at start (docs/operations.md, "Discovery's saved
   * index"); null: never saved, every start reads every agent from the database.
   */
  indexDir?: string | null;
  /** Names `embedder` (its model): an index saved with another is not restored. Default: the built-in word vectors. */
  embedderName?: string;
  clock: Clock;
  /**
   * Whether the viewer moderates the instance: a moderator opening a public agent that is not listed
   * (waiting, rejected, delisted) from the queue sees its page, as its owner does. Default: nobody.
   */
  isModerator?(viewer: Principal): Promise<boolean>;
  /** Told when an embedder fails; search then ranks by the signals left. */
  onEmbedderError?(error: unknown): void;
}

/**
 * A completed task its requester judged, as the tasks module tells it (docs/discovery.md, "Completed
 * work"): rated, or an outcome receipt bound to it received.
 */
export interface CompletedWork {
  taskId: string;
  agentId: string;
  /** The requesting person (for an agent's key, its owner): caps, the opt-out and the owner rule go by them. */
  requesterId: string;
  title: string | null;
  description: string;
  searchQuery: string | null;
  /** The requester's rating, if it gave one. */
  rating: number | null;
  /** The outcome of the bound receipt just received (`success`, `failure`, ...); null when told of a rating. */
  boundOutcome: string | null;
}

/**
 * Whether the requester's verdict makes a completed task evidence: a rating of WORK_MIN_RATING or
 * more, or a bound `success` receipt; a poor rating outweighs any receipt.
 */
function judgedWell(work: Pick<CompletedWork, 'rating' | 'boundOutcome'>): boolean {
  if (work.rating !== null && work.rating < WORK_MIN_RATING) return false;
  return work.boundOutcome === null ? work.rating !== null : work.boundOutcome === 'success';
}

/** Ratings from which a completed task counts. */
export const WORK_MIN_RATING = 4;

interface Candidate {
  /** The agent's slot in the index. */
  slot: number;
  relevance: number;
  /** What the relevance is made of (PARTS), null when browsing. */
  parts: Float64Array | null;
  /** Share of the query's words the agent accounts for (1 when browsing). */
  coverage: number;
  availability: Availability;
  trust: number;
  trustReceipts: number;
  score: number;
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;
/** Lexical hits taken per query: the signal is relative to the best hit, so the long tail adds nothing. */
const LEXICAL_DEPTH = 200;
/**
 * Agents taken from the approximate index per query (when candidates are scored): as many as a
 * search ranks, so that an agent close in meaning is never lost for want of depth.
 */
const NEAREST_CANDIDATES = MAX_RESULTS;
/** What warming searches for: any words do; it runs the encoder, the query map and the scorer once. */
const WARMING_QUERY = 'summarise documents and translate text';
/** Query vectors remembered (a few hundred KB): a repeated query skips the 15-30 ms model run. */
const RECENT_QUERIES = 256;

/** One model for both: agents' batches give way to queries (sentence-worker.ts). A shared one is not closed here. */
function builtInSentenceEncoders(shared: SentenceEncoder | undefined) {
  if (shared) {
    const open = (embedder: Embedder): Embedder => ({ embed: (texts) => embedder.embed(texts) });
    return { queries: open(withRecentVectors(shared, RECENT_QUERIES)), agents: open(shared.background) };
  }
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
  sharedBuiltInEncoder,
  sentenceModel = sentenceEncoders === undefined ? SENTENCE_ENCODER_MODEL : null,
  queryMap,
  candidatesFrom = 5_000,
  indexDir = null,
  embedderName = 'built-in word vectors',
  clock,
  isModerator = async () => false,
  onEmbedderError: report = () => {},
}: DiscoveryDeps<View>) {
  /** Whoever may see the agent, and moderators opening a public agent that is not listed. */
  const mayOpen = async (viewer: Principal | null, agent: AgentRecord): Promise<boolean> =>
    (await registry.canSee(agent, readerOf(viewer))) ||
    (viewer !== null && agent.visibility === 'public' && agent.listing.state !== 'listed' && (await isModerator(viewer)));
  // Searches still running at shutdown see the encoders fail because they were closed: not news.
  let closed = false;
  const onEmbedderError = (error: unknown) => {
    if (!closed) report(error);
  };
  const sentences = sentenceEncoders === undefined ? builtInSentenceEncoders(sharedBuiltInEncoder) : sentenceEncoders;
  const mapFor = queryMapFor(queryMap, sentenceEncoders === undefined, onEmbedderError);
  const concepts = createConceptMapper(embedder);
  const index = createAgentIndex({
    store,
    embedder,
    concepts,
    sentenceEncoder: sentences?.agents ?? null,
    sentenceModel,
    clock,
    onEmbedderError,
    // The vectors saved mean what these models make of texts; an encoder given without a model name is nobody's to reuse.
    saved: indexDir && (sentences === null || sentenceModel !== null) ? { dir: indexDir, key: JSON.stringify({ sentenceModel, embedderName }) } : null,
  });

  async function embedQuery(q: string, using: Embedder | undefined): Promise<Float32Array | null> {
    if (!using) return null;
    try {
      return (await using.embed([q]))[0] ?? null;
    } catch (error) {
      onEmbedderError(error);
      return null;
    }
  }

  /** Each of the query's words alone, for how many of them an agent accounts for (ranking.ts wordCoverage); null when the embedder failed. */
  async function embedWords(words: string[]): Promise<Float32Array[] | null> {
    try {
      return await embedder.embed(words);
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

  function filterOf(query: DiscoverQuery): AgentFilter {
    return {
      category: query.category,
      protocol: query.protocol,
      identityLevel: query.identityLevel,
      capabilityTerm: query.capability ? normalizeCapabilityTerm(query.capability) : undefined,
      capabilitySlug: query.capability ? findCapability(query.capability)?.slug : undefined,
    };
  }

  /**
   * The agents among `only` (slots; null: all) that may be results of `q`, best relevance first, or
   * null when `q` has no words to search by (browse). The query's parts are worked out here; the pass
   * over the agents runs in the scorer (scoring.ts).
   */
  async function candidatesFor(q: string | undefined, only: Int32Array | null): Promise<{ candidates: Candidates; stems: Set<string> } | null> {
    const words = q ? contentWords(q) : [];
    if (!q || words.length === 0) return null;
    const named = mentionedCapabilities(q);
    // Words of the capabilities the query names verbatim widen the lexical query (aliases -> canonical terms).
    const namedWords = named.flatMap((slug) => wordsOf(slug));
    const terms = [...new Set([...words, ...namedWords])];
    // The query's own words, each once (by stem): what an agent must account for.
    const ownWords = [...new Map(words.map((word) => [stem(word), word])).values()];
    const [lexical, workLexical, vector, sentence, wordVectors] = await Promise.all([
      store.lexical(terms, LEXICAL_DEPTH),
      store.workLexical(terms, LEXICAL_DEPTH),
      embedQuery(q, embedder),
      sentenceOf(q),
      embedWords(ownWords),
    ]);
    const queryConcepts = await concepts.conceptsOf(q, vector, named, { scaleByConfidence: true });
    const stems = new Set([...words, ...namedWords].map(stem));
    const candidates = await index.score({
      sentence,
      vector,
      concepts: queryConcepts,
      stems: [...stems],
      words: ownWords.map((word, i) => ({ stem: stem(word), vector: wordVectors?.[i] ?? null })),
      lexical,
      workLexical,
      only,
      maxResults: MAX_RESULTS,
      nearest: index.size() >= candidatesFrom ? NEAREST_CANDIDATES : 0,
    });
    return { candidates, stems };
  }

  /** Whether a result is a weak match (ranking.ts isWeakMatch); browsing, none is. */
  function weakMatchOf(candidate: Candidate): boolean {
    if (!candidate.parts) return false;
    const semantic = Math.max(candidate.parts[PARTS.indexOf('agentSemantic')]!, candidate.parts[PARTS.indexOf('workSemantic')]!);
    return isWeakMatch(candidate.relevance, semantic, candidate.coverage);
  }

  /** Why a result matched (matched-by.ts), by the agent's record; nothing when browsing. */
  function matchedByFor(candidate: Candidate, agent: AgentRecord, queryStems: Set<string>, capabilityFilter: boolean): MatchedBy[] {
    if (!candidate.parts) return capabilityFilter ? ['capabilities'] : [];
    const parts = Object.fromEntries(PARTS.map((part, i) => [part, candidate.parts![i]!])) as Record<(typeof PARTS)[number], number>;
    return matchedByOf(agent, parts, queryStems, capabilityFilter);
  }

  /**
   * Records a completed, well-judged task as evidence for its agent, embedded now so that it is
   * searchable once this resolves. Counts only: a rating of WORK_MIN_RATING or more or a bound
   * success receipt (judgedWell), an agent that still exists and is not owned by the requester, a
   * requester who has not turned the setting off. A task counts once, however many verdicts say so;
   * a poor rating takes back what a success receipt gave. The words are stored for discovery alone:
   * no route ever returns them.
   */
  async function learn(work: CompletedWork): Promise<{ counted: boolean }> {
    if (!judgedWell(work)) {
      if (work.rating !== null && work.rating < WORK_MIN_RATING) await store.forgetTask(work.taskId);
      return { counted: false };
    }
    // Already evidence (a rating and a receipt both said so): nothing to embed again.
    if (await store.hasWork(work.taskId)) return { counted: true };
    const [agent] = await store.agentsByIds([work.agentId]);
    if (!agent || agent.ownerId === work.requesterId || (await store.optedOut(work.requesterId))) return { counted: false };
    const text = [work.title, work.description].filter((part): part is string => Boolean(part && part.trim())).join('. ');
    const searchQuery = work.searchQuery?.trim() || null;
    let vectors: Float32Array[] | null = null;
    // Made now, once: the index reads them from the row on every node. On failure the index makes them.
    if (sentences && sentenceModel) {
      try {
        vectors = await sentences.queries.embed(searchQuery ? [text, searchQuery] : [text]);
      } catch (error) {
        onEmbedderError(error);
      }
    }
    await store.recordWork({
      taskId: work.taskId,
      agentId: agent.id,
      requesterId: work.requesterId,
      text,
      searchQuery,
      audience: audienceOf(agent),
      vectorModel: vectors ? sentenceModel : null,
      vector: vectors?.[0] ?? null,
      queryVector: vectors?.[1] ?? null,
      ratedAt: isoNow(clock),
    });
    return { counted: true };
  }

  /** Settings are a person's own: a key acting as an agent neither reads nor changes its owner's. */
  const personOf = (principal: Principal): string => {
    if (principal.kind !== 'person') throw forbidden("A key acting as an agent cannot read or change its owner's settings");
    return principal.personId;
  };

  // Searches under way, so that closing lets them finish before the scorer stops.
  const searching = new Set<Promise<unknown>>();

  async function search(viewer: Principal | null, query: DiscoverQuery) {
    await index.refresh();
    const { columns } = index;
    const filter = filterOf(query);
    const filtered = Boolean(query.category || query.protocol || query.capability || query.identityLevel);
    const passes = (slot: number) => columns.passes(slot, filter);
    const only = filtered ? Int32Array.from([...index.slots()].filter(passes)) : null;
    const relevant = await candidatesFor(query.q, only);
    const mayBeSeen = registry.discoverableFor(readerOf(viewer));

    // With a query, only the scorer's candidates (those that can make the cut); browsing, every agent.
    type Considered = { slot: number; relevance: number; parts: Float64Array | null; coverage: number };
    const considered: Considered[] = [];
    if (relevant) {
      const { slots, relevance, parts, coverage } = relevant.candidates;
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i]!;
        // An agent removed while the query was scored is left out.
        if (columns.idAt(slot) !== undefined && passes(slot))
          considered.push({ slot, relevance: relevance[i]!, parts: parts.subarray(i * PART_COUNT, (i + 1) * PART_COUNT), coverage: coverage[i]! });
      }
    } else for (const slot of index.slots()) if (passes(slot)) considered.push({ slot, relevance: 1, parts: null, coverage: 1 });
    const pool: Considered[] = [];
    for (const candidate of considered) {
      const visible = mayBeSeen(columns.visibilityAt(candidate.slot));
      if (visible === true || (visible !== false && (await visible))) pool.push(candidate);
    }
    // Neutral trust first: trust is looked up only for the MAX_RESULTS best by relevance and availability.
    const shortlist: Candidate[] = pool
      .map(({ slot, relevance, parts, coverage }) => {
        const availability = registry.availabilityOf(columns.availabilityAt(slot));
        return {
          slot,
          relevance,
          parts,
          coverage,
          availability,
          trust: NEUTRAL_TRUST,
          trustReceipts: 0,
          score: scoreOf(relevance, NEUTRAL_TRUST, availability),
        };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_RESULTS);

    // Only proven keys bring their trust: an agent registered under someone else's key stays neutral.
    const pubkeys = [...new Set(shortlist.map((c) => columns.provenKeyAt(c.slot)).filter((k): k is string => k !== null))];
    const evidence = pubkeys.length > 0 ? await trust.trustBySubject(pubkeys) : new Map<string, ClassTrust[]>();
    const queryStems = new Set([...(relevant?.stems ?? []), ...(query.capability ? wordsOf(query.capability).map(stem) : [])]);
    for (const candidate of shortlist) {
      const key = columns.provenKeyAt(candidate.slot);
      const { trust: classTrust, receipts } = trustWithSample(key ? evidence.get(key) : undefined, queryStems);
      candidate.trust = classTrust;
      candidate.trustReceipts = receipts;
      candidate.score = scoreOf(candidate.relevance, candidate.trust, candidate.availability);
    }
    const idOf = (candidate: Candidate) => columns.idAt(candidate.slot) ?? '';
    const down = (candidate: Candidate) => (registry.healthOf(idOf(candidate)).status === 'down' ? 1 : 0);
    shortlist.sort(
      (a, b) =>
        down(a) - down(b) ||
        b.score - a.score ||
        b.relevance - a.relevance ||
        columns.nameAt(a.slot).localeCompare(columns.nameAt(b.slot)) ||
        idOf(a).localeCompare(idOf(b)),
    );

    const page = shortlist.slice(query.offset, query.offset + query.limit);
    // The page's records from the database: the index keeps no texts or views.
    const ids = page.map(idOf);
    const fresh = new Map((await store.agentsByIds(ids)).map((agent) => [agent.id, agent]));
    const data = page.flatMap((c, i) => {
      const agent = fresh.get(ids[i]!);
      return agent
        ? [
            {
              ...registry.view(agent),
              score: round(c.score),
              relevance: round(c.relevance),
              trust: round(c.trust),
              trustReceipts: c.trustReceipts,
              weakMatch: weakMatchOf(c),
              matchedBy: matchedByFor(c, agent, queryStems, Boolean(query.capability)),
            },
          ]
        : [];
    });
    return {
      data,
      pagination: { limit: query.limit, offset: query.offset, total: shortlist.length, hasMore: query.offset + page.length < shortlist.length },
    };
  }

  // Null until warm() is called (tests that never warm are ready at once); then false until it is done.
  let warmed: boolean | null = null;

  return {
    /**
     * Loads the index (at start), then runs one whole search as an anonymous visitor's (the
     * encoder's model, the candidate index, scoring, trust and the page's views), so that every path
     * a search takes has run before the node says it is ready (searchReady). Search is not ready from
     * this call on, though the work may wait for `begin` (the entry point lets the first answer go first).
     */
    warm(begin: Promise<unknown> = Promise.resolve()): void {
      warmed = false;
      void (async () => {
        await begin;
        await index.refresh();
        await search(null, { q: WARMING_QUERY, limit: 20, offset: 0 });
      })()
        .catch(onEmbedderError)
        // A node whose encoder failed still searches (by the signals left): it is ready all the same.
        .finally(() => (warmed = true));
    },

    /** Whether search is ready: warming (if started) has finished. */
    searchReady: (): boolean => warmed !== false,

    /** Agents found by their words but not yet by meaning: their sentence vectors are still being made. */
    agentsAwaitingMeaning: (): number => index.awaitingSentence(),

    search(viewer: Principal | null, query: DiscoverQuery) {
      const running = search(viewer, query);
      searching.add(running);
      void running.catch(() => {}).finally(() => searching.delete(running));
      return running;
    },

    /**
     * How many agents the viewer may see offer each catalogue capability (as `capability=` filters:
     * declared by slug, name or alias) and are filed under each category: what the catalogue page shows.
     */
    async agentCounts(viewer: Principal | null) {
      await index.refresh();
      const mayBeSeen = registry.discoverableFor(readerOf(viewer));
      const capabilities = new Map<string, number>();
      const categories = new Map<string, number>();
      const { columns } = index;
      for (const slot of index.slots()) {
        const visible = mayBeSeen(columns.visibilityAt(slot));
        if (!(visible === true || (visible !== false && (await visible)))) continue;
        const declared = columns.declaredAt(slot);
        for (const slug of declared) capabilities.set(slug, (capabilities.get(slug) ?? 0) + 1);
        // A category counts the agents filed under it and those offering one of its capabilities, each once:
        // the catalogue page shows it beside those capabilities' own counts.
        const offered = declared.map((slug) => findCapability(slug)?.category).filter((slug) => slug !== undefined);
        for (const slug of new Set([...columns.categoriesAt(slot), ...offered])) categories.set(slug, (categories.get(slug) ?? 0) + 1);
      }
      const listed = (counts: Map<string, number>) => [...counts].map(([slug, agents]) => ({ slug, agents })).sort((a, b) => a.slug.localeCompare(b.slug));
      return { capabilities: listed(capabilities), categories: listed(categories) };
    },

    /**
     * Writes the agent vectors made so far, stops the sentence encoder (searches under way go on
     * without it), lets those searches finish, saves the index (with `indexDir`), then stops the
     * scorer (at shutdown).
     */
    async close() {
      closed = true;
      await index.flush();
      await Promise.all([sentences?.queries.close?.(), sentences?.agents.close?.()]);
      await Promise.allSettled([...searching]);
      await index.save().catch(report);
      await index.close();
    },

    learn,

    /** Account deletion's part: the evidence the account's tasks gave goes, and its setting with it. */
    async forgetAccount(accountId: string) {
      await store.forgetAccount(accountId);
    },

    /** "Let my completed tasks improve search": on unless the person turned it off. */
    async searchSettings(principal: Principal) {
      return { completedTasksImproveSearch: !(await store.optedOut(personOf(principal))) };
    },
    /** Off removes the evidence the person's tasks gave (immediately searchable without it); on counts tasks rated from then on. */
    async updateSearchSettings(principal: Principal, settings: { completedTasksImproveSearch: boolean }) {
      await store.setImprovesSearch(personOf(principal), settings.completedTasksImproveSearch, isoNow(clock));
      return { completedTasksImproveSearch: settings.completedTasksImproveSearch };
    },

    async get(viewer: Principal | null, slug: string) {
      const agent = await store.agentBySlug(slug);
      if (!agent || !(await mayOpen(viewer, agent))) throw notFound('Agent not found');
      const key = agent.provenKey;
      const evidence = key ? (await trust.trustBySubject([key])).get(key) : undefined;
      const { trust: overall, receipts } = trustWithSample(evidence, new Set());
      return { ...registry.view(agent), trust: round(overall), trustReceipts: receipts };
    },
  };
}

export type DiscoveryService = ReturnType<typeof createDiscoveryService>;
