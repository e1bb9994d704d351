/**
 * An agent's liveness (`last_seen_at`) from its deliveries and callbacks, written at most once per
 * agent per interval on a node: the first sign of life is written at once, the ones after it within
 * the interval are folded into one write at its end. A busy agent (hundreds of tasks a second) costs
 * one write a second instead of two per task, and two updates of one row per task no longer wait on
 * each other. At most one interval of liveness is lost when the node stops.
 */
export const SEEN_WRITE_INTERVAL_MS = 1000;

export function createSeenWriter(write: (agentId: string) => Promise<unknown>, onError: (error: unknown) => void, intervalMs = SEEN_WRITE_INTERVAL_MS) {
  // Agents written within the interval, whether they were seen again since, and the interval's end.
  const recent = new Map<string, { seenAgain: boolean; timer?: NodeJS.Timeout }>();

  function settle(agentId: string): void {
    const entry = recent.get(agentId);
    if (!entry) return;
    entry.timer = setTimeout(() => {
      const entry = recent.get(agentId);
      if (!entry?.seenAgain) {
        recent.delete(agentId);
        return;
      }
      entry.seenAgain = false;
      write(agentId).catch(onError);
      settle(agentId);
    }, intervalMs);
    entry.timer.unref();
  }

  return {
    /** Resolves once the write is made when it is made now; at once when it is folded into the next. */
    async seen(agentId: string): Promise<void> {
      const entry = recent.get(agentId);
      if (entry) {
        entry.seenAgain = true;
        return;
      }
      recent.set(agentId, { seenAgain: false });
      settle(agentId);
      await write(agentId);
    },
    /** The node stops: signs of life not written yet are dropped (at most one interval's worth). */
    stop(): void {
      for (const entry of recent.values()) clearTimeout(entry.timer);
      recent.clear();
    },
  };
}
