/**
 * Every agent, in memory: what search filters and orders by here (agent-columns.ts, packed by slot),
 * and what relevance needs (embeddings, catalogue concepts, stemmed words) in the scorer (scoring.ts),
 * which runs on a worker thread. Agents' texts and views stay in the database. Kept fresh from the
 * database on each search, so it is exact across nodes:
 *  - agent writes: the registry's trigger-written change log (`agent_changes`) is read from this node's
 *    last position; changed agents are reloaded, deleted ones dropped;
 *  - heartbeats (which do not touch the log): rows seen since the last look, by an indexed column.
 * A search waits for a refresh that started after it arrived, so a write that committed before the
 * search began is always visible to it (read-your-writes, on any node).
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentRecord } from '../registry/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { createTurnBatches } from '../../lib/turn-batches.ts';
import { createAgentColumns } from './agent-columns.ts';
import { declaredCapabilities, type ConceptMapper, type Concepts } from './concepts.ts';
import type { Embedder } from './embedder.ts';
import { readPackedFile, writePackedFile } from './packed-file.ts';
import { SCORER_FILES_PREFIX, type Candidates, type RelevanceQuery, type ScoredWork } from './relevance-scorer.ts';
import { createScorer } from './scoring.ts';
import { createSentenceVectors } from './sentence-vectors.ts';
import type { ChangeLog, DiscoveryStore, StoredSentenceVector, WorkEvidence } from './store.ts';
import { contentWords, stem } from '../../lib/words.ts';

/** The saved index's file of agents (beside the scorer's, relevance-scorer.ts), and what it says of itself. */
const AGENTS_FILE = 'discovery-agents.bin';
const SAVED_FORMAT = 1;
interface SavedIndex {
  format: number;
  key: string;
  /** Of this save: the scorer's files carry it too. */
  generation: string;
  /** The agents' change log as far as the saved index reflects it. */
  log: { position: number; gaps: number[] };
  seenMark: string | null;
  nextSlot: number;
  freeSlots: number[];
  unembedded: string[];
}

/** An agent's text waiting for its sentence vector: current while its slot holds that agent with that text. */
interface WaitingText {
  id: string;
  slot: number;
  text: string;
  key: number;
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
/** Agents read from the database at a time by a node's first load (all at once, a million records would take gigabytes). */
const LOAD_PAGE = 500;
/** Changes applied at start (after a restore) from which the index is saved again at once. */
const SAVE_AFTER_CHANGES = 10_000;

/** A key of a text (the first 52 bits of its SHA-256): whether an agent's embedded text changed. */
const textKeyOf = (text: string): number => Number.parseInt(createHash('sha256').update(text).digest('hex').slice(0, 13), 16);

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
  /**
   * Where the index is saved (at shutdown, and after a start that read every agent from the
   * database) and restored from at start, then brought up to date from the change log; null: never
   * saved, every start reads every agent. `key` names what the vectors mean (the models): a saved
   * index of another key is not used.
   */
  saved?: { dir: string; key: string } | null;
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
  saved = null,
}: AgentIndexDeps) {
  const columns = createAgentColumns();
  const freeSlots: number[] = [];
  let nextSlot = 0;
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
    ? createSentenceVectors<WaitingText>({
        encoder: sentenceEncoder,
        isCurrent: (waiting) => columns.slotOf(waiting.id) === waiting.slot && columns.textKeyAt(waiting.slot) === waiting.key,
        store: (waiting, vector) => {
          columns.setHasSentence(waiting.slot, true);
          scorer.setSentence(waiting.slot, vector);
          if (storesVectors) saving.add({ agentId: waiting.id, textHash: textHash(waiting.text), vector });
        },
        onError: onEmbedderError,
      })
    : null;

  /** Stored vectors of these agents, by agent id. */
  async function storedSentences(ids: string[]): Promise<Map<string, StoredSentenceVector>> {
    if (!storesVectors || ids.length === 0) return new Map();
    try {
      return new Map((await store.sentenceVectors(ids)).map((stored) => [stored.agentId, stored]));
    } catch (error) {
      onEmbedderError(error);
      return new Map();
    }
  }
  let loaded = false;
  // Agents changed since the index was last saved or restored.
  let changedSinceSave = 0;
  // The refresh under way, and the refresh queued after it.
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  // The last save asked for: saves run one after another.
  let lastSave: Promise<void> = Promise.resolve();
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

  /**
   * Indexes `records` (new or changed), giving the scorer the stored sentence vectors of those whose
   * text changed; answers the texts still to embed: new ones, and those that were waiting already.
   */
  async function upsert(records: AgentRecord[], stored: Map<string, StoredSentenceVector>): Promise<{ newText: WaitingText[]; stillWaiting: WaitingText[] }> {
    const vectors = await embedRecords(records);
    const newText: WaitingText[] = [];
    const stillWaiting: WaitingText[] = [];
    for (const [i, record] of records.entries()) {
      if (i > 0 && i % AGENTS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      const vector = vectors[i] ?? null;
      const text = agentText(record);
      const key = textKeyOf(text);
      const terms = [...record.capabilities, ...record.tags];
      const declared = declaredCapabilities(terms);
      if (vector) unembedded.delete(record.id);
      else unembedded.add(record.id);
      // Most changes (status, endpoint, price) leave the text alone: its sentence vector still holds.
      const previous = columns.slotOf(record.id);
      const sameText = previous !== undefined && columns.textKeyAt(previous) === key;
      const slot = previous ?? freeSlots.pop() ?? nextSlot++;
      columns.set(slot, record, declared, key);
      const agentConcepts: Concepts = await concepts.conceptsOf(text, vector, declared);
      scorer.put(slot, { vector, stems: [...new Set(contentWords(text).map(stem))], concepts: agentConcepts }, sameText);
      const kept = sameText ? undefined : stored.get(record.id);
      const waiting = { id: record.id, slot, text, key };
      if (kept && kept.vector.length > 0 && kept.textHash === textHash(text)) {
        columns.setHasSentence(slot, true);
        scorer.setSentence(slot, kept.vector);
      } else if (!sameText) newText.push(waiting);
      else if (!columns.hasSentence(slot)) stillWaiting.push(waiting);
      noteSeen(record.lastSeenAt);
    }
    return { newText, stillWaiting };
  }

  /**
   * Queues the texts to embed; a node's first load (`firstLoad`) may embed its few new texts before it
   * ends (sentence-vectors.ts), later ones never are.
   */
  async function embedWaiting({ newText, stillWaiting }: { newText: WaitingText[]; stillWaiting: WaitingText[] }, firstLoad: boolean): Promise<void> {
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
      const slot = columns.slotOf(e.agentId);
      if (slot === undefined || (e.audience !== 'public' && e.audience !== audienceOf(columns.visibilityAt(slot)))) continue;
      const sentencesOf = [e.vector, e.queryVector].filter((v): v is Float32Array => v !== null && v.length > 0);
      const work = byAgent.get(e.agentId) ?? { items: [], stems: [] };
      work.items.push({ sentences: sentencesOf, vectors });
      work.stems.push(...words.flatMap((text) => contentWords(text).map(stem)));
      byAgent.set(e.agentId, work);
    }
    for (const id of agentIds) {
      const work = byAgent.get(id) ?? { items: [], stems: [] };
      work.stems = [...new Set(work.stems)];
      const slot = columns.slotOf(id);
      if (slot !== undefined) scorer.setWork(slot, work);
    }
  }

  function noteSeen(lastSeenAt: string | null): void {
    if (lastSeenAt && (!seenMark || lastSeenAt > seenMark)) seenMark = lastSeenAt;
  }

  async function load(): Promise<void> {
    // The log positions are taken first: whatever changes during the load is read again next time.
    await workLog.start();
    const restored = await restore();
    if (restored) {
      await applyAgentChanges();
      await resumeEmbedding();
    } else {
      await agentLog.start();
      if (storesVectors) await store.deleteOrphanSentenceVectors().catch(onEmbedderError);
      const waiting = { newText: [] as WaitingText[], stillWaiting: [] as WaitingText[] };
      for (let after: string | null = null; ;) {
        const page = await store.agentsPage(after, LOAD_PAGE);
        const indexed = await upsert(page, await storedSentences(page.map((record) => record.id)));
        waiting.newText.push(...indexed.newText);
        waiting.stillWaiting.push(...indexed.stillWaiting);
        // The scorer catches up before the next page: messages queued for it would hold their copies of every vector.
        await scorer.settled();
        if (page.length < LOAD_PAGE) break;
        after = page.at(-1)!.id;
      }
      await embedWaiting(waiting, true);
    }
    const evidence = await store.workEvidence();
    await putWork(new Set(evidence.map((e) => e.agentId)), evidence);
    loaded = true;
    // The next start restores this instead of reading every agent (or many changes) again.
    if (saved && (!restored || changedSinceSave >= SAVE_AFTER_CHANGES)) void save().catch(onSaveError);
  }

  const onSaveError = (error: unknown) =>
    onEmbedderError(new Error(`discovery: the index was not saved (${String(error)}); the next start reads every agent`, { cause: error }));

  /**
   * Restores the index saved under `saved.dir` (index files of one save, of the same key, and of a
   * change log at least as long as the one saved): answers whether it did. A file that cannot be
   * used leaves the index empty, to be loaded from the database.
   */
  async function restore(): Promise<boolean> {
    const path = saved && join(saved.dir, AGENTS_FILE);
    if (!saved || !path || !existsSync(path)) return false;
    try {
      const { meta, arrays } = readPackedFile(path);
      const state = meta as SavedIndex;
      if (state.format !== SAVED_FORMAT || state.key !== saved.key) return false;
      // Another database, or this one restored from an older backup: the saved agents are not its.
      if ((await store.agentChanges.last()) < state.log.position) return false;
      columns.restore(arrays);
      await scorer.restore(saved.dir, state.generation);
      freeSlots.push(...state.freeSlots);
      nextSlot = state.nextSlot;
      seenMark = state.seenMark;
      for (const id of state.unembedded) unembedded.add(id);
      agentLog.startAt(state.log);
      return true;
    } catch (error) {
      onEmbedderError(new Error(`discovery: the saved index could not be used (${String(error)}); reading every agent from the database`, { cause: error }));
      columns.reset();
      freeSlots.length = 0;
      nextSlot = 0;
      seenMark = null;
      unembedded.clear();
      return false;
    }
  }

  /**
   * Writes the index under `saved.dir`: the scorer's files of a new save, then this file, which names
   * it (the last thing written: a save cut short leaves the previous one whole). Saves run one at a
   * time; searches and refreshes go on meanwhile.
   */
  function save(): Promise<void> {
    const run = lastSave.catch(() => {}).then(saveOnce);
    lastSave = run;
    return run;
  }

  async function saveOnce(): Promise<void> {
    // Nothing to save before the first load has finished (a shutdown during it does not wait for it).
    if (!saved || !loaded) return;
    const { dir, key } = saved;
    await mkdir(dir, { recursive: true });
    // A refresh half done would leave the log position ahead of the agents indexed: wait for it.
    while (running) await running.catch(() => {});
    // From here to the scorer's save message, nothing waits: both sides are taken in the same state.
    const generation = randomUUID();
    const arrays = columns.snapshot();
    const state: SavedIndex = {
      format: SAVED_FORMAT,
      key,
      generation,
      log: agentLog.state(),
      seenMark,
      nextSlot,
      freeSlots: [...freeSlots],
      unembedded: [...unembedded],
    };
    changedSinceSave = 0;
    await scorer.save(dir, generation);
    writePackedFile(join(dir, AGENTS_FILE), state, arrays);
    // The files of earlier saves (and of any cut short) go once this one is complete.
    for (const name of await readdir(dir))
      if (
        (name.startsWith(SCORER_FILES_PREFIX) && !name.startsWith(`${SCORER_FILES_PREFIX}${generation}.`)) ||
        (name.startsWith(`${AGENTS_FILE}.`) && name.endsWith('.tmp'))
      )
        await rm(join(dir, name), { force: true });
  }

  /** Indexes the agents of `ids` as the database has them now (`records`: those not deleted); answers the texts still to embed. */
  async function upsertChanged(ids: string[], records: AgentRecord[]): Promise<{ newText: WaitingText[]; stillWaiting: WaitingText[] }> {
    const found = new Set(records.map((r) => r.id));
    const deleted = ids.filter((id) => !found.has(id));
    for (const id of deleted) {
      const slot = columns.slotOf(id);
      if (slot !== undefined) {
        scorer.remove(slot);
        columns.clear(slot);
        freeSlots.push(slot);
      }
      unembedded.delete(id);
    }
    if (deleted.length > 0 && storesVectors) void store.deleteSentenceVectors(deleted).catch(onEmbedderError);
    // Another node may have embedded the new texts already.
    const newTexts = records
      .filter((record) => {
        const slot = columns.slotOf(record.id);
        return slot === undefined || columns.textKeyAt(slot) !== textKeyOf(agentText(record));
      })
      .map((record) => record.id);
    return upsert(records, await storedSentences(newTexts));
  }

  /**
   * After a restore: agents saved without their sentence vector get the one stored since (another
   * node embedded them), or are embedded in the background.
   */
  async function resumeEmbedding(): Promise<void> {
    if (!sentences) return;
    const ids = [...columns.slots()].filter((slot) => !columns.hasSentence(slot)).map((slot) => columns.idAt(slot)!);
    for (let from = 0; from < ids.length; from += LOAD_PAGE) {
      const chunk = ids.slice(from, from + LOAD_PAGE);
      const [records, stored] = await Promise.all([store.agentsByIds(chunk), storedSentences(chunk)]);
      const waiting: WaitingText[] = [];
      for (const record of records) {
        const slot = columns.slotOf(record.id)!;
        const text = agentText(record);
        const key = textKeyOf(text);
        // Changed since it was saved: the change log brought it in already.
        if (columns.textKeyAt(slot) !== key) continue;
        const kept = stored.get(record.id);
        if (kept && kept.vector.length > 0 && kept.textHash === textHash(text)) {
          columns.setHasSentence(slot, true);
          scorer.setSentence(slot, kept.vector);
        } else waiting.push({ id: record.id, slot, text, key });
      }
      sentences.later(waiting);
    }
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
    changedSinceSave += changed.size;
    // In pages: after a restore the log may name most agents (a node down while many registered).
    const newAudience = new Set<string>();
    const waiting = { newText: [] as WaitingText[], stillWaiting: [] as WaitingText[] };
    const ids = [...changed];
    for (let from = 0; from < ids.length; from += LOAD_PAGE) {
      const chunk = ids.slice(from, from + LOAD_PAGE);
      const records = await store.agentsByIds(chunk);
      for (const record of records) {
        const previous = columns.slotOf(record.id);
        if (previous !== undefined && audienceOf(columns.visibilityAt(previous)) !== audienceOf(record)) newAudience.add(record.id);
      }
      const indexed = await upsertChanged(chunk, records);
      waiting.newText.push(...indexed.newText);
      waiting.stillWaiting.push(...indexed.stillWaiting);
      if (ids.length > LOAD_PAGE) await scorer.settled();
    }
    await embedWaiting(waiting, false);
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
      const slot = columns.slotOf(seen.id);
      if (slot !== undefined) columns.setSeen(slot, seen.lastSeenAt, seen.lastPolledAt);
      noteSeen(seen.lastSeenAt);
    }
  }

  /** Forgets every agent: the next refresh loads them all again (into a scorer that lost them). */
  function reset(): void {
    columns.reset();
    freeSlots.length = 0;
    nextSlot = 0;
    unembedded.clear();
    loaded = false;
  }

  async function refreshOnce(): Promise<void> {
    if (!loaded) await load();
    else await applyChanges();
    await applyHeartbeats();
  }

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
    save,
    /** What search reads of each agent, by slot. */
    columns,
    /** Every slot holding an agent. */
    slots: (): Iterable<number> => columns.slots(),
    size: (): number => nextSlot - freeSlots.length,
    /** Agents waiting for their sentence vector (ranked by their words until it comes). */
    awaitingSentence: (): number => sentences?.waiting() ?? 0,
    /** Writes the vectors made so far (at shutdown: what was computed is kept). */
    async flush(): Promise<void> {
      saving.flush();
      await Promise.all(writes);
    },
    /** Agents that may make a query's results, best first (relevance-scorer.ts). */
    score: (
      query: Omit<RelevanceQuery, 'lexicalSlots' | 'lexicalScores' | 'workLexicalSlots' | 'workLexicalScores'> & {
        lexical: Map<string, number>;
        workLexical?: Map<string, number>;
      },
    ): Promise<Candidates> => {
      const slotted = (found: Map<string, number>) =>
        [...found].flatMap(([id, score]) => {
          const slot = columns.slotOf(id);
          return slot === undefined ? [] : [{ slot, score }];
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
        only: query.only,
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
    /**
     * Takes up the log from a saved index's `state`: the numbers that were
     * missing then, and those just below the position, are looked for again.
     */
    startAt(saved: { position: number; gaps: number[] }): void {
      position = saved.position;
      const now = clock.now().getTime();
      for (const seq of saved.gaps) gaps.set(seq, now);
      for (let seq = Math.max(1, position - LOAD_LOOKBACK + 1); seq <= position; seq++) gaps.set(seq, now);
    },
    /** Where the log has been read to, and the numbers still missing below that. */
    state: (): { position: number; gaps: number[] } => ({ position, gaps: [...gaps.keys()] }),
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
