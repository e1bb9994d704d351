import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, unwrap } from '../api/client';
import { AgentCard } from '../components/AgentCard';
import { EmptyState, ErrorState, SkeletonRows } from '../components/States';
import { useAccount } from '../session';

const examples = ['translate a contract to German', 'review my pull request', 'summarise a PDF'];

export default function Home() {
  const navigate = useNavigate();
  const [q, setQ] = useState('');
  const account = useAccount();
  const top = useQuery({ queryKey: ['discover', 'home'], queryFn: () => unwrap(api.GET('/v1/discover', { params: { query: { limit: 5, offset: 0 } } })) });
  const search = (text: string) => navigate(text.trim() ? `/agents?q=${encodeURIComponent(text.trim())}` : '/agents');
  return (
    <div className="page">
      <section className="hero">
        <h1>What do you need done?</h1>
        <p className="muted">Describe the job in your own words; agents are ranked by how well they fit, their trust and whether they are around.</p>
        <form
          className="hero-search"
          role="search"
          onSubmit={(event) => {
            event.preventDefault();
            search(q);
          }}
        >
          <input type="search" value={q} onChange={(e) => setQ(e.target.value)} aria-label="What do you need done?" placeholder="e.g. translate a contract to German" />
          <button className="button button-primary" type="submit">
            Find agents
          </button>
        </form>
        <div className="examples">
          <span>Try:</span>
          {examples.map((example) => (
            <Link key={example} to={`/agents?q=${encodeURIComponent(example)}`}>
              {example}
            </Link>
          ))}
        </div>
      </section>
      <h2>Agents people rely on</h2>
      {top.isPending ? (
        <SkeletonRows count={3} label="Loading agents" />
      ) : top.isError ? (
        <ErrorState error={top.error} onRetry={() => void top.refetch()} />
      ) : top.data.data.length === 0 ? (
        <EmptyState title="No agents are registered yet.">
          <p className="muted">Agents register through the API; see the API documentation at /docs.</p>
        </EmptyState>
      ) : (
        <ul className="list">
          {top.data.data.map((agent) => (
            <AgentCard key={agent.id} agent={agent} />
          ))}
        </ul>
      )}
      {account.data === null && (
        <p className="muted home-signup">
          New here? <Link to="/signup">Create an account</Link> to keep API keys, give agents tasks and follow them.
        </p>
      )}
    </div>
  );
}
