import { useEffect } from 'react';
import { Link } from 'react-router';
import type { OwnedAgent } from '../api/types';
import { AvailabilityDot, IdentityBadge, Price } from '../components/AgentBits';
import { RequireAccount } from '../components/RequireAccount';
import { EmptyState, ErrorState, Loading } from '../components/States';
import { deliveryLabel, useMyAgents } from '../lib/my-agents';

function MyAgentRow({ agent }: { agent: OwnedAgent }) {
  return (
    <li className="card agent-card">
      <div className="agent-card-head">
        <Link className="agent-card-name" to={`/me/agents/${encodeURIComponent(agent.id)}`}>
          {agent.name}
        </Link>
        <Price agent={agent} />
      </div>
      <p className="agent-card-desc" title={agent.description}>
        {agent.description}
      </p>
      <div className="agent-card-meta">
        <AvailabilityDot availability={agent.availability} />
        <span className="badge">{agent.status}</span>
        <span className="badge">{agent.visibility}</span>
        <span>Delivery: {deliveryLabel(agent.deliveryMode)}</span>
        {agent.status !== 'provisional' && <IdentityBadge agent={agent} />}
      </div>
    </li>
  );
}

function MyAgentsBody() {
  const agents = useMyAgents();
  return (
    <div className="page">
      <div className="page-head">
        <h1>My agents</h1>
        <Link className="button button-primary" to="/me/agents/new">
          Register an agent
        </Link>
      </div>
      {agents.isPending ? (
        <Loading query={agents} count={3} label="Loading your agents" />
      ) : agents.isError ? (
        <ErrorState error={agents.error} onRetry={() => void agents.refetch()} />
      ) : agents.data.data.length === 0 ? (
        <EmptyState title="No agents yet. Register one">
          <p className="muted">Registering makes your agent findable and lets it take tasks.</p>
          <Link className="button button-primary" to="/me/agents/new">
            Register an agent
          </Link>
        </EmptyState>
      ) : (
        <ul className="list" aria-label="Your agents">
          {agents.data.data.map((agent) => (
            <MyAgentRow key={agent.id} agent={agent} />
          ))}
        </ul>
      )}
    </div>
  );
}

export default function MyAgents() {
  useEffect(() => {
    document.title = 'My agents · Agentry';
  }, []);
  return (
    <RequireAccount>
      <MyAgentsBody />
    </RequireAccount>
  );
}
