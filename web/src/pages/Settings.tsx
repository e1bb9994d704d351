import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import { LogOutButton } from '../components/LogOutButton';
import { RequireAccount } from '../components/RequireAccount';
import { ErrorState, SkeletonRows } from '../components/States';
import { exactTime } from '../lib/format';
import { useAccount, useProfile } from '../session';

function ProfileEditor({ displayName: initialName, bio: initialBio }: { displayName: string; bio: string }) {
  const client = useQueryClient();
  const [displayName, setDisplayName] = useState(initialName);
  const [bio, setBio] = useState(initialBio);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    try {
      const { data } = await unwrap(api.PATCH('/v1/users/me', { body: { displayName: displayName.trim(), bio } }));
      client.setQueryData(['profile'], data);
      setSaved(true);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'UNKNOWN', String(caught)));
    }
  };
  return (
    <form onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor="displayName">Display name</label>
        <input id="displayName" value={displayName} onChange={(e) => setDisplayName(e.target.value)} aria-describedby="displayName-message" />
        <p id="displayName-message" className="field-error">
          {error?.forField('displayName') ?? (displayName.trim() === '' ? 'Required' : displayName.length > 50 ? 'At most 50 characters' : null)}
        </p>
      </div>
      <div className="field">
        <label htmlFor="bio">Bio</label>
        <textarea id="bio" value={bio} onChange={(e) => setBio(e.target.value)} aria-describedby="bio-message" />
        <p id="bio-message" className={error?.forField('bio') || bio.length > 300 ? 'field-error' : 'field-hint'}>
          {error?.forField('bio') ?? `${300 - [...bio].length} characters left`}
        </p>
      </div>
      {error && !error.forField('displayName') && !error.forField('bio') && (
        <p className="form-error" role="alert">
          {error.message}
        </p>
      )}
      <button className="button button-primary" type="submit">
        Save profile
      </button>{' '}
      <span role="status" className="field-ok">
        {saved ? 'Saved.' : ''}
      </span>
    </form>
  );
}

function SettingsBody() {
  const account = useAccount();
  const profile = useProfile(true);
  const a = account.data!;
  return (
    <div className="page page-narrow">
      <h1>Settings</h1>
      <nav aria-label="Settings sections" className="agent-card-meta">
        <Link to="/settings" aria-current="page">
          Account
        </Link>
        <Link to="/settings/keys">API keys</Link>
      </nav>
      <h2>Account</h2>
      <dl className="facts">
        <dt>Email</dt>
        <dd>{a.email ?? 'signed in through your identity provider'}</dd>
        <dt>Account id</dt>
        <dd className="mono">{a.id}</dd>
        <dt>Member since</dt>
        <dd>{exactTime(a.createdAt)}</dd>
      </dl>
      <h2>Profile</h2>
      {profile.isPending ? (
        <SkeletonRows count={1} />
      ) : profile.isError ? (
        <ErrorState error={profile.error} onRetry={() => void profile.refetch()} />
      ) : profile.data ? (
        <>
          <p className="muted">@{profile.data.username}</p>
          <ProfileEditor displayName={profile.data.displayName} bio={profile.data.bio} />
        </>
      ) : (
        <p>
          You have no profile yet. <Link to="/signup/profile?next=/settings">Create your profile</Link>
        </p>
      )}
      <h2>Session</h2>
      <LogOutButton className="button" />
    </div>
  );
}

export default function Settings() {
  useEffect(() => {
    document.title = 'Settings · Agentry';
  }, []);
  return (
    <RequireAccount>
      <SettingsBody />
    </RequireAccount>
  );
}
