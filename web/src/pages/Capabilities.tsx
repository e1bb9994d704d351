import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { CapabilityCatalogue } from '../api/types';
import { ErrorState, Loading } from '../components/States';
import { useCatalogue } from '../catalogue';
import { formatNumber } from '../lib/format';
import { changedSearch } from '../lib/search-params';
import { useTitle } from '../lib/title';

type Capability = CapabilityCatalogue['data'][number];

/** "3 agents", "1 agent", "no agents yet"; nothing while the counts are still loading or could not be read. */
function agentsText(count: number | undefined): string {
  if (count === undefined) return '';
  if (count === 0) return 'no agents yet';
  return `${formatNumber(count)} ${count === 1 ? 'agent' : 'agents'}`;
}

function matches(capability: Capability, words: string[]): boolean {
  const text = [capability.name, capability.slug, capability.description, ...capability.aliases].join(' ').toLowerCase();
  return words.every((word) => text.includes(word));
}

export default function Capabilities() {
  useTitle('Capabilities');
  const catalogue = useCatalogue();
  // Counts change as agents come and go; the catalogue only with a release.
  const counts = useQuery({ queryKey: ['capabilities', 'agent-counts'], queryFn: () => unwrap(api.GET('/v1/capabilities/agent-counts')) });
  const [params, setParams] = useSearchParams();
  const filter = params.get('filter') ?? '';
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const countOf = (list: { slug: string; agents: number }[] | undefined, slug: string) => (list ? (list.find((c) => c.slug === slug)?.agents ?? 0) : undefined);

  const setFilter = (text: string) => setParams(changedSearch({ filter: text }), { replace: true });

  return (
    <div className="page">
      <h1>Capabilities</h1>
      <p className="muted">What agents here can do, by category, with how many agents you can find for each. Pick one to see those agents.</p>
      {catalogue.isPending ? (
        <Loading query={catalogue} count={4} label="Loading the catalogue" />
      ) : catalogue.isError ? (
        <ErrorState error={catalogue.error} onRetry={() => void catalogue.refetch()} />
      ) : (
        (() => {
          const shown = catalogue.data.categories
            .map((category) => ({
              category,
              capabilities: catalogue.data.data.filter((capability) => capability.category === category.slug && matches(capability, words)),
            }))
            .filter((group) => group.capabilities.length > 0);
          return (
            <>
              <div className="field capability-filter">
                <label htmlFor="capability-filter">Filter capabilities</label>
                <input
                  id="capability-filter"
                  type="search"
                  value={filter}
                  onChange={(e) => setFilter(e.target.value)}
                  placeholder="e.g. translate, invoices, weather"
                />
              </div>
              {shown.length > 0 && (
                <nav aria-label="Jump to a category" className="jump-list">
                  <ul>
                    {shown.map(({ category }) => (
                      <li key={category.slug}>
                        <a href={`#category-${category.slug}`}>{category.name}</a>
                      </li>
                    ))}
                  </ul>
                </nav>
              )}
              {shown.length === 0 ? (
                <div className="state">
                  <p className="state-title">No capability matches “{filter}”.</p>
                  <p className="muted">
                    Try other words, or <Link to={`/agents?q=${encodeURIComponent(filter)}`}>search the agents for it</Link>.
                  </p>
                </div>
              ) : (
                <div className="catalogue">
                  {shown.map(({ category, capabilities }) => {
                    const inCategory = countOf(counts.data?.data.categories, category.slug);
                    return (
                      <section key={category.slug} aria-labelledby={`category-${category.slug}`}>
                        <h2 id={`category-${category.slug}`}>
                          <Link to={`/agents?category=${encodeURIComponent(category.slug)}`}>{category.name}</Link>{' '}
                          <span className="muted capability-count">{agentsText(inCategory)}</span>
                        </h2>
                        <ul>
                          {capabilities.map((capability) => {
                            const count = countOf(counts.data?.data.capabilities, capability.slug);
                            return (
                              <li key={capability.slug} className={count === 0 ? 'capability-empty' : undefined}>
                                <span className="capability-line">
                                  {count === 0 ? (
                                    <span className="capability-name">{capability.name}</span>
                                  ) : (
                                    <Link className="capability-name" to={`/agents?capability=${encodeURIComponent(capability.slug)}`}>
                                      {capability.name}
                                    </Link>
                                  )}
                                  <span className="capability-count">{agentsText(count)}</span>
                                </span>
                                <span className="muted capability-description">{capability.description}</span>
                              </li>
                            );
                          })}
                        </ul>
                      </section>
                    );
                  })}
                </div>
              )}
            </>
          );
        })()
      )}
    </div>
  );
}
