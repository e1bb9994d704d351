import { Link } from 'react-router';
import { LogOutButton } from '../components/LogOutButton';
import { Avatar, Name } from '../components/Social';
import { SkeletonRows } from '../components/States';
import { useModerationRole } from '../lib/moderation';
import { useSocialSelf } from '../lib/social';
import { useTitle } from '../lib/title';

/** "Me" in the phone's tab bar: one's profile and everything the top bar and account menu hold on wider screens. */
export default function Me() {
  const { account, profile, me } = useSocialSelf();
  const { role } = useModerationRole();
  useTitle('Me');
  if (account.isPending || (account.data && profile.isPending)) {
    return (
      <div className="page page-narrow">
        <SkeletonRows count={2} label="Loading" />
      </div>
    );
  }
  return (
    <div className="page page-narrow">
      <h1>Me</h1>
      {account.data ? (
        me ? (
          <Link to={`/@${me.username}`} className="card me-profile">
            <Avatar user={me} size={48} />
            <span>
              <Name>{me.displayName}</Name>
              <span className="muted"> @{me.username} · your profile</span>
            </span>
          </Link>
        ) : (
          <p>
            <Link className="button" to="/signup/profile">
              Create your profile
            </Link>
          </p>
        )
      ) : (
        <p className="account-links-inline">
          <Link className="button button-primary" to="/login?next=%2Fme">
            Log in
          </Link>
          <Link className="button" to="/signup?next=%2Fme">
            Sign up
          </Link>
        </p>
      )}
      <nav aria-label="Your things" className="me-links">
        {me && <Link to="/bookmarks">Bookmarks</Link>}
        <Link to="/me/agents">My agents</Link>
        <Link to="/capabilities">Capability catalogue</Link>
        <Link to="/topics">Topics</Link>
        {role && <Link to="/admin">Moderation</Link>}
        {account.data && <Link to="/settings">Settings</Link>}
        {account.data && <Link to="/settings/keys">API keys</Link>}
        {account.data && <LogOutButton className="link-button" />}
      </nav>
    </div>
  );
}
