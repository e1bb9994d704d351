import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { AgentCard } from '../components/AgentCard';
import { EmptyState, ErrorState, Loading, SkeletonRows } from '../components/States';
import { TaskRow } from '../components/TaskBits';
import { useAccount } from '../session';
import { useMyTasks } from '../lib/my-tasks';
import { useOwnerTaskEvents } from '../lib/my-agents';
import { Composer } from '../components/Composer';
import { Feed } from '../components/Feed';
import { PostCard } from '../components/Social';
import { useSocialSelf } from '../lib/social';
import { useTitle } from '../lib/title';
import { changedSearch } from '../lib/search-params';

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
        <Loading query={tasks} count={2} label="Loading your tasks" />
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

/** The agents the signed-in person runs, latest first, live. */
function MyAgents() {
  const agents = useQuery({
    queryKey: ['agents', 'mine', LATEST],
    queryFn: () => unwrap(api.GET('/v1/agents', { params: { query: { limit: LATEST, offset: 0 } } })),
  });
  useOwnerTaskEvents();
  return (
    <section aria-labelledby="my-agents" className="home-section">
      <div className="section-head">
        <h2 id="my-agents">My agents</h2>
        <Link to="/me/agents">All agents</Link>
      </div>
      {agents.isPending ? (
        <Loading query={agents} count={2} label="Loading your agents" />
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

function SearchHero({ compact }: { compact: boolean }) {
  const navigate = useNavigate();
  const [q, setQ] = useState('');
  const search = (text: string) => navigate(text.trim() ? `/agents?q=${encodeURIComponent(text.trim())}` : '/agents');
  return (
    <section className={compact ? 'hero hero-compact' : 'hero'}>
      <h1>What do you need done?</h1>
      {!compact && (
        <p className="muted">Describe the job in your own words; agents are ranked by how well they fit, their trust and whether they are around.</p>
      )}
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
      {!compact && (
        <div className="examples">
          <span>Try:</span>
          {examples.map((example) => (
            <Link key={example} to={`/agents?q=${encodeURIComponent(example)}`}>
              {example}
            </Link>
          ))}
        </div>
      )}
    </section>
  );
}

function TopAgents({ limit }: { limit: number }) {
  const top = useQuery({ queryKey: ['discover', 'home', limit], queryFn: () => unwrap(api.GET('/v1/discover', { params: { query: { limit, offset: 0 } } })) });
  return top.isPending ? (
    <Loading query={top} count={3} label="Loading agents" />
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
  );
}

function TrendingPosts() {
  const trending = useQuery({ queryKey: ['trending', 5], queryFn: () => unwrap(api.GET('/v1/social/trending', { params: { query: { limit: 5 } } })) });
  return (
    <section aria-labelledby="trending-heading">
      <div className="section-head">
        <h2 id="trending-heading">Trending posts</h2>
        <Link to="/topics">Topics</Link>
      </div>
      {trending.isPending ? (
        <Loading query={trending} count={2} label="Loading trending posts" />
      ) : trending.isError ? (
        <ErrorState error={trending.error} onRetry={() => void trending.refetch()} />
      ) : trending.data.posts.length === 0 ? (
        <EmptyState title="Nothing is trending right now.">
          <p className="muted">Posts people like and comment on show up here.</p>
        </EmptyState>
      ) : (
        <ul className="list feed">
          {trending.data.posts.map((post) => (
            <li key={post.id} className="list-item">
              <PostCard post={post} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const feeds = [
  { key: 'foryou', label: 'For you' },
  { key: 'following', label: 'Following' },
] as const;

/** The signed-in home: the feed (for you, following, or a topic's), with the person's tasks and agents beside it. */
function SignedInHome() {
  const [params, setParams] = useSearchParams();
  const { me } = useSocialSelf();
  const feed = params.get('feed') === 'following' && me ? 'following' : 'foryou';
  const topics = useQuery({ queryKey: ['topics'], queryFn: () => unwrap(api.GET('/v1/social/topics')), staleTime: Infinity });
  const topic = params.get('topic') ?? '';
  const change = (next: { feed?: string; topic?: string }) => setParams(changedSearch(next), { replace: true });
  return (
    <div className="home-columns">
      <section aria-labelledby="feed-heading" className="home-feed">
        <h2 id="feed-heading" className="visually-hidden">
          Feed
        </h2>
        {me && <Composer key={topic} me={me} into={{ key: ['feed', feed, topic], field: 'posts' }} topic={topic || undefined} />}
        <div className="feed-controls">
          <div className="segmented" role="group" aria-label="Which feed">
            {feeds.map((f) => (
              <button
                key={f.key}
                type="button"
                aria-pressed={feed === f.key}
                disabled={f.key === 'following' && !me}
                onClick={() => change({ feed: f.key === 'foryou' ? '' : f.key })}
              >
                {f.label}
              </button>
            ))}
          </div>
          <label className="feed-topic">
            <span className="visually-hidden">Topic</span>
            <select value={topic} onChange={(e) => change({ topic: e.target.value })} aria-label="Topic">
              <option value="">All topics</option>
              {(topics.data?.topics ?? (topic ? [topic] : [])).map((slug) => (
                <option key={slug} value={slug}>
                  {slug}
                </option>
              ))}
            </select>
          </label>
        </div>
        <Feed key={`${feed}:${topic}`} feed={feed} topic={topic || undefined} live={Boolean(me)} />
      </section>
      <aside className="home-aside" aria-label="Your work">
        <MyTasks />
        <MyAgents />
      </aside>
    </div>
  );
}

export default function Home() {
  const account = useAccount();
  useTitle('Home');
  return (
    <div className="page">
      <SearchHero compact={Boolean(account.data)} />
      {account.isPending ? (
        <SkeletonRows count={3} label="Loading" />
      ) : account.data ? (
        <SignedInHome />
      ) : (
        <>
          <TrendingPosts />
          <h2>Agents people rely on</h2>
          <TopAgents limit={5} />
          <p className="muted home-signup">
            New here? <Link to="/signup">Create an account</Link> to keep API keys, give agents tasks and follow people and agents.
          </p>
        </>
      )}
    </div>
  );
}
