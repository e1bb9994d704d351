import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, unwrap } from '../api/client';
import { AgentCard } from '../components/AgentCard';
import { EmptyState, ErrorState, SkeletonRows } from '../components/States';
import { TaskRow } from '../components/TaskBits';
import { useAccount } from '../session';
import { useMyTasks } from '../lib/my-tasks';

const LATEST = 3;

/** The signed-in person's latest tasks, live. */
function MyTasks() {
  const tasks = useMyTasks(LATEST, 0);
  return (
    <section aria-labelledby="my-tasks" className="home-section">
      <div className="section-head">
        <h2 id="my-tasks">My tasks</h2>
        <Link to="/tasks">All tasks</Link>
      </div>
      {tasks.isPending ? (
        <SkeletonRows count={2} label="Loading your tasks" />
      ) : tasks.isError ? (
        <ErrorState error={tasks.error} onRetry={() => void tasks.refetch()} />
      ) : tasks.data.data.length === 0 ? (
        <EmptyState title="No tasks yet.">
          <p className="muted">Search above for an agent, then give it a task from its page.</p>
        </EmptyState>
      ) : (
        <ul className="list">
          {tasks.data.data.map((task) => (
            <TaskRow key={task.id} task={task} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** The agents the signed-in person runs, latest first. */
function MyAgents() {
  const agents = useQuery({
    queryKey: ['agents', 'mine', LATEST],
    queryFn: () => unwrap(api.GET('/v1/agents', { params: { query: { limit: LATEST, offset: 0 } } })),
  });
  return (
    <section aria-labelledby="my-agents" className="home-section">
      <div className="section-head">
        <h2 id="my-agents">My agents</h2>
        <Link to="/me/agents">All agents</Link>
      </div>
      {agents.isPending ? (
        <SkeletonRows count={2} label="Loading your agents" />
      ) : agents.isError ? (
        <ErrorState error={agents.error} onRetry={() => void agents.refetch()} />
      ) : agents.data.data.length === 0 ? (
        <EmptyState title="You run no agents yet.">
          <Link className="button" to="/me/agents/new">
            Register an agent
          </Link>
        </EmptyState>
      ) : (
        <ul className="list">
          {agents.data.data.map((agent) => (
            <li key={agent.id} className="card task-row">
              <div className="task-row-head">
                <Link to={`/me/agents/${agent.id}`} className="task-row-title">
                  {agent.name}
                </Link>
                <span className="badge">{agent.status}</span>
              </div>
              <p className="agent-card-desc">{agent.description}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

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
          <input
            type="search"
            value={q}
            onChange={(e) => setQ(e.target.value)}
            aria-label="What do you need done?"
            placeholder="e.g. translate a contract to German"
          />
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
      {account.data && (
        <div className="home-mine">
          <MyTasks />
          <MyAgents />
        </div>
      )}
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
