import { ExpiringCache } from '../../lib/cache.ts';
import type { Clock } from '../../lib/clock.ts';
import { RESYNC_CHANNEL, type Signals } from '../../db/signals.ts';

const CHANNEL = 'profile';

export interface ProfileCacheOptions {
  clock: Clock;
  signals: Signals;
  /** How long a node serves an entry without hearing about it: the bound if a change's signal was lost. */
  maxAgeMs?: number;
  maxEntries?: number;
  /** A signal that could not be sent to other nodes. */
  onError?: (error: unknown) => void;
}

/**
 * Profile views by account id, for GET /v1/users/me. Every write to a profile row must call
 * `forget` after it commits (this node drops the entry at once, other nodes when the signal
 * reaches them); counters kept by other modules included.
 */
export function createProfileCache<V extends object>({ clock, signals, maxAgeMs = 30_000, maxEntries = 10_000, onError = () => {} }: ProfileCacheOptions) {
  const cache = new ExpiringCache<V>(clock, maxEntries);
  signals.subscribe(CHANNEL, (accountId) => cache.delete(accountId));
  signals.subscribe(RESYNC_CHANNEL, () => cache.clear());

  return {
    get: (accountId: string) => cache.get(accountId),
    ticket: () => cache.ticket(),
    remember(accountId: string, view: V, ticket: number) {
      cache.set(accountId, Object.freeze(view), clock.now().getTime() + maxAgeMs, ticket);
    },
    forget: (accountId: string) => signals.publish(CHANNEL, accountId).catch(onError),
  };
}
