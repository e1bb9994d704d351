import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { DiscoveredAgent } from '../api/types';
import { AgentCard } from '../components/AgentCard';
import { EmptyState, ErrorState, Loading } from '../components/States';
import { useCatalogue } from '../catalogue';
import { discoverQueryOptions, protocols, searchOf } from '../discover-query';
import { formatNumber } from '../lib/format';
import { changedSearch, toPage } from '../lib/search-params';

export default function Agents() {
  const [params, setParams] = useSearchParams();
  const { q, category, capability, protocol, page, query } = searchOf(params);
  const catalogue = useCatalogue();
  const [capabilityText, setCapabilityText] = useState(capability);
  // On a phone the filters fold under a "Filters" button (see .filters-toggle); on a wide screen they are always shown.
  const [filtersOpen, setFiltersOpen] = useState(false);
  const activeFilters = [category, capability, protocol].filter(Boolean).length;
  useEffect(() => setCapabilityText(capability), [capability]);

  const results = useQuery({ ...discoverQueryOptions(query), placeholderData: keepPreviousData });

  const update = (changes: Record<string, string>) => setParams(changedSearch(changes));

  const total = results.data?.pagination.total ?? 0;
  const title = q ? `Agents for “${q}”` : 'Find agents';
  useEffect(() => {
    document.title = `${q ? `${q} · ` : ''}Discover · Agentry`;
  }, [q]);

  return (
    <div className="page">
      <h1>{title}</h1>
      <div className="discover">
        <button
          type="button"
          className="button filters-toggle"
          aria-expanded={filtersOpen}
          aria-controls="discover-filters"
          onClick={() => setFiltersOpen((open) => !open)}
        >
          Filters{activeFilters > 0 ? ` (${activeFilters})` : ''}
        </button>
        <form
          id="discover-filters"
          className={`filters${filtersOpen ? ' filters-open' : ''}`}
          aria-label="Filters"
          onSubmit={(event) => event.preventDefault()}
        >
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
            <Loading query={results} count={4} label="Loading agents" />
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
              <ResultLists q={q} agents={results.data.data} />
              {(page > 1 || results.data.pagination.hasMore) && (
                <nav className="pager" aria-label="Pages">
                  {page > 1 ? <Link to={`?${changedSearch(toPage(page - 1), params).toString()}`}>← Previous</Link> : <span />}
                  {results.data.pagination.hasMore ? <Link to={`?${changedSearch(toPage(page + 1), params).toString()}`}>Next →</Link> : <span />}
                </nav>
              )}
            </>
          )}
        </section>
      </div>
    </div>
  );
}

/**
 * Close matches first; results the service flags as weak matches (relevance below its floor) apart,
 * under a heading that says they are only loosely related, with the way to the catalogue.
 */
function ResultLists({ agents, q }: { agents: DiscoveredAgent[]; q: string }) {
  const close = agents.filter((agent) => !agent.weakMatch);
  const loose = agents.filter((agent) => agent.weakMatch);
  return (
    <>
      {close.length > 0 && (
        <ul className="list">
          {close.map((agent) => (
            <AgentCard key={agent.id} agent={agent} searchWords={q} />
          ))}
        </ul>
      )}
      {loose.length > 0 && (
        <section className="loose-results" aria-labelledby="loose-heading">
          <h2 id="loose-heading">{close.length > 0 ? 'Loosely related' : 'No close match; these are loosely related'}</h2>
          <p className="muted">
            They share a few words with your search at most. Try other words, or find the kind of agent you need in the{' '}
            <Link to="/capabilities">capability catalogue</Link>.
          </p>
          <ul className="list">
            {loose.map((agent) => (
              <AgentCard key={agent.id} agent={agent} searchWords={q} />
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
