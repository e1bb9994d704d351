import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ApiError, unwrap } from '../../api/client';
import type { OwnedAgent } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { SecretBox } from '../../components/SecretBox';
import { urlProblem } from '../../lib/agent-rules';
import { AgentTasks, asError } from './shared';

export default function DeliveryTab({ agent }: { agent: OwnedAgent }) {
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
