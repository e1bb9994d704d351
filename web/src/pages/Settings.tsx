import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { LogOutButton } from '../components/LogOutButton';
import { ProfileEditor } from '../components/ProfileEditor';
import { RequireAccount } from '../components/RequireAccount';
import { SettingsNav } from '../components/SettingsNav';
import { useShun, type ShunKind } from '../components/Shun';
import { Avatar, Name } from '../components/Social';
import { EmptyState, ErrorState, Loading } from '../components/States';
import { exactTime } from '../lib/format';
import { useAccount, useProfile } from '../session';
import { AccountDeletion, PasswordChange, SearchSettings } from './settings/AccountSecurity';
import { MutedWords } from './settings/MutedWords';

function ShunnedRow({ kind, user }: { kind: ShunKind; user: { username: string; displayName: string; avatarUrl: string | null; since: string } }) {
  const shun = useShun(user.username);
  return (
    <li className="card user-row shunned-row">
      <Avatar user={user} size={32} />
      <span className="shunned-name">
        <Link to={`/@${user.username}`}>
          <Name>{user.displayName}</Name>
        </Link>{' '}
        <span className="muted">@{user.username}</span>
        <span className="muted small"> since {exactTime(user.since)}</span>
      </span>
      <button type="button" className="button" disabled={shun.isPending} onClick={() => shun.mutate({ kind, on: false })}>
        {kind === 'mute' ? 'Unmute' : 'Unblock'} <span className="visually-hidden">@{user.username}</span>
      </button>
      {shun.error && (
        <span className="form-error small" role="alert">
          {shun.error.message}
        </span>
      )}
    </li>
  );
}

/** The accounts one muted or blocked, each with the button that undoes it. */
function Shunned({ kind }: { kind: ShunKind }) {
  const list = useQuery({
    queryKey: ['shunned', kind],
    queryFn: () =>
      unwrap(
        kind === 'mute'
          ? api.GET('/v1/social/mutes', { params: { query: { limit: 100, offset: 0 } } })
          : api.GET('/v1/social/blocks', { params: { query: { limit: 100, offset: 0 } } }),
      ),
  });
  const heading = kind === 'mute' ? 'Muted accounts' : 'Blocked accounts';
  return (
    <section aria-labelledby={`${kind}-heading`}>
      <h2 id={`${kind}-heading`}>{heading}</h2>
      <p className="muted">
        {kind === 'mute'
          ? 'Their posts and notifications are hidden from you. They are not told.'
          : 'Hidden like a mute; they cannot follow, mention or reply to you either.'}
      </p>
      {list.isPending ? (
        <Loading query={list} count={1} label={`Loading ${heading.toLowerCase()}`} />
      ) : list.isError ? (
        <ErrorState error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.users.length === 0 ? (
        <EmptyState title={kind === 'mute' ? 'You have muted nobody.' : 'You have blocked nobody.'}>
          <p className="muted">Mute or block someone from the buttons on their profile.</p>
        </EmptyState>
      ) : (
        <ul className="list" aria-label={heading}>
          {list.data.users.map((user) => (
            <ShunnedRow key={user.id} kind={kind} user={user} />
          ))}
        </ul>
      )}
    </section>
  );
}

function SettingsBody() {
  const account = useAccount();
  const profile = useProfile(true);
  const a = account.data!;
  return (
    <div className="page page-medium">
      <h1>Settings</h1>
      <SettingsNav />
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
        <Loading query={profile} count={1} />
      ) : profile.isError ? (
        <ErrorState error={profile.error} onRetry={() => void profile.refetch()} />
      ) : profile.data ? (
        <>
          <p className="muted">@{profile.data.username}</p>
          <ProfileEditor profile={profile.data} />
        </>
      ) : (
        <p>
          You have no profile yet. <Link to="/signup/profile?next=/settings">Create your profile</Link>
        </p>
      )}
      {profile.data && (
        <>
          <Shunned kind="mute" />
          <Shunned kind="block" />
          <MutedWords />
        </>
      )}
      <SearchSettings />
      {a.email !== null && <PasswordChange />}
      <h2>Session</h2>
      <LogOutButton className="button" />
      <AccountDeletion hasPassword={a.email !== null} username={profile.data?.username ?? null} />
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
