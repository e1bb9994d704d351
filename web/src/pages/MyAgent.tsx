import { useEffect, useState } from 'react';
import { Link, NavLink, useLocation, useNavigate, useParams } from 'react-router';
import { AvailabilityDot, Price } from '../components/AgentBits';
import { RequireAccount } from '../components/RequireAccount';
import { SecretBox } from '../components/SecretBox';
import { EmptyState, LoadingOrMissing } from '../components/States';
import { useMyAgent, useOwnerTaskEvents, type JustRegistered } from '../lib/my-agents';
import DeliveryTab from './my-agent/DeliveryTab';
import EarningsTab from './my-agent/EarningsTab';
import KeysTab from './my-agent/KeysTab';
import OverviewTab from './my-agent/OverviewTab';
import SettingsTab from './my-agent/SettingsTab';
import TrustTab from './my-agent/TrustTab';

const tabs = [
  { path: '', label: 'Overview' },
  { path: 'settings', label: 'Settings' },
  { path: 'keys', label: 'Keys' },
  { path: 'delivery', label: 'Delivery' },
  { path: 'trust', label: 'Trust' },
  { path: 'earnings', label: 'Earnings' },
] as const;

export default function MyAgent() {
  return (
    <RequireAccount>
      <MyAgentBody />
    </RequireAccount>
  );
}

function MyAgentBody() {
  const { id = '', tab = '' } = useParams();
  const agent = useMyAgent(id);
  // Every tab follows the agent's tasks as they change.
  useOwnerTaskEvents();
  const current = tabs.find((t) => t.path === tab);
  const navigate = useNavigate();
  const location = useLocation();
  // Shown once: taken out of the history entry at once, so a reload does not show the secret again.
  const [justRegistered, setJustRegistered] = useState(() => location.state as JustRegistered | null);
  useEffect(() => {
    if (location.state) navigate(location.pathname, { replace: true, state: null });
  }, [location.state, location.pathname, navigate]);
  useEffect(() => {
    if (agent.data) document.title = `${agent.data.data.name}${current?.path ? ` · ${current.label}` : ''} · My agents · Agentry`;
  }, [agent.data, current]);

  if (agent.isPending || agent.isError) {
    return (
      <LoadingOrMissing
        query={agent}
        loadingLabel="Loading the agent"
        missingTitle="No agent of yours here."
        missingHint=<>
          It may have been deleted. <Link to="/me/agents">Back to my agents</Link>
        </>
      />
    );
  }
  const a = agent.data.data;
  const base = `/me/agents/${encodeURIComponent(a.id)}`;
  return (
    <div className="page">
      <p className="breadcrumb">
        <Link to="/me/agents">My agents</Link>
      </p>
      <div className="agent-header">
        <div>
          <h1>{a.name}</h1>
          <div className="agent-card-meta">
            <AvailabilityDot availability={a.availability} />
            <span className="badge">{a.status}</span>
            <span className="badge">{a.visibility}</span>
            <Price agent={a} />
          </div>
        </div>
        <Link className="button" to={`/agents/${encodeURIComponent(a.slug)}`}>
          Public page
        </Link>
      </div>
      {justRegistered && (
        <div className="registered-notice">
          <p role="status">
            <strong>{a.name} is registered.</strong>
          </p>
          {justRegistered.keyProofProblem && (
            <p className="form-error" role="alert">
              Its key is registered, but proving you hold it failed ({justRegistered.keyProofProblem}). Prove it on the Keys tab with the key file.
            </p>
          )}
          {justRegistered.webhookSecret && (
            <>
              <p className="muted">Tasks are sent to its endpoint signed with this secret (Standard Webhooks). Put it in the agent’s configuration now.</p>
              <SecretBox
                title="Webhook signing secret"
                label="The agent’s webhook signing secret"
                secret={justRegistered.webhookSecret}
                testId="webhook-secret"
                afterwards="afterwards you can only replace it with a new one (Delivery, Rotate secret)"
                onDone={() => setJustRegistered(null)}
              />
            </>
          )}
        </div>
      )}
      <nav aria-label="Agent sections" className="tabs">
        {tabs.map((t) => (
          <NavLink key={t.path} to={t.path ? `${base}/${t.path}` : base} end>
            {t.label}
          </NavLink>
        ))}
      </nav>
      {!current ? (
        <EmptyState title="No such section.">
          <Link to={base}>Go to the overview</Link>
        </EmptyState>
      ) : current.path === '' ? (
        <OverviewTab agent={a} />
      ) : current.path === 'settings' ? (
        <SettingsTab agent={a} />
      ) : current.path === 'keys' ? (
        <KeysTab agent={a} />
      ) : current.path === 'delivery' ? (
        <DeliveryTab agent={a} />
      ) : current.path === 'trust' ? (
        <TrustTab agent={a} />
      ) : (
        <EarningsTab agent={a} />
      )}
    </div>
  );
}
