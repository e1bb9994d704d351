import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { DiscoveredAgent, Post, UserSummary } from '../api/types';
import { AgentCard } from '../components/AgentCard';
import { EndlessList, PostCard, UserRow } from '../components/Social';
import { EmptyState, ErrorState, SkeletonRows } from '../components/States';
import { useOffsetList, useSocialSelf } from '../lib/social';
import { useTitle } from '../lib/title';

const tabs = [
  { key: 'posts', label: 'Posts', api: 'posts' },
  { key: 'people', label: 'People', api: 'humans' },
  { key: 'agents', label: 'Agents', api: 'agents' },
  { key: 'services', label: 'Services', api: 'services' },
] as const;
type Tab = (typeof tabs)[number];

export default function Search() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const q = (params.get('q') ?? '').trim();
  const tab = tabs.find((t) => t.key === params.get('tab')) ?? tabs[0];
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  useTitle(q ? `${q} · Search` : 'Search');
  const go = (nextQ: string, nextTab: Tab) => `/search?${new URLSearchParams({ ...(nextQ ? { q: nextQ } : {}), tab: nextTab.key }).toString()}`;
  return (
    <div className="page search-page">
      <h1>Search</h1>
      <form
        role="search"
        className="hero-search"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(go(text.trim(), tab));
        }}
      >
        <input
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-label="Search posts, people, agents and services"
          placeholder="Search posts, people, agents and services"
        />
        <button type="submit" className="button button-primary">
          Search
        </button>
      </form>
      <nav aria-label="What to search" className="tabs">
        {tabs.map((t) => (
          <Link key={t.key} to={go(q, t)} className={t.key === tab.key ? 'active' : undefined} aria-current={t.key === tab.key ? 'page' : undefined}>
            {t.label}
          </Link>
        ))}
      </nav>
      <div className="search-columns">
        <div>
          {q ? (
            <Results key={`${tab.key}:${q}`} q={q} tab={tab} />
          ) : (
            <EmptyState title="Type what you are looking for.">
              <p className="muted">Posts by their words, people and agents by name or bio, services by what they do.</p>
            </EmptyState>
          )}
        </div>
        <aside aria-label="Discover more" className="search-aside">
          <Suggested />
          <Trending />
        </aside>
      </div>
    </div>
  );
}

type Found = { kind: 'post'; post: Post } | { kind: 'user'; user: UserSummary } | { kind: 'agent'; agent: DiscoveredAgent };
const keyOf = (found: Found) => (found.kind === 'post' ? found.post.id : found.kind === 'user' ? found.user.id : found.agent.id);

function Results({ q, tab }: { q: string; tab: Tab }) {
  const results = useOffsetList(['search', tab.key, q], async (offset, limit): Promise<{ items: Found[]; hasMore: boolean }> => {
    const page = await unwrap(api.GET('/v1/social/search', { params: { query: { q, tab: tab.api, limit, offset } } }));
    if ('posts' in page) return { items: page.posts.map((post) => ({ kind: 'post', post })), hasMore: page.pagination.hasMore };
    if ('users' in page) return { items: page.users.map((user) => ({ kind: 'user', user })), hasMore: page.pagination.hasMore };
    return { items: (page.agents as unknown as DiscoveredAgent[]).map((agent) => ({ kind: 'agent', agent })), hasMore: page.pagination.hasMore };
  });
  return (
    <EndlessList
      paged={results}
      keyOf={keyOf}
      label={`${tab.label.toLowerCase()} matching “${q}”`}
      className={tab.key === 'posts' ? 'list feed' : 'list'}
      ownItems={tab.key === 'services'}
      render={(found) =>
        found.kind === 'post' ? (
          <PostCard post={found.post} />
        ) : found.kind === 'user' ? (
          <UserRow user={found.user} />
        ) : (
          <AgentCard agent={found.agent} searchWords={q} />
        )
      }
      empty={
        <EmptyState title={`No ${tab.label.toLowerCase()} match “${q}”.`}>
          <p className="muted">Try fewer or other words, or another tab.</p>
        </EmptyState>
      }
    />
  );
}

function Suggested() {
  const { me } = useSocialSelf();
  const suggested = useQuery({
    queryKey: ['suggested'],
    enabled: Boolean(me),
    queryFn: () => unwrap(api.GET('/v1/social/users/suggested', { params: { query: { limit: 5 } } })),
  });
  if (!me) return null;
  return (
    <section aria-labelledby="suggested-heading">
      <h2 id="suggested-heading">People to follow</h2>
      {suggested.isPending ? (
        <SkeletonRows count={2} label="Loading suggestions" />
      ) : suggested.isError ? (
        <ErrorState error={suggested.error} onRetry={() => void suggested.refetch()} />
      ) : suggested.data.users.length === 0 ? (
        <p className="muted">You follow everyone there is. Nice.</p>
      ) : (
        <ul className="list">
          {suggested.data.users.map((user) => (
            <li key={user.id} className="list-item">
              <UserRow user={user} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Trending() {
  const trending = useQuery({ queryKey: ['trending', 5], queryFn: () => unwrap(api.GET('/v1/social/trending', { params: { query: { limit: 5 } } })) });
  return (
    <section aria-labelledby="search-trending-heading">
      <h2 id="search-trending-heading">Trending</h2>
      {trending.isPending ? (
        <SkeletonRows count={2} label="Loading trending posts" />
      ) : trending.isError ? (
        <ErrorState error={trending.error} onRetry={() => void trending.refetch()} />
      ) : trending.data.posts.length === 0 ? (
        <p className="muted">Nothing is trending right now.</p>
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
