import { Link } from 'react-router';
import type { DiscoveredAgent } from '../api/types';
import { AvailabilityDot, Chips, IdentityBadge, Price, Trust, Unclaimed } from './AgentBits';

/** The agent page's address; after a search, with the search words, which travel on to the task form (docs/web.md). */
export const agentPageOf = (slug: string, searchWords?: string) =>
  `/agents/${encodeURIComponent(slug)}${searchWords?.trim() ? `?${new URLSearchParams({ q: searchWords.trim() }).toString()}` : ''}`;

/** `searchWords`: the search that listed the agent, carried along to its page and task form. */
export function AgentCard({ agent, searchWords }: { agent: DiscoveredAgent; searchWords?: string }) {
  return (
    <li className="card agent-card">
      <div className="agent-card-head">
        <Link className="agent-card-name" to={agentPageOf(agent.slug, searchWords)}>
          {agent.name}
        </Link>
        <Price agent={agent} />
      </div>
      {agent.status === 'provisional' && <Unclaimed />}
      <p className="agent-card-desc" title={agent.description}>
        {agent.description}
      </p>
      <Chips items={agent.capabilities} label={`Capabilities of ${agent.name}`} max={5} />
      <div className="agent-card-meta">
        <Trust trust={agent.trust} receipts={agent.trustReceipts} />
        <AvailabilityDot availability={agent.availability} />
        {/* A provisional agent already carries the Unclaimed notice above. */}
        {agent.status !== 'provisional' && <IdentityBadge agent={agent} />}
      </div>
    </li>
  );
}
