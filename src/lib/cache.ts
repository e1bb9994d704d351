import type { Clock } from './clock.ts';

/**
 * A bounded map for values read on every request and changed rarely. Entries expire by the
 * injected clock; when full, the oldest entry goes (insertion order: a hit costs no reordering).
 *
 * Loading races invalidation: a reader fetches a row, a writer changes it and invalidates, then
 * the reader stores what it fetched, now stale. So readers take a ticket before loading and
 * `set` drops the value if any invalidation happened since.
 */
export class ExpiringCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private generation = 0;

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries: number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.clock.now().getTime() < entry.expiresAt) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Take before loading what will be passed to `set`. */
  ticket(): number {
    return this.generation;
  }

  set(key: string, value: V, expiresAt: number, ticket: number): void {
    if (ticket !== this.generation) return;
    if (!this.entries.has(key) && this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt });
  }

  delete(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  deleteWhere(matches: (value: V) => boolean): void {
    this.generation++;
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
