import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { AgentCard } from '../components/AgentCard';
import { EmptyState, ErrorState, SkeletonRows } from '../components/States';
import { useCatalogue } from '../catalogue';
import { discoverQueryOptions, protocols, searchOf } from '../discover-query';
import { formatNumber } from '../lib/format';

export default function Agents() {
  const [params, setParams] = useSearchParams();
  const { q, category, capability, protocol, page, query } = searchOf(params);
  const catalogue = useCatalogue();
  const [capabilityText, setCapabilityText] = useState(capability);
  useEffect(() => setCapabilityText(capability), [capability]);

  const results = useQuery({ ...discoverQueryOptions(query), placeholderData: keepPreviousData });

  const update = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    if (!('page' in changes)) next.delete('page');
    setParams(next);
  };

  const total = results.data?.pagination.total ?? 0;
  const title = q ? `Agents for “${q}”` : 'Find agents';
  useEffect(() => {
    document.title = `${q ? `${q} · ` : ''}Discover · Agentry`;
  }, [q]);

  return (
    <div className="page">
      <h1>{title}</h1>
      <div className="discover">
        <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
          <div className="field">
            <label htmlFor="filter-category">Category</label>
            <select id="filter-category" value={category} onChange={(e) => update({ category: e.target.value })}>
              <option value="">All categories</option>
              {catalogue.data?.categories.map((c) => (
                <option key={c.slug} value={c.slug}>
                  {c.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="filter-capability">Capability</label>
            <input
              id="filter-capability"
              list="capability-names"
              value={capabilityText}
              onChange={(e) => setCapabilityText(e.target.value)}
              onBlur={() => capabilityText !== capability && update({ capability: capabilityText.trim() })}
              onKeyDown={(e) => {
                if (e.key === 'Enter') update({ capability: capabilityText.trim() });
              }}
              placeholder="e.g. translation"
            />
            <datalist id="capability-names">
              {catalogue.data?.data.map((c) => (
                <option key={c.slug} value={c.slug} />
              ))}
            </datalist>
          </div>
          <div className="field">
            <label htmlFor="filter-protocol">Protocol</label>
            <select id="filter-protocol" value={protocol ?? ''} onChange={(e) => update({ protocol: e.target.value })}>
              <option value="">Any protocol</option>
              {protocols.map((p) => (
                <option key={p} value={p}>
                  {p.toUpperCase()}
                </option>
              ))}
            </select>
          </div>
          {(category || capability || protocol) && (
            <button type="button" className="link-button" onClick={() => update({ category: '', capability: '', protocol: '' })}>
              Clear filters
            </button>
          )}
        </form>
        <section aria-label="Results" aria-busy={results.isFetching}>
          {results.isPending ? (
            <SkeletonRows count={4} label="Loading agents" />
          ) : results.isError ? (
            <ErrorState error={results.error} onRetry={() => void results.refetch()} />
          ) : results.data.data.length === 0 ? (
            <EmptyState title={q || category || capability || protocol ? 'No agent fits this search.' : 'No agents are registered yet.'}>
              <p className="muted">
                Try other words or fewer filters, or browse the <Link to="/capabilities">capability catalogue</Link>.
              </p>
            </EmptyState>
          ) : (
            <>
              <p className="results-head" aria-live="polite">
                <span>
                  {formatNumber(total)} {total === 1 ? 'agent' : 'agents'}
                </span>
                {results.data.pagination.hasMore || page > 1 ? <span>Page {page}</span> : null}
              </p>
              <ul className="list">
                {results.data.data.map((agent) => (
                  <AgentCard key={agent.id} agent={agent} />
                ))}
              </ul>
              {(page > 1 || results.data.pagination.hasMore) && (
                <nav className="pager" aria-label="Pages">
                  {page > 1 ? <Link to={`?${withPage(params, page - 1)}`}>← Previous</Link> : <span />}
                  {results.data.pagination.hasMore ? <Link to={`?${withPage(params, page + 1)}`}>Next →</Link> : <span />}
                </nav>
              )}
            </>
          )}
        </section>
      </div>
    </div>
  );
}

function withPage(params: URLSearchParams, page: number): string {
  const next = new URLSearchParams(params);
  if (page <= 1) next.delete('page');
  else next.set('page', String(page));
  return next.toString();
}
