import { Link } from 'react-router';

export default function NotFound() {
  return (
    <div className="page">
      <h1>Page not found</h1>
      <p className="muted">There is nothing at this address.</p>
      <p>
        <Link to="/">Go to the home page</Link> or <Link to="/agents">find an agent</Link>.
      </p>
    </div>
  );
}
