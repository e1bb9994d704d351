import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, ApiError, unwrap } from '../../api/client';
import type { OwnedAgent } from '../../api/types';
import { AgentFields, draftFields, isGeneralError } from '../../components/AgentForm';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { changesBody, draftOf, draftProblems, type AgentDraft } from '../../lib/agent-rules';
import { asError } from './shared';

export default function SettingsTab({ agent }: { agent: OwnedAgent }) {
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
