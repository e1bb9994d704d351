/**
 * Gives indexed agents their sentence-encoder vectors without holding up searches:
 *  - a refresh that changed few agents (a registration, an edit) embeds them before the search
 *    ranks, so an agent is found by meaning in the very next request;
 *  - a refresh that changed many (a node's first load: 10,000 agents take minutes) queues them and
 *    returns; a background loop fills them in batches. Until then those agents rank by their
 *    word-vector embedding (IndexedAgent.vector).
 * An agent replaced in the index while its batch ran (it changed again) keeps no stale vector: the
 * new version was queued in its own right.
 */
import type { Embedder } from './embedder.ts';

export interface NeedsSentenceVector {
  text: string;
}

/**
 * Changed agents embedded before the search goes on (15-30 ms each on one core): a registration or
 * an edit, and the whole first load of a small registry (100 agents: about 1.5 s, once).
 */
const INLINE_LIMIT = 100;
/**
 * Background batch. The model costs about the same per text from batches of 4 up to 64 (and a third
 * more one at a time); a query that arrives during the fill waits for the batch under way, so the
 * smallest batch that gets the saving.
 */
const BACKGROUND_BATCH = 4;

export function createSentenceVectors<Agent extends NeedsSentenceVector>({
  encoder,
  isCurrent,
  store,
  onError,
}: {
  encoder: Embedder;
  /** Whether this object is still the index's version of its agent. */
  isCurrent(agent: Agent): boolean;
  /** Keeps an agent's vector (only for agents still current when their vector arrives). */
  store(agent: Agent, vector: Float32Array): void;
  onError(error: unknown): void;
}) {
  const queue: Agent[] = [];
  let draining: Promise<void> | null = null;

  async function embedInto(agents: Agent[]): Promise<boolean> {
    try {
      const vectors = await encoder.embed(agents.map((agent) => agent.text));
      agents.forEach((agent, i) => {
        const vector = vectors[i];
        if (vector && isCurrent(agent)) store(agent, vector);
      });
      return true;
    } catch (error) {
      onError(error);
      return false;
    }
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, BACKGROUND_BATCH).filter(isCurrent);
      // A failing encoder fails every agent alike: stop, and leave the rest on word vectors.
      if (batch.length > 0 && !(await embedInto(batch))) queue.length = 0;
    }
    draining = null;
  }

  /**
   * Background only. Also for new versions of agents whose text was already waiting for its vector:
   * the refresh after a first load re-reads its last changes, and embedding those inline would make
   * one search wait for up to INLINE_LIMIT model runs.
   */
  function later(agents: Agent[]): void {
    if (agents.length === 0) return;
    queue.push(...agents);
    draining ??= drain();
  }

  /** Embeds agents whose text is new to the index: now when they are few, else in the background. */
  async function add(agents: Agent[]): Promise<void> {
    if (agents.length === 0) return;
    if (agents.length <= INLINE_LIMIT) await embedInto(agents);
    else later(agents);
  }

  return { add, later };
}
