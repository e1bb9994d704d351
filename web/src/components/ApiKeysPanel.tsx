import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import type { ApiKey, NewApiKey } from '../api/types';
import { exactTime, relativeTime } from '../lib/format';
import { useMyAgents } from '../lib/my-agents';
import { ConfirmDialog } from './ConfirmDialog';
import { SecretBox } from './SecretBox';
import { EmptyState, ErrorState, Loading } from './States';

function RevokeDialog({ apiKey, onClose }: { apiKey: ApiKey | null; onClose: () => void }) {
  const client = useQueryClient();
  const revoke = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/v1/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['api-keys'] });
      onClose();
    },
  });
  return (
    <ConfirmDialog
      subject={apiKey}
      title={`Revoke “${apiKey?.name ?? ''}”?`}
      confirmLabel="Revoke key"
      busy={revoke.isPending}
      error={revoke.isError ? revoke.error.message : null}
      onConfirm={() => apiKey && revoke.mutate(apiKey.id)}
      onClose={onClose}
    >
      <p>
        Programs using the key <span className="mono">{apiKey?.prefix}…</span> stop working at once. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

/** Whom a key acts as: the person, or one of their agents by name (a link to it), or an agent since deleted. */
function ActsAs({ agentId, agents }: { agentId: string | null; agents: { id: string; name: string }[] | undefined }) {
  if (agentId === null) return <>you</>;
  if (agents === undefined) return null;
  const agent = agents.find((mine) => mine.id === agentId);
  return agent ? <Link to={`/me/agents/${encodeURIComponent(agent.id)}`}>{agent.name}</Link> : <span className="muted">a deleted agent</span>;
}

/**
 * Create, list (by prefix) and revoke API keys: the person's own, or with `agentId` the keys that act
 * as that agent. A new key's secret is shown once.
 */
export function ApiKeysPanel({ agentId, intro }: { agentId?: string; intro: ReactNode }) {
  const client = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => unwrap(api.GET('/v1/api-keys', { params: { query: { limit: 100, offset: 0 } } })) });
  const shown = keys.data?.data.filter((key) => agentId === undefined || key.agentId === agentId) ?? [];
  // The person's own list says whom each key acts as; an agent's list is all of that agent.
  const myAgents = useMyAgents();
  const showActsAs = agentId === undefined;
  const [name, setName] = useState('');
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) {
      setError(new ApiError(400, 'BAD_REQUEST', 'Give the key a name', [{ path: '/body/name', message: 'Give the key a name' }]));
      return;
    }
    setError(null);
    try {
      const { data } = await unwrap(api.POST('/v1/api-keys', { body: { name: name.trim(), ...(agentId ? { agentId } : {}) } }));
      setCreated(data);
      setName('');
      void client.invalidateQueries({ queryKey: ['api-keys'] });
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'UNKNOWN', String(caught)));
    }
  };
  const nameError = error?.forField('name') ?? (name.length > 100 ? 'At most 100 characters' : null);
  return (
    <div>
      {intro}
      {created && (
        <SecretBox title={`Key “${created.name}” created.`} label="Your new API key" secret={created.key} testId="new-key" onDone={() => setCreated(null)} />
      )}
      <form className="inline-form" onSubmit={create} noValidate>
        <div className="field">
          <label htmlFor="key-name">New key name</label>
          <input
            id="key-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. laptop"
            aria-describedby="key-name-message"
            aria-invalid={Boolean(nameError)}
          />
        </div>
        <button className="button button-primary" type="submit">
          Create key
        </button>
      </form>
      <p id="key-name-message" className="field-error">
        {nameError ?? (error && !error.forField('name') ? error.message : null)}
      </p>
      <h2>{agentId ? 'Its keys' : 'Your keys'}</h2>
      {keys.isPending ? (
        <Loading query={keys} count={2} label="Loading keys" />
      ) : keys.isError ? (
        <ErrorState error={keys.error} onRetry={() => void keys.refetch()} />
      ) : shown.length === 0 ? (
        <EmptyState title="No API keys yet.">
          <p className="muted">
            {agentId
              ? 'Create one above for the agent’s own program: it acts as this agent and nothing else.'
              : 'Create one above to call the API from a program.'}
          </p>
        </EmptyState>
      ) : (
        <table className="data keys-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              {showActsAs && <th scope="col">Acts as</th>}
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td className="mono">{key.prefix}…</td>
                {showActsAs && (
                  <td data-label="Acts as">
                    <ActsAs agentId={key.agentId} agents={myAgents.data?.data} />
                  </td>
                )}
                <td data-label="Created">
                  <time dateTime={key.createdAt} title={exactTime(key.createdAt)}>
                    {relativeTime(key.createdAt)}
                  </time>
                </td>
                <td data-label="Last used">
                  {key.lastUsedAt ? (
                    <time dateTime={key.lastUsedAt} title={exactTime(key.lastUsedAt)}>
                      {relativeTime(key.lastUsedAt)}
                    </time>
                  ) : (
                    'never'
                  )}
                </td>
                <td>
                  {key.revokedAt ? (
                    <span className="badge">revoked</span>
                  ) : (
                    // A fresh object, so a click opens the dialog again even before the last close has been reported.
                    <button type="button" className="button button-danger" onClick={() => setRevoking({ ...key })} aria-label={`Revoke ${key.name}`}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <RevokeDialog apiKey={revoking} onClose={() => setRevoking(null)} />
    </div>
  );
}
