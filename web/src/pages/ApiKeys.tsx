import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import type { ApiKey, NewApiKey } from '../api/types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { RequireAccount } from '../components/RequireAccount';
import { SecretBox } from '../components/SecretBox';
import { EmptyState, ErrorState, SkeletonRows } from '../components/States';
import { exactTime, relativeTime } from '../lib/format';

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

function KeysBody() {
  const client = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => unwrap(api.GET('/v1/api-keys', { params: { query: { limit: 100, offset: 0 } } })) });
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
      const { data } = await unwrap(api.POST('/v1/api-keys', { body: { name: name.trim() } }));
      setCreated(data);
      setName('');
      void client.invalidateQueries({ queryKey: ['api-keys'] });
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'UNKNOWN', String(caught)));
    }
  };
  const nameError = error?.forField('name') ?? (name.length > 100 ? 'At most 100 characters' : null);
  return (
    <div className="page">
      <h1>API keys</h1>
      <nav aria-label="Settings sections" className="agent-card-meta">
        <Link to="/settings">Account</Link>
        <Link to="/settings/keys" aria-current="page">
          API keys
        </Link>
      </nav>
      <p className="muted">Keys let your programs call the API as you. Send one as “Authorization: Bearer agk_…”.</p>
      {created && <SecretBox title={`Key “${created.name}” created.`} label="Your new API key" secret={created.key} testId="new-key" onDone={() => setCreated(null)} />}
      <form className="inline-form" onSubmit={create} noValidate>
        <div className="field">
          <label htmlFor="key-name">New key name</label>
          <input id="key-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. laptop" aria-describedby="key-name-message" aria-invalid={Boolean(nameError)} />
        </div>
        <button className="button button-primary" type="submit">
          Create key
        </button>
      </form>
      <p id="key-name-message" className="field-error">
        {nameError ?? (error && !error.forField('name') ? error.message : null)}
      </p>
      <h2>Your keys</h2>
      {keys.isPending ? (
        <SkeletonRows count={2} label="Loading keys" />
      ) : keys.isError ? (
        <ErrorState error={keys.error} onRetry={() => void keys.refetch()} />
      ) : keys.data.data.length === 0 ? (
        <EmptyState title="No API keys yet.">
          <p className="muted">Create one above to call the API from a program.</p>
        </EmptyState>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.data.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td className="mono">{key.prefix}…</td>
                <td>
                  <time dateTime={key.createdAt} title={exactTime(key.createdAt)}>
                    {relativeTime(key.createdAt)}
                  </time>
                </td>
                <td>{key.lastUsedAt ? <time dateTime={key.lastUsedAt} title={exactTime(key.lastUsedAt)}>{relativeTime(key.lastUsedAt)}</time> : 'never'}</td>
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
