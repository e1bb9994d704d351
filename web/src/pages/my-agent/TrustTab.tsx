import { Link } from 'react-router';
import type { OwnedAgent } from '../../api/types';
import { AgentTrust } from './shared';

export default function TrustTab({ agent }: { agent: OwnedAgent }) {
  return (
    <div>
      <h2>Trust by task class</h2>
      <p className="muted">
        Trust comes from verified outcome receipts other agents sign about this agent’s key.{' '}
        <Link to={`/agents/${encodeURIComponent(agent.slug)}`}>See its public page</Link> for the receipts themselves.
      </p>
      <AgentTrust agent={agent} />
    </div>
  );
}
