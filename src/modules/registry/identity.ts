import type { AgentRow } from './store.ts';

/**
 * How far an agent's identity is proven (docs/registry.md, "Identity levels"): `provisional` (no
 * owner yet), `none` (owned, no key proven), `key` (its Ed25519 registration key proven), `domain`
 * (control of its endpoint's host proven as well, or instead).
 */
export type IdentityLevel = 'provisional' | 'none' | 'key' | 'domain';

export const identityLevels: readonly IdentityLevel[] = ['provisional', 'none', 'key', 'domain'];

/** The host (with its port, if not the scheme's default) an endpoint's domain proof is about, lowercased; null without a usable endpoint. */
export function domainOfEndpoint(endpoint: string | null): string | null {
  if (endpoint === null) return null;
  try {
    const url = new URL(endpoint);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host.toLowerCase() : null;
  } catch {
    return null;
  }
}

/**
 * The verified domain an agent carries: the one proven, only while its endpoint is still on that
 * host. A proof is about a host, so it never follows the endpoint elsewhere, even for the moment
 * before the moved endpoint's update clears it.
 */
export const verifiedDomainOf = (row: Pick<AgentRow, 'verified_domain' | 'endpoint'>): string | null =>
  row.verified_domain !== null && row.verified_domain === domainOfEndpoint(row.endpoint) ? row.verified_domain : null;

export function identityLevelOf(agent: { status: string; verifiedDomain: string | null; provenKey: string | null }): IdentityLevel {
  if (agent.status === 'provisional') return 'provisional';
  if (agent.verifiedDomain !== null) return 'domain';
  return agent.provenKey !== null ? 'key' : 'none';
}
