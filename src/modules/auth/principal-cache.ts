import type { Principal } from '../../lib/principal.ts';
import { ExpiringCache } from '../../lib/cache.ts';
import type { Clock } from '../../lib/clock.ts';
import { RESYNC_CHANNEL, type Signals } from '../../db/signals.ts';

const CHANNEL = 'auth';

export interface PrincipalCacheOptions {
  clock: Clock;
  signals: Signals;
  /**
   * How long a node trusts an entry without hearing about it: the bound on how long another node
   * may still accept a revoked credential if the revocation's signal was lost.
   */
  maxAgeMs?: number;
  maxEntries?: number;
  /** A signal that could not be sent to other nodes. */
  onError?: (error: unknown) => void;
}

/**
 * Who a bearer token is, by the token's SHA-256, so an authenticated request needs no query.
 * Whatever ends or changes a credential (logout, key revocation, an agent removed)
 * calls one of the forget functions: this node drops the entries at once, other nodes when
 * the signal reaches them.
 */
export function createPrincipalCache({ clock, signals, maxAgeMs = 30_000, maxEntries = 10_000, onError = () => {} }: PrincipalCacheOptions) {
  const cache = new ExpiringCache<Principal>(clock, maxEntries);

  // Payloads: c:<credential id>, g:<agent id>, a:<account id> (its credentials and those of its agents); anything else (a newer node's kind) drops everything.
  const apply = (message: string) => {
    const id = message.slice(2);
    if (message.startsWith('c:')) cache.deleteWhere((p) => p.credentialId === id);
    else if (message.startsWith('g:')) cache.deleteWhere((p) => p.agentId === id);
    else if (message.startsWith('a:')) cache.deleteWhere((p) => p.accountId === id || p.personId === id);
    else cache.clear();
  };
  signals.subscribe(CHANNEL, apply);
  signals.subscribe(RESYNC_CHANNEL, () => cache.clear());

  // Local listeners run inside publish(), so this node forgets before the promise settles.
  const announce = (message: string) => signals.publish(CHANNEL, message).catch(onError);

  return {
    get: (tokenHash: string) => cache.get(tokenHash),
    ticket: () => cache.ticket(),
    /** `expiresAt`: when the credential itself ends (ms), if it does. */
    remember(tokenHash: string, principal: Principal, expiresAt: number | null, ticket: number) {
      const until = clock.now().getTime() + maxAgeMs;
      cache.set(tokenHash, Object.freeze(principal), expiresAt === null ? until : Math.min(until, expiresAt), ticket);
    },
    forgetCredential: (credentialId: string) => announce(`c:${credentialId}`),
    forgetAgent: (agentId: string) => announce(`g:${agentId}`),
    /** Every credential of the account, and of the agents it owns (a suspension). */
    forgetAccount: (accountId: string) => announce(`a:${accountId}`),
  };
}

export type PrincipalCache = ReturnType<typeof createPrincipalCache>;
