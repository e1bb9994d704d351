import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, ApiError, unwrap } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorState, Loading } from '../../components/States';

const asApiError = (caught: unknown) => (caught instanceof ApiError ? caught : new ApiError(0, 'UNKNOWN', String(caught)));

/** "Let my completed tasks improve search": one switch bound to /v1/settings/search. */
export function SearchSettings() {
  const client = useQueryClient();
  const settings = useQuery({ queryKey: ['settings', 'search'], queryFn: async () => (await unwrap(api.GET('/v1/settings/search'))).data });
  const update = useMutation({
    mutationFn: async (on: boolean) => (await unwrap(api.PATCH('/v1/settings/search', { body: { completedTasksImproveSearch: on } }))).data,
    onSuccess: (data) => client.setQueryData(['settings', 'search'], data),
  });
  return (
    <section aria-labelledby="search-settings-heading">
      <h2 id="search-settings-heading">Search</h2>
      {settings.isPending ? (
        <Loading query={settings} count={1} />
      ) : settings.isError ? (
        <ErrorState error={settings.error} onRetry={() => void settings.refetch()} />
      ) : (
        <div className="field">
          <label className="checkbox">
            <input
              type="checkbox"
              checked={settings.data.completedTasksImproveSearch}
              disabled={update.isPending}
              aria-describedby="search-settings-hint"
              onChange={(e) => update.mutate(e.target.checked)}
            />
            Let my completed tasks improve search
          </label>
          <p id="search-settings-hint" className="field-hint">
            When you rate a finished task 4 or 5, its words help discovery find that agent for others. They are never shown to anyone. Turning this off removes
            what your tasks gave.
          </p>
          {update.error && (
            <p className="form-error" role="alert">
              {update.error.message}
            </p>
          )}
        </div>
      )}
    </section>
  );
}

/** Current password and a new one; the server ends every other session. */
export function PasswordChange() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setDone(null);
    setBusy(true);
    try {
      const { data } = await unwrap(api.POST('/v1/auth/password', { body: { currentPassword: current, newPassword: next } }));
      setCurrent('');
      setNext('');
      setDone(
        data.otherSessionsEnded === 0
          ? 'Password changed.'
          : `Password changed. ${data.otherSessionsEnded} other session${data.otherSessionsEnded === 1 ? ' was' : 's were'} signed out.`,
      );
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  const fieldError = (field: string) => error?.forField(field);
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="currentPassword">Current password</label>
          <input
            id="currentPassword"
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            aria-invalid={fieldError('currentPassword') ? true : undefined}
            aria-describedby="currentPassword-message"
          />
          <p id="currentPassword-message" className="field-error">
            {fieldError('currentPassword') ?? null}
          </p>
        </div>
        <div className="field">
          <label htmlFor="newPassword">New password</label>
          <input
            id="newPassword"
            type="password"
            autoComplete="new-password"
            value={next}
            onChange={(e) => setNext(e.target.value)}
            aria-invalid={fieldError('newPassword') ? true : undefined}
            aria-describedby="newPassword-message"
          />
          <p id="newPassword-message" className={fieldError('newPassword') ? 'field-error' : 'field-hint'}>
            {fieldError('newPassword') ?? 'At least 8 characters. Your other sessions are signed out; this one stays.'}
          </p>
        </div>
        {error && !fieldError('currentPassword') && !fieldError('newPassword') && (
          <p className="form-error" role="alert">
            {error.message}
          </p>
        )}
        <button className="button" type="submit" disabled={busy}>
          Change password
        </button>{' '}
        <span role="status" className="field-ok">
          {done ?? ''}
        </span>
      </form>
    </section>
  );
}

const CONFIRMATION = 'delete my account';

/** The danger zone: a dialog naming what goes and what stays, then DELETE /v1/account. */
export function AccountDeletion({ hasPassword, username }: { hasPassword: boolean; username: string | null }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [open, setOpen] = useState<object | null>(null);
  const [proof, setProof] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const close = () => {
    setOpen(null);
    setProof('');
    setError(null);
  };
  const confirm = async () => {
    setError(null);
    setBusy(true);
    try {
      await unwrap(api.DELETE('/v1/account', { body: hasPassword ? { password: proof } : { confirm: proof } }));
      client.clear();
      navigate('/', { replace: true });
    } catch (caught) {
      setError(asApiError(caught).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="danger-zone" aria-labelledby="delete-account-heading">
      <h2 id="delete-account-heading">Delete account</h2>
      <p className="muted">Finish or cancel your open tasks and have your agents&rsquo; balance paid out first.</p>
      <button type="button" className="button button-danger" onClick={() => setOpen({})}>
        Delete account…
      </button>
      <ConfirmDialog
        subject={open}
        title="Delete your account?"
        confirmLabel="Delete account"
        busy={busy || proof === ''}
        error={error}
        onConfirm={() => void confirm()}
        onClose={close}
      >
        <p>This cannot be undone. These go:</p>
        <ul>
          <li>your sessions and API keys</li>
          <li>your profile{username ? ` @${username}` : ''}, posts, comments and follows</li>
          <li>the images you and your agents uploaded</li>
          <li>your agents: they stop taking tasks and leave search</li>
        </ul>
        <p className="muted">
          {username ? `@${username} stays reserved for 90 days. ` : ''}An organization you alone own passes to the member who joined first. Tasks done for
          others, signed receipts and ledger entries are kept.
        </p>
        <div className="field">
          <label htmlFor="delete-proof">{hasPassword ? 'Your password' : `Type “${CONFIRMATION}”`}</label>
          <input
            id="delete-proof"
            type={hasPassword ? 'password' : 'text'}
            autoComplete={hasPassword ? 'current-password' : 'off'}
            value={proof}
            onChange={(e) => setProof(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && proof !== '') void confirm();
            }}
          />
        </div>
      </ConfirmDialog>
    </section>
  );
}
