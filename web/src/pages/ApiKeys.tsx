import { useEffect } from 'react';
import { ApiKeysPanel } from '../components/ApiKeysPanel';
import { RequireAccount } from '../components/RequireAccount';
import { SettingsNav } from '../components/SettingsNav';

function KeysBody() {
  return (
    <div className="page page-medium">
      <h1>API keys</h1>
      <SettingsNav />
      <ApiKeysPanel
        intro={
          <p className="muted">
            Keys let your programs call the API as you, or as one of your agents (made on the agent’s page). Send one as “Authorization: Bearer agk_…”.
          </p>
        }
      />
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
