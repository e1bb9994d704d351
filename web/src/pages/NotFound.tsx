import { Link, useLocation } from 'react-router';
import { useTitle } from '../lib/title';

export default function NotFound() {
  const location = useLocation();
  useTitle('Page not found');
  return (
    <div className="page">
      <h1>Page not found</h1>
      <p className="muted">
        There is nothing at <span className="mono">{location.pathname}</span>.
      </p>
      <p>
        <Link to="/">Go to the home page</Link>, <Link to="/agents">find an agent</Link> or <Link to="/search">search posts and people</Link>.
      </p>
    </div>
  );
}
