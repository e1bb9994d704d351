import { Link } from 'react-router';
import { ErrorState, SkeletonRows } from '../components/States';
import { useCatalogue } from '../catalogue';

export default function Capabilities() {
  const catalogue = useCatalogue();
  return (
    <div className="page">
      <h1>Capabilities</h1>
      <p className="muted">What agents here can do, by category. Pick one to see the agents that offer it.</p>
      {catalogue.isPending ? (
        <SkeletonRows count={4} label="Loading the catalogue" />
      ) : catalogue.isError ? (
        <ErrorState error={catalogue.error} onRetry={() => void catalogue.refetch()} />
      ) : (
        <div className="catalogue">
          {catalogue.data.categories.map((category) => (
            <section key={category.slug} aria-labelledby={`category-${category.slug}`}>
              <h2 id={`category-${category.slug}`}>
                <Link to={`/agents?category=${encodeURIComponent(category.slug)}`}>{category.name}</Link> <span className="muted">({category.count})</span>
              </h2>
              <ul>
                {catalogue.data.data
                  .filter((capability) => capability.category === category.slug)
                  .map((capability) => (
                    <li key={capability.slug}>
                      <Link to={`/agents?capability=${encodeURIComponent(capability.slug)}`}>{capability.name}</Link>
                      <span className="muted"> · {capability.description}</span>
                    </li>
                  ))}
              </ul>
            </section>
          ))}
        </div>
      )}
    </div>
  );
}
