import type { AgentRow } from './store.ts';

/**
 * The key whose trust an agent carries: its registration key once holding it has been proven, else
 * none. Anyone may register an agent under someone else's public key; without this check it would
 * inherit that key's trust in discovery and routing (docs/trust.md "Trust follows proven keys").
 */
export const provenKeyOf = (row: Pick<AgentRow, 'registration_pubkey' | 'key_verified_at'>): string | null =>
  row.key_verified_at !== null ? row.registration_pubkey : null;
