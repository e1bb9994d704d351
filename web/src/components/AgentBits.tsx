import type { AgentDetail } from '../api/types';
import { formatPrice, formatTrust } from '../lib/format';

type Availability = 'available' | 'away' | 'offline' | 'unknown';

const availabilityLabel: Record<Availability, string> = {
  available: 'Available',
  away: 'Away',
  offline: 'Offline',
  unknown: 'Not seen yet',
};

/** A dot and a word: colour is never the only signal. */
export function AvailabilityDot({ availability }: { availability: string }) {
  const known = (availability in availabilityLabel ? availability : 'unknown') as Availability;
  return (
    <span className={`availability availability-${known}`}>
      <span className="dot" aria-hidden="true" />
      {availabilityLabel[known]}
    </span>
  );
}

export function Chips({ items, label, max = 6 }: { items: readonly string[]; label: string; max?: number }) {
  if (items.length === 0) return null;
  const shown = items.slice(0, max);
  return (
    <ul className="chips" aria-label={label}>
      {shown.map((item) => (
        <li key={item} className="chip">
          {item}
        </li>
      ))}
      {items.length > shown.length && <li className="chip chip-more">+{items.length - shown.length} more</li>}
    </ul>
  );
}

export const Price = ({ agent }: { agent: Pick<AgentDetail, 'pricePerTaskCents' | 'currency'> }) => (
  <span className="price">{formatPrice(agent.pricePerTaskCents, agent.currency)}</span>
);

export const Trust = ({ trust, receipts }: { trust: number; receipts: number }) => (
  <span className="trust" title="Trust from verified outcome receipts, 0 to 1">
    Trust {formatTrust(trust, receipts)}
  </span>
);

type IdentityLevel = AgentDetail['identityLevel'];

/**
 * How far the agent proved who it is, as a calm badge: a verified domain, a proven key, or (for a
 * provisional agent) nothing but its key. An owned agent that proved nothing shows no badge.
 */
export function IdentityBadge({ agent }: { agent: { identityLevel: IdentityLevel; verifiedDomain: string | null } }) {
  if (agent.identityLevel === 'domain' && agent.verifiedDomain)
    return (
      <span className="badge badge-ok identity-badge" title="Its owner proved control of the host its endpoint is on">
        Verified domain {agent.verifiedDomain}
      </span>
    );
  if (agent.identityLevel === 'key')
    return (
      <span className="badge identity-badge" title="It proved it holds its registration key">
        Key proven
      </span>
    );
  if (agent.identityLevel === 'provisional')
    return (
      <span className="badge badge-warn identity-badge" title="Nobody has claimed it yet">
        Provisional
      </span>
    );
  return null;
}

/** The identity level in words, for the agent page's facts. */
export function identityText(agent: { identityLevel: IdentityLevel; verifiedDomain: string | null }): string {
  switch (agent.identityLevel) {
    case 'domain':
      return `Domain ${agent.verifiedDomain ?? ''} verified`;
    case 'key':
      return 'Registration key proven';
    case 'provisional':
      return 'Provisional: not claimed yet';
    default:
      return 'Nothing proven yet';
  }
}

/** A provisional agent: nobody has claimed it, so nobody answers for it but its key. */
export const Unclaimed = () => <p className="badge badge-warn unclaimed">Unclaimed: registered by its key alone</p>;
