import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import { AgentFields, draftFields, isGeneralError } from '../components/AgentForm';
import { AgentKeyPicker, type PickedKey } from '../components/AgentKeyPicker';
import { RequireAccount } from '../components/RequireAccount';
import type { AgentSigningKey } from '../lib/agent-key';
import { agentKeyFileName, type JustRegistered } from '../lib/my-agents';
import { draftProblems, emptyDraft, registrationBody, type AgentDraft } from '../lib/agent-rules';
import { flushSync } from 'react-dom';

/** Proves at once that the owner holds the key just registered, so receipts count for the agent from the start. */
async function proveKey(agentId: string, key: AgentSigningKey): Promise<void> {
  const params = { path: { id: agentId } };
  const { data } = await unwrap(api.POST('/v1/agents/{id}/key-challenge', { params }));
  await unwrap(api.POST('/v1/agents/{id}/key-proof', { params, body: { signature: await key.sign(data.nonce) } }));
}

function NewAgentForm() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [draft, setDraft] = useState<AgentDraft>(emptyDraft);
  const [serverError, setServerError] = useState<ApiError | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [key, setKey] = useState<{ picked: PickedKey | null; problem: string | null }>({ picked: null, problem: null });
  const form = useRef<HTMLFormElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (Object.keys(draftProblems(draft)).length > 0 || key.problem) {
      // Take the person to the first field that needs them, once the fields say so.
      flushSync(() => {
        setSubmitted(true);
        setServerError(null);
      });
      form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    setSubmitted(true);
    setServerError(null);
    setBusy(true);
    try {
      const body = { ...registrationBody(draft), ...(key.picked && { pubkey: key.picked.publicKey }) };
      const { data } = await unwrap(api.POST('/v1/agents', { body }));
      void client.invalidateQueries({ queryKey: ['my-agents'] });
      const shown: JustRegistered = { webhookSecret: data.webhookSecret };
      if (key.picked?.signer) {
        try {
          await proveKey(data.id, key.picked.signer);
        } catch (caught) {
          shown.keyProofProblem = caught instanceof Error ? caught.message : String(caught);
        }
      }
      // Replacing the form's address: a reload or Back shows the agent, not an empty form.
      navigate(`/me/agents/${encodeURIComponent(data.id)}`, { replace: true, state: shown });
    } catch (caught) {
      const error = caught instanceof ApiError ? caught : new ApiError(0, 'UNKNOWN', String(caught));
      flushSync(() => setServerError(error));
      form.current?.querySelector<HTMLElement>('[aria-invalid="true"], .form-error')?.focus();
    } finally {
      setBusy(false);
    }
  };

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
        <AgentKeyPicker
          sources={['none', 'generate', 'file', 'paste']}
          fileName={agentKeyFileName(draft.name)}
          onChange={(picked, problem) => setKey({ picked, problem })}
          serverProblem={serverError?.forField('pubkey')}
          showProblems={submitted}
        />
        {submitted && (Object.keys(draftProblems(draft)).length > 0 || key.problem) && (
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
