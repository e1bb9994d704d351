/**
 * Gives indexed agents their sentence-encoder vectors without holding up searches:
 *  - a node's first load of a small registry embeds its agents before the load ends (100 agents:
 *    about 1.5 s, once, while the node warms up and is not yet ready to search);
 *  - every other new text (registrations, edits, a large first load) is queued and the refresh goes
 *    on: the search ranks the agent at once by its words (full text, word vector, concepts), and by
 *    meaning from the search after its vector arrives. The queue is sent to the encoder in chunks,
 *    two at a time so that the encoder never waits for this thread between them; the encoder runs
 *    them in slices and a query before the rest (sentence-worker.ts).
 * An agent replaced in the index while its chunk ran (it changed again) keeps no stale vector: the
 * new version was queued in its own right.
 */
import type { Embedder } from './embedder.ts';

export interface NeedsSentenceVector {
  text: string;
}

/** A first load with at most this many new texts embeds them before it ends. */
const INLINE_LIMIT = 100;
/**
 * Agents sent to the encoder at once: the texts of a chunk are grouped by length into the model's
 * runs, and its vectors are kept when the whole chunk is done (a few hundred ms).
 */
const CHUNK = 32;
const CHUNKS_IN_FLIGHT = 2;

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
  let inFlight = 0;
  let agentsInFlight = 0;

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

  function send(): void {
    while (inFlight < CHUNKS_IN_FLIGHT && queue.length > 0) {
      const chunk = queue.splice(0, CHUNK).filter(isCurrent);
      if (chunk.length === 0) continue;
      inFlight += 1;
      agentsInFlight += chunk.length;
      void embedInto(chunk).then((embedded) => {
        inFlight -= 1;
        agentsInFlight -= chunk.length;
        // A failing encoder fails every agent alike: stop, and leave the rest on word vectors.
        if (!embedded) queue.length = 0;
        send();
      });
    }
  }

  /** Queues agents for their vectors; the search goes on without them. */
  function later(agents: Agent[]): void {
    if (agents.length === 0) return;
    queue.push(...agents);
    send();
  }

  /** A first load's new texts: embedded before it ends when they are few, else queued. */
  async function firstLoad(agents: Agent[]): Promise<void> {
    if (agents.length === 0) return;
    if (agents.length <= INLINE_LIMIT) await embedInto(agents);
    else later(agents);
  }

  /** Agents waiting for their vector (queued or being embedded); some may since have changed again. */
  const waiting = (): number => queue.length + agentsInFlight;

  return { firstLoad, later, waiting };
}
