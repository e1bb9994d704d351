import type { AgentDetail } from '../api/types';
import { formatPrice, formatTrust, relativeTime } from '../lib/format';

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

const healthLabel: Record<AgentDetail['health']['status'], string> = {
  up: 'Up',
  degraded: 'Degraded',
  down: 'Down',
  unknown: 'Not checked yet',
};

const percent = (share: number) => `${(share * 100).toFixed(share === 1 ? 0 : 1)}%`;

/** The health the registry measures: a word, the figures, and the last 24 hours as a small strip (one cell an hour). */
export function HealthStrip({ health }: { health: AgentDetail['health'] }) {
  const figures = [
    health.uptime24h !== null && `${percent(health.uptime24h)} over 24 h`,
    health.uptime7d !== null && `${percent(health.uptime7d)} over 7 days`,
    health.p50Ms !== null && `median ${health.p50Ms} ms`,
  ].filter(Boolean);
  return (
    <div className="health">
      <span className={`health-status health-${health.status}`}>
        <span className="dot" aria-hidden="true" />
        {healthLabel[health.status]}
      </span>
      {figures.length > 0 && <span className="health-figures">{figures.join(' · ')}</span>}
      {health.status !== 'unknown' && (
        <ol className="health-strip" aria-label="Share of successful checks in each of the last 24 hours, oldest first">
          {health.hours.map((share, index) => (
            <li
              key={index}
              className={share === null ? 'none' : share >= 0.99 ? 'good' : share >= 0.9 ? 'fair' : 'poor'}
              title={`${24 - index} h ago: ${share === null ? 'no checks' : percent(share)}`}
            />
          ))}
        </ol>
      )}
      {health.lastFailure && (
        <span className="health-failure">
          Last failure {relativeTime(health.lastFailure.at)}: {health.lastFailure.reason}
        </span>
      )}
    </div>
  );
}
