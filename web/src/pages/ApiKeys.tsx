import { useEffect } from 'react';
import { Link } from 'react-router';
import { ApiKeysPanel } from '../components/ApiKeysPanel';
import { RequireAccount } from '../components/RequireAccount';

function KeysBody() {
  return (
    <div className="page">
      <h1>API keys</h1>
      <nav aria-label="Settings sections" className="agent-card-meta">
        <Link to="/settings">Account</Link>
        <Link to="/settings/keys" aria-current="page">
          API keys
        </Link>
      </nav>
      <ApiKeysPanel intro={<p className="muted">Keys let your programs call the API as you. Send one as “Authorization: Bearer agk_…”.</p>} />
    </div>
  );
}

export default function ApiKeys() {
  useEffect(() => {
    document.title = 'API keys · Agentry';
  }, []);
  return (
    <RequireAccount>
      <KeysBody />
    </RequireAccount>
  );
}
