import { ExpiringCache } from '../../lib/cache.ts';
import type { Clock } from '../../lib/clock.ts';
import type { AgentTaskStats } from './store.ts';

/**
 * How long a node reuses an agent's routing history (ratings, response time over its last 100
 * completed tasks). The history moves slowly, and reading it for every candidate of every task was
 * about a fifth of the time a task takes on SQLite (bench/RESULTS.md, "Tasks: end to end").
 */
export const RECENT_STATS_MS = 5_000;

/** `statsFor` answered from what this node read in the last RECENT_STATS_MS; agents with no history are remembered too. */
export function withRecentStats(
  statsFor: (agentIds: string[]) => Promise<Map<string, AgentTaskStats>>,
  clock: Clock,
): (agentIds: string[]) => Promise<Map<string, AgentTaskStats>> {
  const recent = new ExpiringCache<AgentTaskStats | null>(clock, 10_000);
  return async (agentIds) => {
    const stats = new Map<string, AgentTaskStats>();
    const missing: string[] = [];
    for (const id of agentIds) {
      const known = recent.get(id);
      if (known === undefined) missing.push(id);
      else if (known !== null) stats.set(id, known);
    }
    if (missing.length === 0) return stats;
    const ticket = recent.ticket();
    const read = await statsFor(missing);
    const expiresAt = clock.now().getTime() + RECENT_STATS_MS;
    for (const id of missing) {
      const value = read.get(id) ?? null;
      recent.set(id, value, expiresAt, ticket);
      if (value) stats.set(id, value);
    }
    return stats;
  };
}
