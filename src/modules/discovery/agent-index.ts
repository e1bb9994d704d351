/**
 * Every agent, in memory: its record and filter terms here, and what relevance needs (embeddings,
 * catalogue concepts, stemmed words) in the scorer (scoring.ts), which runs on a worker thread. Kept
 * fresh from the database on each search, so it is exact across nodes:
 *  - agent writes: the registry's trigger-written change log (`agent_changes`) is read from this node's
 *    last position; changed agents are reloaded, deleted ones dropped;
 *  - heartbeats (which do not touch the log): rows seen since the last look, by an indexed column.
 * A search waits for a refresh that started after it arrived, so a write that committed before the
 * search began is always visible to it (read-your-writes, on any node).
 */
import { createHash } from 'node:crypto';
import { normalizeCapabilityTerm } from '../catalog/index.ts';
import type { AgentRecord } from '../registry/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { createTurnBatches } from '../../lib/turn-batches.ts';
import { declaredCapabilities, type ConceptMapper, type Concepts } from './concepts.ts';
import type { Embedder } from './embedder.ts';
import type { Candidates, RelevanceQuery, ScoredWork } from './relevance-scorer.ts';
import { createScorer } from './scoring.ts';
import { createSentenceVectors } from './sentence-vectors.ts';
import type { ChangeLog, DiscoveryStore, StoredSentenceVector, WorkEvidence } from './store.ts';
import { contentWords, stem } from '../../lib/words.ts';

export interface IndexedAgent {
  record: AgentRecord;
  /** Capability and tag terms, normalised like the catalogue's. */
  terms: Set<string>;
  /** Catalogue slugs the agent declares through those terms. */
  declared: string[];
  /** What is embedded: name, description, capabilities, tags, examples. */
  text: string;
  /** Its place in the scorer, kept while the agent is in the index. */
  slot: number;
  /** Whether the scorer has its sentence-encoder vector (until then ranking uses its word vector). */
  hasSentence: boolean;
  /** Whether completed work counts for it. */
  hasWork?: boolean;
}

/**
 * On PostgreSQL, sequence numbers are taken before commit, so a lower number can commit after a
 * higher one was read. Skipped numbers are looked for again until they appear or this long has
 * passed (a rolled-back insert never fills its number).
 */
const GAP_RETRY_MS = 60_000;
const LOAD_LOOKBACK = 100;
/** How far back, and how often, heartbeats are re-read (see applyHeartbeats). */
const HEARTBEAT_OVERLAP_MS = 5_000;
/** How long agents the embedder failed on wait before it is tried on them again. */
const EMBED_RETRY_MS = 30_000;
/** Agents indexed between turns of the event loop: a node's first load (seconds of CPU at 10,000) must not hold up requests. */
const AGENTS_PER_TURN = 100;

/** What is embedded of an agent: what it says it is, and the requests it says it is for. */
export const agentText = (agent: Pick<AgentRecord, 'name' | 'description' | 'capabilities' | 'tags' | 'examples'>): string =>
  [agent.name, agent.description, ...agent.capabilities, ...agent.tags, ...agent.examples].join(' ');

/**
 * Whom an agent is visible to, as completed work records it: evidence given while an agent was
 * private or an org's improves only what that audience sees, so it counts only while the agent
 * still has that audience (public evidence always counts).
 */
export const audienceOf = (agent: Pick<AgentRecord, 'visibility' | 'orgId'>): string =>
  agent.visibility === 'org' ? `org:${agent.orgId ?? ''}` : agent.visibility;

export interface AgentIndexDeps {
  store: DiscoveryStore;
  embedder: Embedder;
  concepts: ConceptMapper;
  /** Null: no sentence encoder, agents rank by `vector` alone. */
  sentenceEncoder: Embedder | null;
  /**
   * The encoder's model (its vector space): vectors are stored in the database under it, and reused
   * by nodes starting later and by other nodes. Null: vectors are kept in memory only.
   */
  sentenceModel: string | null;
  clock: Clock;
  onEmbedderError(error: unknown): void;
  /** Score on the request thread instead of a worker (tests that count what runs). */
  scoreInProcess?: boolean;
}

export function createAgentIndex({
  store,
  embedder,
  concepts,
  sentenceEncoder,
  sentenceModel,
  clock,
  onEmbedderError,
  scoreInProcess = false,
}: AgentIndexDeps) {
  const agents = new Map<string, IndexedAgent>();
  // Slots in the scorer: by slot, and those free to hand out again.
  const bySlot: (IndexedAgent | undefined)[] = [];
  const freeSlots: number[] = [];
  // A scorer that lost its agents (its worker died) gets them all again from a full load.
  const scorer = createScorer({ inProcess: scoreInProcess, onError: onEmbedderError, onReset: () => reset() });
  // Vectors are stored only when there is an encoder and a model to key them by.
  const storesVectors = sentenceEncoder !== null && sentenceModel !== null;
  const textHash = (text: string) => createHash('sha256').update(`${sentenceModel}\n${text}`).digest('hex');
  // Written after the fact, never awaited by a search; a failed write only means embedding again later.
  const writes = new Set<Promise<void>>();
  const saving = createTurnBatches<StoredSentenceVector>(100, (vectors) => {
    const write = store.saveSentenceVectors(vectors).catch(onEmbedderError);
    writes.add(write);
    void write.finally(() => writes.delete(write));
  });
  const sentences = sentenceEncoder
    ? createSentenceVectors<IndexedAgent>({
        encoder: sentenceEncoder,
        isCurrent: (agent) => agents.get(agent.record.id) === agent,
        store: (agent, vector) => {
          agent.hasSentence = true;
          scorer.setSentence(agent.slot, vector);
          if (storesVectors) saving.add({ agentId: agent.record.id, textHash: textHash(agent.text), vector });
        },
        onError: onEmbedderError,
      })
    : null;

  /** Stored vectors of these agents (all when no ids are given), by agent id. */
  async function storedSentences(ids?: string[]): Promise<Map<string, StoredSentenceVector>> {
    if (!storesVectors) return new Map();
    try {
      return new Map((await store.sentenceVectors(ids)).map((stored) => [stored.agentId, stored]));
    } catch (error) {
      onEmbedderError(error);
      return new Map();
    }
  }
  let loaded = false;
  const agentLog = followChanges(store.agentChanges, clock);
  // Completed work (docs/discovery.md, "Completed work"): its own change log, read like the agents'.
  const workLog = followChanges(store.workChanges, clock);
  let seenMark: string | null = null;
  let lastSweep = 0;
  const unembedded = new Set<string>();
  let lastEmbedRetry = 0;

  async function embedRecords(records: AgentRecord[]): Promise<(Float32Array | null)[]> {
    if (records.length === 0) return [];
    try {
      return await embedder.embed(records.map(agentText));
    } catch (error) {
      onEmbedderError(error);
      lastEmbedRetry = clock.now().getTime();
      return records.map(() => null);
    }
  }

  /** `firstLoad`: a node's first load, whose new texts may be embedded before it ends (sentence-vectors.ts); later ones never are. */
  async function upsert(records: AgentRecord[], stored: Map<string, StoredSentenceVector>, firstLoad: boolean): Promise<void> {
    const vectors = await embedRecords(records);
    const newText: IndexedAgent[] = [];
    const stillWaiting: IndexedAgent[] = [];
    for (const [i, record] of records.entries()) {
      if (i > 0 && i % AGENTS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      const vector = vectors[i] ?? null;
      const text = agentText(record);
      const terms = [...record.capabilities, ...record.tags];
      const declared = declaredCapabilities(terms);
      if (vector) unembedded.delete(record.id);
      else unembedded.add(record.id);
      // Most changes (status, endpoint, price) leave the text alone: its sentence vector still holds.
      const previous = agents.get(record.id);
      const sameText = previous?.text === text;
      const agent: IndexedAgent = {
        record,
        terms: new Set(terms.map(normalizeCapabilityTerm)),
        declared,
        text,
        slot: previous?.slot ?? freeSlots.pop() ?? bySlot.length,
        hasSentence: sameText ? previous.hasSentence : false,
        hasWork: previous?.hasWork ?? false,
      };
      agents.set(record.id, agent);
      bySlot[agent.slot] = agent;
      const agentConcepts: Concepts = await concepts.conceptsOf(text, vector, declared);
      scorer.put(agent.slot, { vector, stems: [...new Set(contentWords(text).map(stem))], concepts: agentConcepts }, sameText);
      const kept = sameText ? undefined : stored.get(record.id);
      if (kept && kept.vector.length > 0 && kept.textHash === textHash(text)) {
        agent.hasSentence = true;
        scorer.setSentence(agent.slot, kept.vector);
      } else if (!sameText) newText.push(agent);
      else if (!agent.hasSentence) stillWaiting.push(agent);
      noteSeen(record.lastSeenAt);
    }
    sentences?.later(stillWaiting);
    if (firstLoad) await sentences?.firstLoad(newText);
    else sentences?.later(newText);
  }

  /**
   * Gives the scorer the completed work of `agentIds` (`evidence` holds all of theirs; an agent
   * without any gets none). Evidence is embedded when its rating is given; a row without vectors of
   * this model (the encoder failed then, or the model changed) is embedded here and stored back.
   */
  async function putWork(agentIds: Iterable<string>, evidence: WorkEvidence[]): Promise<void> {
    const texts = (e: WorkEvidence) => [e.text, ...(e.searchQuery ? [e.searchQuery] : [])];
    if (sentenceEncoder) {
      const missing = evidence.filter((e) => !e.vector || e.vectorModel !== sentenceModel || sentenceModel === null);
      if (missing.length > 0) {
        try {
          const vectors = await sentenceEncoder.embed(missing.flatMap(texts));
          let at = 0;
          for (const e of missing) {
            e.vector = vectors[at++]!;
            e.queryVector = e.searchQuery ? vectors[at++]! : null;
            e.vectorModel = sentenceModel;
          }
          if (storesVectors) {
            const write = store
              .saveWorkVectors(missing.map((e) => ({ taskId: e.taskId, model: sentenceModel!, vector: e.vector!, queryVector: e.queryVector })))
              .catch(onEmbedderError);
            writes.add(write);
            void write.finally(() => writes.delete(write));
          }
        } catch (error) {
          onEmbedderError(error);
          for (const e of missing) e.vector = e.queryVector = null;
        }
      }
    }
    let wordVectors: Float32Array[] = [];
    try {
      wordVectors = evidence.length > 0 ? await embedder.embed(evidence.flatMap(texts)) : [];
    } catch (error) {
      onEmbedderError(error);
    }
    const byAgent = new Map<string, ScoredWork>();
    let at = 0;
    for (const e of evidence) {
      const words = texts(e);
      const vectors = words.map((_, i) => wordVectors[at + i]).filter((v): v is Float32Array => v !== undefined);
      at += words.length;
      const agent = agents.get(e.agentId);
      if (!agent || (e.audience !== 'public' && e.audience !== audienceOf(agent.record))) continue;
      const sentencesOf = [e.vector, e.queryVector].filter((v): v is Float32Array => v !== null && v.length > 0);
      const work = byAgent.get(e.agentId) ?? { items: [], stems: [] };
      work.items.push({ sentences: sentencesOf, vectors });
      work.stems.push(...words.flatMap((text) => contentWords(text).map(stem)));
      byAgent.set(e.agentId, work);
    }
    for (const id of agentIds) {
      const work = byAgent.get(id) ?? { items: [], stems: [] };
      work.stems = [...new Set(work.stems)];
      const agent = agents.get(id);
      if (agent) {
        agent.hasWork = work.items.length > 0;
        scorer.setWork(agent.slot, work);
      }
    }
  }

  function noteSeen(lastSeenAt: string | null): void {
    if (lastSeenAt && (!seenMark || lastSeenAt > seenMark)) seenMark = lastSeenAt;
  }

  async function load(): Promise<void> {
    // The log position is taken first: whatever changes during the load is read again next time.
    await agentLog.start();
    await workLog.start();
    const records = await store.allAgents();
    if (storesVectors) await store.deleteOrphanSentenceVectors().catch(onEmbedderError);
    await upsert(records, await storedSentences(), true);
    const evidence = await store.workEvidence();
    await putWork(new Set(evidence.map((e) => e.agentId)), evidence);
    loaded = true;
  }

  async function applyChanges(): Promise<void> {
    const changedWork = await applyAgentChanges();
    for (const id of await workLog.changed()) changedWork.add(id);
    if (changedWork.size > 0) await putWork(changedWork, await store.workEvidence([...changedWork]));
  }

  /** Applies the agents' log; answers the agents whose audience changed (their work counts anew). */
  async function applyAgentChanges(): Promise<Set<string>> {
    const now = clock.now().getTime();
    // Agents the embedder failed on are tried again now and then, not on every search: while it is
    // down, each try costs a failing call and the concepts of every one of them, inline.
    const retry = unembedded.size > 0 && now - lastEmbedRetry >= EMBED_RETRY_MS;
    if (retry) lastEmbedRetry = now;
    const changed = new Set<string>(retry ? unembedded : []);
    for (const id of await agentLog.changed()) changed.add(id);
    if (changed.size === 0) return new Set();
    const records = await store.agentsByIds([...changed]);
    const newAudience = new Set(
      records
        .filter((record) => {
          const previous = agents.get(record.id);
          return previous !== undefined && audienceOf(previous.record) !== audienceOf(record);
        })
        .map((record) => record.id),
    );
    const found = new Set(records.map((r) => r.id));
    const deleted = [...changed].filter((id) => !found.has(id));
    for (const id of deleted) {
      const agent = agents.get(id);
      if (agent) {
        scorer.remove(agent.slot);
        bySlot[agent.slot] = undefined;
        freeSlots.push(agent.slot);
      }
      agents.delete(id);
      unembedded.delete(id);
    }
    if (deleted.length > 0 && storesVectors) void store.deleteSentenceVectors(deleted).catch(onEmbedderError);
    // Another node may have embedded the new texts already.
    const newTexts = records.filter((record) => agents.get(record.id)?.text !== agentText(record)).map((record) => record.id);
    await upsert(records, newTexts.length > 0 ? await storedSentences(newTexts) : new Map<string, StoredSentenceVector>(), false);
    return newAudience;
  }

  /**
   * Heartbeats newer than the newest seen, on every search; and once per HEARTBEAT_OVERLAP_MS also
   * those up to that much older, for commits that landed out of order or came from a node whose clock
   * runs behind. (Availability changes on a scale of minutes; this bounds how late a heartbeat shows.)
   */
  async function applyHeartbeats(): Promise<void> {
    const now = clock.now().getTime();
    const sweep = now - lastSweep >= HEARTBEAT_OVERLAP_MS;
    if (sweep) lastSweep = now;
    const mark = seenMark ?? new Date(0).toISOString();
    const since = sweep ? new Date(Date.parse(mark) - HEARTBEAT_OVERLAP_MS).toISOString() : mark;
    for (const seen of await store.seenSince(since)) {
      const agent = agents.get(seen.id);
      if (agent) {
        const { lastSeenAt, lastPolledAt, reportedStatus, reportedLoad } = seen;
        agent.record = { ...agent.record, lastSeenAt, lastPolledAt, reportedStatus, reportedLoad };
      }
      noteSeen(seen.lastSeenAt);
    }
  }

  /** Forgets every agent: the next refresh loads them all again (into a scorer that lost them). */
  function reset(): void {
    agents.clear();
    bySlot.length = 0;
    freeSlots.length = 0;
    unembedded.clear();
    loaded = false;
  }

  async function refreshOnce(): Promise<void> {
    if (!loaded) await load();
    else await applyChanges();
    await applyHeartbeats();
  }

  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;

  /** Resolves once a refresh that started after this call has finished. */
  function refresh(): Promise<void> {
    if (!running) {
      running = refreshOnce().finally(() => (running = null));
      return running;
    }
    // The refresh under way may have read the log before this caller's writes: queue one more, shared.
    next ??= running
      .catch(() => {})
      .then(() => {
        next = null;
        return refresh();
      });
    return next;
  }

  return {
    refresh,
    agents: (): Iterable<IndexedAgent> => agents.values(),
    size: (): number => agents.size,
    /** Agents waiting for their sentence vector (ranked by their words until it comes). */
    awaitingSentence: (): number => sentences?.waiting() ?? 0,
    /** Writes the vectors made so far (at shutdown: what was computed is kept). */
    async flush(): Promise<void> {
      saving.flush();
      await Promise.all(writes);
    },
    /** The agent in a scorer slot (of the candidates `score` found). */
    agentAt: (slot: number): IndexedAgent | undefined => bySlot[slot],
    /** Agents that may make a query's results, best first (relevance-scorer.ts). */
    score: (
      query: Omit<RelevanceQuery, 'lexicalSlots' | 'lexicalScores' | 'workLexicalSlots' | 'workLexicalScores' | 'only'> & {
        lexical: Map<string, number>;
        workLexical?: Map<string, number>;
        only: IndexedAgent[] | null;
      },
    ): Promise<Candidates> => {
      const slotted = (found: Map<string, number>) =>
        [...found].flatMap(([id, score]) => {
          const agent = agents.get(id);
          return agent ? [{ slot: agent.slot, score }] : [];
        });
      const hits = slotted(query.lexical);
      const workHits = slotted(query.workLexical ?? new Map<string, number>());
      return scorer.score({
        sentence: query.sentence,
        vector: query.vector,
        concepts: query.concepts,
        stems: query.stems,
        words: query.words,
        maxResults: query.maxResults,
        lexicalSlots: Int32Array.from(hits, (hit) => hit.slot),
        lexicalScores: Float64Array.from(hits, (hit) => hit.score),
        workLexicalSlots: Int32Array.from(workHits, (hit) => hit.slot),
        workLexicalScores: Float64Array.from(workHits, (hit) => hit.score),
        only: query.only ? Int32Array.from(query.only, (agent) => agent.slot) : null,
        nearest: query.nearest ?? 0,
      });
    },
    close: () => scorer.close(),
  };
}

export type AgentIndex = ReturnType<typeof createAgentIndex>;

/**
 * Follows a change log from where a node's load read it. A sequence number skipped on the way may
 * belong to a transaction still committing (PostgreSQL hands out numbers before commit), so it is
 * asked for again until it shows up or GAP_RETRY_MS passes; so are the numbers just below the
 * position taken at load.
 */
function followChanges(log: ChangeLog, clock: Clock) {
  let position = 0;
  const gaps = new Map<number, number>();
  return {
    /** Takes the log's end as the position; to be called before the load reads what it covers. */
    async start(): Promise<void> {
      position = await log.last();
      const now = clock.now().getTime();
      for (let seq = Math.max(1, position - LOAD_LOOKBACK + 1); seq <= position; seq++) gaps.set(seq, now);
    },
    /** The agents changed since the last call. */
    async changed(): Promise<Set<string>> {
      const changes = await log.since(position, [...gaps.keys()]);
      const now = clock.now().getTime();
      const changed = new Set<string>();
      for (const change of changes) {
        changed.add(change.agentId);
        gaps.delete(change.seq);
        if (change.seq > position) {
          for (let missing = position + 1; missing < change.seq; missing++) gaps.set(missing, now);
          position = change.seq;
        }
      }
      for (const [seq, since] of gaps) if (now - since > GAP_RETRY_MS) gaps.delete(seq);
      return changed;
    },
  };
}
