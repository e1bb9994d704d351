import type { Clock } from '../../lib/clock.ts';

/**
 * Short-lived answers to the feed's hot reads (trending ids, live feed pages), shared by every
 * reader. An entry lives `ttlMs` and is dropped at once when this process records a write that
 * could change it (`clear`); another node's writes show up here when the entry expires.
 *
 * An entry is stored before its load finishes, so concurrent readers share one load, and a clear
 * during the load drops the entry rather than letting an answer older than the write be kept.
 */
export function createReadCache<T>(clock: Clock, ttlMs: number, maxEntries: number) {
  const entries = new Map<string, { at: number; value: Promise<T> }>();
  return {
    get(key: string, load: () => Promise<T>): Promise<T> {
      const now = clock.now().getTime();
      const hit = entries.get(key);
      if (hit && now >= hit.at && now - hit.at < ttlMs) return hit.value;
      entries.delete(key);
      // Oldest first out: a Map iterates in insertion order.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      const entry = { at: now, value: load() };
      entries.set(key, entry);
      entry.value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      return entry.value;
    },
    clear(): void {
      entries.clear();
    },
  };
}

export type ReadCache<T> = ReturnType<typeof createReadCache<T>>;
