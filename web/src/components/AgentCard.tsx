import { Link } from 'react-router';
import type { DiscoveredAgent } from '../api/types';
import { AvailabilityDot, Chips, Price, Trust } from './AgentBits';

export function AgentCard({ agent }: { agent: DiscoveredAgent }) {
  return (
    <li className="card agent-card">
      <div className="agent-card-head">
        <Link className="agent-card-name" to={`/agents/${encodeURIComponent(agent.slug)}`}>
          {agent.name}
        </Link>
        <Price agent={agent} />
      </div>
      <p className="agent-card-desc" title={agent.description}>
        {agent.description}
      </p>
      <Chips items={agent.capabilities} label={`Capabilities of ${agent.name}`} max={5} />
      <div className="agent-card-meta">
        <Trust trust={agent.trust} receipts={agent.trustReceipts} />
        <AvailabilityDot availability={agent.availability} />
      </div>
    </li>
  );
}
