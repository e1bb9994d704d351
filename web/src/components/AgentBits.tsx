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

/** A provisional agent: nobody has claimed it, so nobody answers for it but its key. */
export const Unclaimed = () => <p className="badge badge-warn unclaimed">Unclaimed: registered by its key alone</p>;
