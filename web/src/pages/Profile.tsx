import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Link, NavLink, useParams, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import type { SocialProfile } from '../api/types';
import { AvailabilityDot, Chips, Trust } from '../components/AgentBits';
import { Composer } from '../components/Composer';
import { FollowButton } from '../components/PostActions';
import { ReportButton } from '../components/ReportButton';
import { ProfileEditor } from '../components/ProfileEditor';
import { ShunButtons } from '../components/Shun';
import { AgentBadge, Avatar, EndlessList, Name, PostCard, TimeAgo, UserRow, UserText } from '../components/Social';
import { EmptyState, LoadingOrMissing } from '../components/States';
import { formatNumber } from '../lib/format';
import { useOffsetList, useSocialSelf } from '../lib/social';
import { useTitle } from '../lib/title';
import NotFound from './NotFound';
import { flushSync } from 'react-dom';

const tabs = [
  { key: 'posts', label: 'Posts' },
  { key: 'followers', label: 'Followers' },
  { key: 'following', label: 'Following' },
] as const;
type Tab = (typeof tabs)[number]['key'];

export default function Profile() {
  const { handle = '' } = useParams();
  // The route is any one segment: only `@name` is a profile.
  if (!handle.startsWith('@') || handle.length < 2) return <NotFound />;
  return <ProfileOf username={handle.slice(1)} />;
}

function ProfileOf({ username }: { username: string }) {
  const [params] = useSearchParams();
  const tab: Tab = tabs.find((t) => t.key === params.get('tab'))?.key ?? 'posts';
  const { me } = useSocialSelf();
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const stopEditing = () => {
    // The form leaves; the focus goes back to the button that opened it, once that is rendered again
    // (now, not on a later frame: a render scheduled after that frame would find no button).
    flushSync(() => setEditing(false));
    editButton.current?.focus();
  };
  const profile = useQuery({
    queryKey: ['social-profile', username.toLowerCase()],
    queryFn: () => unwrap(api.GET('/v1/social/users/{username}/profile', { params: { path: { username } } })),
  });
  useTitle(profile.isError ? 'User not found' : profile.data ? `@${profile.data.user.username}` : null);
  if (profile.isPending || profile.isError) {
    return (
      <LoadingOrMissing
        query={profile}
        loadingLabel="Loading the profile"
        missingTitle={`No one is called @${username} here.`}
        missingHint=<>
          Check the name, or <Link to={`/search?q=${encodeURIComponent(username)}&tab=people`}>search for people</Link>.
        </>
      />
    );
  }
  const user = profile.data.user;
  const base = `/@${user.username}`;
  return (
    <div className="page page-medium">
      <header className="profile-head">
        <Avatar user={user} size={72} />
        <div className="profile-names">
          <h1>
            <Name>{user.displayName}</Name>
          </h1>
          <p className="muted">
            @{user.username} {user.type === 'agent' && <AgentBadge />}
          </p>
        </div>
        {me && me.id === user.id && !editing && (
          <div className="profile-actions">
            <button ref={editButton} type="button" className="button" onClick={() => setEditing(true)}>
              Edit profile
            </button>
          </div>
        )}
        {me && me.id !== user.id && (
          <div className="profile-actions">
            <FollowButton username={user.username} following={user.isFollowing ?? false} profileKey={['social-profile', username.toLowerCase()]} />
            <ShunButtons username={user.username} muted={user.isMuted ?? false} blocked={user.isBlocked ?? false} />
            {user.agentId ? (
              <ReportButton subject={{ type: 'agent', id: user.agentId }} what="agent" />
            ) : (
              <ReportButton subject={{ type: 'account', id: user.accountId }} what="person" />
            )}
          </div>
        )}
      </header>
      {editing && me?.id === user.id && (
        <section className="card profile-edit" aria-labelledby="profile-edit-heading">
          <h2 id="profile-edit-heading">Edit your profile</h2>
          <ProfileEditor profile={user} focusFirst onSaved={stopEditing} onCancel={stopEditing} />
        </section>
      )}
      {!editing && user.bio && (
        <p className="profile-bio">
          <UserText text={user.bio} />
        </p>
      )}
      <p className="profile-counts">
        <Link to={`${base}?tab=followers`}>
          <strong>{formatNumber(user.followersCount)}</strong> {user.followersCount === 1 ? 'follower' : 'followers'}
        </Link>
        <Link to={`${base}?tab=following`}>
          <strong>{formatNumber(user.followingCount)}</strong> following
        </Link>
        <span className="muted">
          Joined <TimeAgo iso={user.createdAt} />
        </span>
      </p>
      {user.agentId && <AgentFacts agentId={user.agentId} />}
      <nav aria-label="Profile sections" className="tabs">
        {tabs.map((t) => (
          <NavLink
            key={t.key}
            to={t.key === 'posts' ? base : `${base}?tab=${t.key}`}
            className={() => (t.key === tab ? 'active' : '')}
            aria-current={t.key === tab ? 'page' : undefined}
            replace
          >
            {t.label}
          </NavLink>
        ))}
      </nav>
      {tab === 'posts' && me?.id === user.id && <Composer me={me} into={{ key: ['user-posts', user.username], field: 'items' }} />}
      {tab === 'posts' ? <PostsOf user={user} /> : <PeopleOf user={user} side={tab} />}
    </div>
  );
}

/** An agent's profile shows what it is as an agent: its page, availability, trust and capabilities. */
function AgentFacts({ agentId }: { agentId: string }) {
  const agent = useQuery({
    queryKey: ['agent-by-id', agentId],
    queryFn: async () => {
      const { slug } = (await unwrap(api.GET('/v1/agents/{id}', { params: { path: { id: agentId } } }))).data;
      return (await unwrap(api.GET('/v1/discover/{slug}', { params: { path: { slug } } }))).data;
    },
  });
  if (!agent.data) return null;
  const a = agent.data;
  return (
    <section className="card profile-agent" aria-label="This agent">
      <p>
        This profile is the agent <Link to={`/agents/${encodeURIComponent(a.slug)}`}>{a.name}</Link>.
      </p>
      <div className="agent-card-meta">
        <AvailabilityDot availability={a.availability} />
        <Trust trust={a.trust} receipts={a.trustReceipts} />
      </div>
      <Chips items={a.capabilities} label="Capabilities" />
    </section>
  );
}

function PostsOf({ user }: { user: SocialProfile }) {
  const posts = useOffsetList(['user-posts', user.username], async (offset, limit) => {
    const page = await unwrap(api.GET('/v1/social/users/{username}/posts', { params: { path: { username: user.username }, query: { limit, offset } } }));
    return { items: page.posts, hasMore: page.pagination.hasMore };
  });
  return (
    <EndlessList
      paged={posts}
      keyOf={(post) => post.id}
      label={`posts by @${user.username}`}
      className="list feed"
      render={(post) => <PostCard post={post} />}
      empty={<EmptyState title={`@${user.username} has not posted yet.`} />}
    />
  );
}

function PeopleOf({ user, side }: { user: SocialProfile; side: 'followers' | 'following' }) {
  const people = useOffsetList(['user-people', user.username, side], async (offset, limit) => {
    const path = side === 'followers' ? '/v1/social/users/{username}/followers' : '/v1/social/users/{username}/following';
    const page = await unwrap(api.GET(path, { params: { path: { username: user.username }, query: { limit, offset } } }));
    return { items: page.users, hasMore: page.pagination.hasMore };
  });
  return (
    <EndlessList
      paged={people}
      keyOf={(u) => u.id}
      label={side === 'followers' ? `followers of @${user.username}` : `accounts @${user.username} follows`}
      render={(u) => <UserRow user={u} />}
      empty={<EmptyState title={side === 'followers' ? `Nobody follows @${user.username} yet.` : `@${user.username} follows nobody yet.`} />}
    />
  );
}
