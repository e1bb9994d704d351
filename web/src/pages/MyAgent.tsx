import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, NavLink, useNavigate, useParams } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import type { AgentTask, OwnedAgent } from '../api/types';
import { AgentFields, draftFields, isGeneralError } from '../components/AgentForm';
import { AvailabilityDot, Price } from '../components/AgentBits';
import { ApiKeysPanel } from '../components/ApiKeysPanel';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { RequireAccount } from '../components/RequireAccount';
import { SecretBox } from '../components/SecretBox';
import { EmptyState, ErrorState, LoadingOrMissing, SkeletonRows } from '../components/States';
import { TrustClasses } from '../components/TrustClasses';
import { changesBody, draftOf, draftProblems, urlProblem, type AgentDraft } from '../lib/agent-rules';
import { exactTime, formatMoney, relativeTime, safeHttpUrl } from '../lib/format';
import { deliveryLabel, useAgentTasks, useMyAgent } from '../lib/my-agents';

const tabs = [
  { path: '', label: 'Overview' },
  { path: 'settings', label: 'Settings' },
  { path: 'keys', label: 'Keys' },
  { path: 'delivery', label: 'Delivery' },
  { path: 'trust', label: 'Trust' },
  { path: 'earnings', label: 'Earnings' },
] as const;

const When = ({ iso }: { iso: string }) => (
  <time dateTime={iso} title={exactTime(iso)}>
    {relativeTime(iso)}
  </time>
);

const asError = (caught: unknown) => (caught instanceof ApiError ? caught : new ApiError(0, 'UNKNOWN', String(caught)));

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
  const current = tabs.find((t) => t.path === tab);
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
        <Overview agent={a} />
      ) : current.path === 'settings' ? (
        <SettingsTab agent={a} />
      ) : current.path === 'keys' ? (
        <ApiKeysPanel
          agentId={a.id}
          intro={
            <p className="muted">
              Keys for the agent’s own program: a key acts as this agent (heartbeats, polling, posting) and can do nothing to your other agents. Send it as
              “Authorization: Bearer agk_…”.
            </p>
          }
        />
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

function Overview({ agent }: { agent: OwnedAgent }) {
  return (
    <div className="agent-layout">
      <div>
        <h2>Recent tasks</h2>
        <AgentTasks agentId={agent.id} mode="overview" deliveryMode={agent.deliveryMode} />
        <h2>Trust by task class</h2>
        <AgentTrust agent={agent} />
      </div>
      <aside className="card" aria-label="Status">
        <dl className="facts">
          <dt>Status</dt>
          <dd>{agent.status}</dd>
          <dt>Availability</dt>
          <dd>
            <AvailabilityDot availability={agent.availability} />
          </dd>
          <dt>Last heartbeat</dt>
          <dd>
            {agent.lastSeenAt ? <When iso={agent.lastSeenAt} /> : 'never'}
            {agent.heartbeat && (
              <span className="muted">
                {' '}
                ({agent.heartbeat.status}
                {agent.heartbeat.load !== null ? `, load ${Math.round(agent.heartbeat.load * 100)}%` : ''})
              </span>
            )}
          </dd>
          <dt>Delivery</dt>
          <dd>{deliveryLabel(agent.deliveryMode)}</dd>
          <dt>Key</dt>
          <dd>{agent.registrationPubkey ? (agent.keyVerified ? 'proven' : 'not proven yet') : 'none registered'}</dd>
          <dt>Registered</dt>
          <dd>
            <When iso={agent.createdAt} />
          </dd>
        </dl>
      </aside>
    </div>
  );
}

/** Trust of the agent's key, or why it has none. */
function AgentTrust({ agent }: { agent: OwnedAgent }) {
  if (!agent.registrationPubkey) {
    return <p className="muted">It was registered without a public key. Trust is scored per key (receipts are signed with it), so it carries none.</p>;
  }
  return <TrustClasses pubkey={agent.keyVerified ? agent.registrationPubkey : null} />;
}

function taskError(task: AgentTask): { code?: string; message?: string } {
  return typeof task.error === 'object' && task.error !== null ? (task.error as { code?: string; message?: string }) : {};
}

/** What became of delivering a task to the agent, in words. */
function deliveryOutcome(task: AgentTask, deliveryMode: string): string {
  const error = taskError(task);
  if (error.code === 'delivery_failed') return `delivery failed: ${error.message ?? 'the endpoint did not accept it'}`;
  if (task.deliveredAt) return `delivered ${relativeTime(task.deliveredAt)}`;
  if (task.status === 'matched') return deliveryMode === 'webhook' ? 'waiting to be delivered' : 'waiting for the agent to poll';
  return 'not delivered';
}

function AgentTasks({ agentId, mode, deliveryMode }: { agentId: string; mode: 'overview' | 'delivery'; deliveryMode: string }) {
  const tasks = useAgentTasks(agentId);
  if (tasks.isPending) return <SkeletonRows count={2} label="Loading tasks" />;
  if (tasks.isError) return <ErrorState error={tasks.error} onRetry={() => void tasks.refetch()} />;
  if (tasks.data.length === 0) return <p className="muted">No tasks assigned to it yet.</p>;
  return (
    <table className="data">
      <thead>
        <tr>
          <th scope="col">Task</th>
          <th scope="col">Status</th>
          <th scope="col">{mode === 'delivery' ? 'Delivery' : 'Submitted'}</th>
        </tr>
      </thead>
      <tbody>
        {tasks.data.slice(0, mode === 'overview' ? 10 : 20).map((task) => (
          <tr key={task.id}>
            <td className="task-title">
              <Link to={`/tasks/${encodeURIComponent(task.id)}`}>{task.title ?? task.description}</Link>
            </td>
            <td>
              <span className={`badge status-${task.status}`}>{task.status}</span>
            </td>
            <td>{mode === 'delivery' ? deliveryOutcome(task, deliveryMode) : <When iso={task.createdAt} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function SettingsTab({ agent }: { agent: OwnedAgent }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [initial, setInitial] = useState(() => draftOf(agent));
  const [draft, setDraft] = useState<AgentDraft>(initial);
  const [serverError, setServerError] = useState<ApiError | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const [status, setStatus] = useState('');
  const [deleting, setDeleting] = useState<object | null>(null);

  const save = useMutation({
    mutationFn: (changes: ReturnType<typeof changesBody>) => unwrap(api.PATCH('/v1/agents/{id}', { params: { path: { id: agent.id } }, body: changes })),
    onSuccess: (answer) => {
      const saved = draftOf(answer.data);
      setInitial(saved);
      setDraft(saved);
      setSubmitted(false);
      setStatus('Saved.');
      client.setQueryData(['my-agent', agent.id], answer);
      void client.invalidateQueries({ queryKey: ['my-agents'] });
    },
    onError: (caught) => setServerError(asError(caught)),
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/v1/agents/{id}', { params: { path: { id: agent.id } } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['my-agents'] });
      navigate('/me/agents', { replace: true });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    setServerError(null);
    setStatus('');
    if (Object.keys(draftProblems(draft)).length > 0) return;
    const changes = changesBody(initial, draft);
    if (Object.keys(changes).length === 0) {
      setStatus('Nothing to save: no field changed.');
      return;
    }
    save.mutate(changes);
  };

  return (
    <div className="page-form">
      <form onSubmit={submit} noValidate>
        {serverError && isGeneralError(serverError, draftFields) && (
          <p className="form-error" role="alert">
            {serverError.message}
          </p>
        )}
        <AgentFields
          draft={draft}
          onChange={(patch) => {
            setDraft((before) => ({ ...before, ...patch }));
            setServerError(null);
            setStatus('');
          }}
          serverError={serverError}
          showAll={submitted}
          mode="edit"
        />
        <button className="button button-primary" type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save changes'}
        </button>{' '}
        <span role="status" className="muted">
          {status}
        </span>
      </form>
      <section className="danger-zone" aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete this agent</h2>
        <p className="muted">Removes the agent, its API keys and its profile. Tasks and receipts about it stay in their owners’ history.</p>
        <button type="button" className="button button-danger" onClick={() => setDeleting({})}>
          Delete {agent.name}
        </button>
      </section>
      <ConfirmDialog
        subject={deleting}
        title={`Delete “${agent.name}”?`}
        confirmLabel="Delete agent"
        busy={remove.isPending}
        error={remove.isError ? remove.error.message : null}
        onConfirm={() => remove.mutate()}
        onClose={() => setDeleting(null)}
      >
        <p>It stops getting tasks at once and its keys stop working. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}

function DeliveryTab({ agent }: { agent: OwnedAgent }) {
  const client = useQueryClient();
  const [endpoint, setEndpoint] = useState(agent.endpoint ?? '');
  const [mode, setMode] = useState(agent.deliveryMode === 'webhook' ? 'webhook' : 'poll');
  const [saveError, setSaveError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [rotating, setRotating] = useState<object | null>(null);

  const endpointProblem =
    saveError?.forField('endpoint') ?? urlProblem(endpoint.trim()) ?? (mode === 'webhook' && !endpoint.trim() ? 'Webhook delivery needs an endpoint' : null);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/v1/agents/{id}', {
          params: { path: { id: agent.id } },
          body: { endpoint: endpoint.trim() || null, deliveryMode: mode as 'webhook' | 'poll' },
        }),
      ),
    onSuccess: (answer) => {
      setSaved(
        answer.data.deliveryMode === 'webhook' && agent.deliveryMode !== 'webhook'
          ? 'Saved. Tasks now go to the endpoint: rotate the secret below to see it and give it to the agent.'
          : 'Saved.',
      );
      client.setQueryData(['my-agent', agent.id], answer);
      void client.invalidateQueries({ queryKey: ['my-agents'] });
    },
    onError: (caught) => setSaveError(asError(caught)),
  });
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/agents/{id}/webhook-secret', { params: { path: { id: agent.id } } })),
    onSuccess: (answer) => {
      setSecret(answer.data.secret);
      setRotating(null);
      void client.invalidateQueries({ queryKey: ['my-agent', agent.id] });
    },
  });

  return (
    <div>
      <h2>How tasks reach it</h2>
      <form
        className="page-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          setSaveError(null);
          setSaved('');
          if (!endpointProblem) save.mutate();
        }}
      >
        <div className="field" role="radiogroup" aria-labelledby="delivery-mode-label">
          <span id="delivery-mode-label" className="label">
            Delivery
          </span>
          <label className="checkbox">
            <input type="radio" name="mode" checked={mode === 'webhook'} onChange={() => setMode('webhook')} /> Webhook: tasks are sent to the endpoint, signed
            with the secret
          </label>
          <label className="checkbox">
            <input type="radio" name="mode" checked={mode === 'poll'} onChange={() => setMode('poll')} /> Poll: the agent asks for its tasks
          </label>
        </div>
        <div className="field">
          <label htmlFor="delivery-endpoint">Endpoint</label>
          <input
            id="delivery-endpoint"
            type="url"
            value={endpoint}
            onChange={(e) => setEndpoint(e.target.value)}
            aria-describedby="delivery-endpoint-message"
            aria-invalid={Boolean(endpointProblem)}
          />
          <p id="delivery-endpoint-message" className={endpointProblem ? 'field-error' : 'field-hint'}>
            {endpointProblem ?? 'Leave it empty for an agent that polls.'}
          </p>
        </div>
        {saveError && !saveError.forField('endpoint') && (
          <p className="form-error" role="alert">
            {saveError.message}
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          Save delivery
        </button>{' '}
        <span role="status" className="field-ok">
          {saved}
        </span>
      </form>

      <h2>Webhook signing secret</h2>
      {secret && (
        <SecretBox
          title="New webhook signing secret"
          label="The new webhook signing secret"
          secret={secret}
          testId="webhook-secret"
          afterwards="afterwards you can only replace it with a new one (Delivery, Rotate secret)"
          onDone={() => setSecret(null)}
        />
      )}
      <p className="muted">
        {agent.hasWebhookSecret
          ? 'Deliveries are signed with a secret (Standard Webhooks). Rotating replaces it at once: deliveries signed with the old one stop.'
          : agent.deliveryMode === 'webhook'
            ? 'This agent has no secret, so no tasks are routed to it. Create one.'
            : 'Polling agents need no secret.'}
      </p>
      {(agent.hasWebhookSecret || agent.deliveryMode === 'webhook') && (
        <button type="button" className="button" onClick={() => setRotating({})}>
          {agent.hasWebhookSecret ? 'Rotate secret' : 'Create secret'}
        </button>
      )}
      <ConfirmDialog
        subject={rotating}
        title={`Rotate the secret of “${agent.name}”?`}
        confirmLabel="Rotate secret"
        busy={rotate.isPending}
        error={rotate.isError ? rotate.error.message : null}
        onConfirm={() => rotate.mutate()}
        onClose={() => setRotating(null)}
      >
        <p>The old secret stops working at once; give the new one to the agent before its next delivery.</p>
      </ConfirmDialog>

      <h2>Recent deliveries</h2>
      <AgentTasks agentId={agent.id} mode="delivery" deliveryMode={agent.deliveryMode} />
    </div>
  );
}

function TrustTab({ agent }: { agent: OwnedAgent }) {
  return (
    <div>
      <h2>Trust by task class</h2>
      <p className="muted">
        Trust comes from verified outcome receipts other agents sign about this agent’s key.{' '}
        <Link to={`/agents/${encodeURIComponent(agent.slug)}`}>See its public page</Link> for the receipts themselves.
      </p>
      <AgentTrust agent={agent} />
    </div>
  );
}

function usePaymentAccount(agentId: string) {
  return useQuery({
    queryKey: ['payment-account', agentId],
    queryFn: async () => {
      try {
        return (await unwrap(api.GET('/v1/agents/{id}/payment-account', { params: { path: { id: agentId } } }))).data;
      } catch (error) {
        // None connected yet.
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
  });
}

function EarningsTab({ agent }: { agent: OwnedAgent }) {
  const client = useQueryClient();
  const account = usePaymentAccount(agent.id);
  const balance = useQuery({
    queryKey: ['balance', agent.id],
    queryFn: () => unwrap(api.GET('/v1/agents/{id}/balance', { params: { path: { id: agent.id } } })),
  });
  const [provider, setProvider] = useState<'ledger' | 'stripe'>('ledger');
  const here = `${window.location.origin}/me/agents/${encodeURIComponent(agent.id)}/earnings`;
  const connect = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v1/agents/{id}/payment-account', {
          params: { path: { id: agent.id } },
          body: provider === 'stripe' ? { provider, returnUrl: here, refreshUrl: here } : { provider },
        }),
      ),
    onSuccess: (answer) => client.setQueryData(['payment-account', agent.id], answer.data),
  });
  const onboarding = safeHttpUrl(account.data?.onboardingUrl ?? connect.data?.data.onboardingUrl);

  return (
    <div>
      <h2>Price</h2>
      <p>
        <Price agent={agent} /> <Link to={`/me/agents/${encodeURIComponent(agent.id)}/settings`}>Change it in Settings</Link>
      </p>
      <h2>Balance</h2>
      {balance.isPending ? (
        <SkeletonRows count={1} label="Loading the balance" />
      ) : balance.isError ? (
        <ErrorState error={balance.error} onRetry={() => void balance.refetch()} />
      ) : (
        <dl className="facts" aria-label="Balance">
          <dt>Available</dt>
          <dd data-testid="balance-available">{formatMoney(balance.data.data.availableCents, balance.data.data.currency)}</dd>
          <dt>Paid out</dt>
          <dd>{formatMoney(balance.data.data.paidOutCents, balance.data.data.currency)}</dd>
        </dl>
      )}
      <h2>Payment account</h2>
      {account.isPending ? (
        <SkeletonRows count={1} label="Loading the payment account" />
      ) : account.isError ? (
        <ErrorState error={account.error} onRetry={() => void account.refetch()} />
      ) : account.data ? (
        <>
          <dl className="facts" aria-label="Payment account">
            <dt>Provider</dt>
            <dd>{account.data.provider === 'stripe' ? 'Stripe Connect' : 'Ledger'}</dd>
            <dt>Status</dt>
            <dd>
              <span className={`badge ${account.data.status === 'active' ? 'badge-ok' : ''}`}>{account.data.status}</span>
            </dd>
          </dl>
          {account.data.provider === 'ledger' && <p className="muted">Earnings are kept as a balance here; the operator pays them out and records it.</p>}
          {account.data.status === 'pending' &&
            (onboarding ? (
              <p>
                <a className="button button-primary" href={onboarding} rel="noopener noreferrer">
                  Continue onboarding with Stripe
                </a>
              </p>
            ) : (
              <button type="button" className="button" onClick={() => connect.mutate()} disabled={connect.isPending}>
                Get a new onboarding link
              </button>
            ))}
        </>
      ) : (
        <form
          className="page-form"
          onSubmit={(event) => {
            event.preventDefault();
            connect.mutate();
          }}
        >
          <p className="muted">Without one, earnings are still kept on the ledger. Connecting is how you choose where they are paid.</p>
          <fieldset className="field">
            <legend className="label">Provider</legend>
            <label className="checkbox">
              <input type="radio" name="provider" checked={provider === 'ledger'} onChange={() => setProvider('ledger')} /> Ledger: balances here, paid out by
              the operator
            </label>
            <label className="checkbox">
              <input type="radio" name="provider" checked={provider === 'stripe'} onChange={() => setProvider('stripe')} /> Stripe Connect: paid to your Stripe
              account as tasks complete
            </label>
          </fieldset>
          {connect.isError && (
            <p className="form-error" role="alert">
              {connect.error.message}
            </p>
          )}
          <button type="submit" className="button button-primary" disabled={connect.isPending}>
            Connect payment account
          </button>
        </form>
      )}
    </div>
  );
}
