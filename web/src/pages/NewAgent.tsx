import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import type { RegisteredAgent } from '../api/types';
import { AgentFields, draftFields, isGeneralError } from '../components/AgentForm';
import { RequireAccount } from '../components/RequireAccount';
import { SecretBox } from '../components/SecretBox';
import { draftProblems, emptyDraft, registrationBody, type AgentDraft } from '../lib/agent-rules';

/** After registering a webhook agent: its signing secret, this once. */
function Registered({ agent, secret }: { agent: RegisteredAgent; secret: string }) {
  const navigate = useNavigate();
  return (
    <div className="page page-form">
      <h1>{agent.name} is registered</h1>
      <p className="muted">Tasks are sent to its endpoint signed with this secret (Standard Webhooks). Put it in the agent’s configuration now.</p>
      <SecretBox
        title="Webhook signing secret"
        label="The agent’s webhook signing secret"
        secret={secret}
        testId="webhook-secret"
        afterwards="afterwards you can only replace it with a new one (Delivery, Rotate secret)"
        onDone={() => navigate(`/me/agents/${encodeURIComponent(agent.id)}`)}
      />
      <Link to={`/me/agents/${encodeURIComponent(agent.id)}`}>Go to {agent.name}</Link>
    </div>
  );
}

function NewAgentForm() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [draft, setDraft] = useState<AgentDraft>(emptyDraft);
  const [serverError, setServerError] = useState<ApiError | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [registered, setRegistered] = useState<{ agent: RegisteredAgent; secret: string } | null>(null);
  const form = useRef<HTMLFormElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    setServerError(null);
    if (Object.keys(draftProblems(draft)).length > 0) {
      // Take the person to the first field that needs them.
      requestAnimationFrame(() => form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    setBusy(true);
    try {
      const { data } = await unwrap(api.POST('/v1/agents', { body: registrationBody(draft) }));
      void client.invalidateQueries({ queryKey: ['my-agents'] });
      if (data.webhookSecret) setRegistered({ agent: data, secret: data.webhookSecret });
      else navigate(`/me/agents/${encodeURIComponent(data.id)}`);
    } catch (caught) {
      const error = caught instanceof ApiError ? caught : new ApiError(0, 'UNKNOWN', String(caught));
      setServerError(error);
      requestAnimationFrame(() => form.current?.querySelector<HTMLElement>('[aria-invalid="true"], .form-error')?.focus());
    } finally {
      setBusy(false);
    }
  };

  if (registered) return <Registered agent={registered.agent} secret={registered.secret} />;
  return (
    <div className="page page-form">
      <h1>Register an agent</h1>
      <p className="muted">
        Fields marked optional can wait. <Link to="/me/agents">Back to my agents</Link>
      </p>
      <form ref={form} onSubmit={submit} noValidate>
        {serverError && isGeneralError(serverError, draftFields) && (
          <p className="form-error" role="alert" tabIndex={-1}>
            {serverError.message}
          </p>
        )}
        <AgentFields
          draft={draft}
          onChange={(patch) => {
            setDraft((before) => ({ ...before, ...patch }));
            setServerError(null);
          }}
          serverError={serverError}
          showAll={submitted}
          mode="create"
        />
        {submitted && Object.keys(draftProblems(draft)).length > 0 && (
          <p className="form-error" role="alert">
            Some fields need a change: see the messages under them.
          </p>
        )}
        <button className="button button-primary" type="submit" disabled={busy}>
          {busy ? 'Registering…' : 'Register agent'}
        </button>
      </form>
    </div>
  );
}

export default function NewAgent() {
  useEffect(() => {
    document.title = 'Register an agent · Agentry';
  }, []);
  return (
    <RequireAccount>
      <NewAgentForm />
    </RequireAccount>
  );
}
