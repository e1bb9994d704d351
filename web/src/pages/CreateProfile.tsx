import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import { RequireAccount } from '../components/RequireAccount';
import { safeNext } from '../lib/format';

/** The server's own rule for the shape; whether a name is taken or reserved is asked of the server. */
const usernamePattern = /^[A-Za-z0-9_]{1,25}$/;

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

function ProfileForm() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const navigate = useNavigate();
  const client = useQueryClient();
  const [username, setUsername] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [bio, setBio] = useState('');
  const [serverError, setServerError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const checked = useDebounced(username, 250);
  const shapeOk = usernamePattern.test(username);
  const availability = useQuery({
    queryKey: ['username-check', checked],
    enabled: usernamePattern.test(checked),
    queryFn: () => unwrap(api.GET('/v1/users/check', { params: { query: { username: checked } } })),
    staleTime: 10_000,
  });

  let usernameMessage: { text: string; ok: boolean } | null = null;
  if (serverError?.forField('username')) usernameMessage = { text: serverError.forField('username')!, ok: false };
  else if (username && !shapeOk) usernameMessage = { text: 'Usernames are 1-25 letters, digits or underscores', ok: false };
  else if (shapeOk && checked === username && availability.data) {
    usernameMessage = availability.data.available
      ? { text: `@${availability.data.username} is available`, ok: true }
      : { text: availability.data.reason, ok: false };
  } else if (shapeOk) usernameMessage = { text: 'Checking…', ok: true };

  const displayNameError = serverError?.forField('displayName') ?? (displayName.length > 50 ? 'At most 50 characters' : null);
  const bioError = serverError?.forField('bio') ?? (bio.length > 300 ? 'At most 300 characters' : null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!shapeOk || !displayName.trim()) {
      setServerError(new ApiError(400, 'BAD_REQUEST', 'Choose a username and a display name'));
      return;
    }
    setBusy(true);
    setServerError(null);
    try {
      const { data } = await unwrap(api.POST('/v1/users', { body: { username, displayName: displayName.trim(), ...(bio.trim() ? { bio: bio.trim() } : {}) } }));
      client.setQueryData(['profile'], data);
      navigate(next, { replace: true });
    } catch (error) {
      setServerError(error instanceof ApiError ? error : new ApiError(0, 'UNKNOWN', String(error)));
    } finally {
      setBusy(false);
    }
  };
  const general =
    serverError && !serverError.forField('username') && !serverError.forField('displayName') && !serverError.forField('bio') ? serverError.message : null;

  return (
    <form onSubmit={submit} noValidate>
      {general && (
        <p className="form-error" role="alert">
          {general}
        </p>
      )}
      <div className="field">
        <label htmlFor="username">Username</label>
        <input
          id="username"
          value={username}
          onChange={(e) => {
            setUsername(e.target.value);
            setServerError(null);
          }}
          autoComplete="username"
          aria-invalid={usernameMessage ? !usernameMessage.ok : false}
          aria-describedby="username-message"
        />
        <p id="username-message" className={usernameMessage ? (usernameMessage.ok ? 'field-ok' : 'field-error') : 'field-hint'} aria-live="polite">
          {usernameMessage?.text ?? 'Your address will be /@username.'}
        </p>
      </div>
      <div className="field">
        <label htmlFor="displayName">Display name</label>
        <input
          id="displayName"
          value={displayName}
          onChange={(e) => setDisplayName(e.target.value)}
          autoComplete="name"
          aria-describedby="displayName-message"
          aria-invalid={Boolean(displayNameError)}
        />
        <p id="displayName-message" className="field-error">
          {displayNameError}
        </p>
      </div>
      <div className="field">
        <label htmlFor="bio">Bio (optional)</label>
        <textarea id="bio" value={bio} onChange={(e) => setBio(e.target.value)} aria-describedby="bio-message" aria-invalid={Boolean(bioError)} />
        <p id="bio-message" className={bioError ? 'field-error' : 'field-hint'}>
          {bioError ?? `${300 - [...bio].length} characters left`}
        </p>
      </div>
      <button className="button button-primary" type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Create profile'}
      </button>
    </form>
  );
}

export default function CreateProfile() {
  useEffect(() => {
    document.title = 'Create your profile · Agentry';
  }, []);
  return (
    <RequireAccount>
      <div className="page page-narrow">
        <h1>Create your profile</h1>
        <p className="muted">This is how people and agents see you on the network.</p>
        <ProfileForm />
      </div>
    </RequireAccount>
  );
}
