import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import type { NotificationGroup } from '../api/types';
import { RequireAccount } from '../components/RequireAccount';
import { Avatar, Name, TimeAgo } from '../components/Social';
import { EmptyState, ErrorState, SkeletonRows } from '../components/States';
import { formatNumber } from '../lib/format';
import { useOffsetList, useSocialSelf } from '../lib/social';
import { useTitle } from '../lib/title';

/** The first words of what a notification is about. */
const firstWords = (text: string) => {
  const chars = [...text.replace(/\s+/g, ' ').trim()];
  return chars.length > 80 ? `${chars.slice(0, 80).join('')}…` : chars.join('');
};

/** What happened, after the names: by type, with the count of a merged group where it reads better. */
function whatHappened(group: NotificationGroup): string {
  switch (group.type) {
    case 'like':
      return group.commentId ? 'liked your comment' : 'liked your post';
    case 'repost':
      return group.quote ? 'quoted your post' : 'reposted your post';
    case 'follow':
      return 'followed you';
    case 'reply':
      return 'replied';
    case 'mention':
      return 'mentioned you';
    case 'moderation':
      return 'acted on your post or account';
  }
}

/** "Sam", "Sam and Ana", "Sam and 4 others": the newest actor first, as the service orders them. */
function Actors({ group }: { group: NotificationGroup }) {
  const [first, second] = group.actors;
  if (!first) return null;
  const name = (actor: NonNullable<typeof first>) => (
    <Link to={`/@${actor.username}`} className="post-author">
      <Name>{actor.displayName}</Name>
    </Link>
  );
  const others = group.actorCount - 1;
  if (others === 0) return name(first);
  if (others === 1 && second)
    return (
      <>
        {name(first)} and {name(second)}
      </>
    );
  return (
    <>
      {name(first)} and {formatNumber(others)} others
    </>
  );
}

export default function Notifications() {
  useTitle('Notifications');
  return (
    <RequireAccount>
      <NotificationsPage />
    </RequireAccount>
  );
}

function NotificationsPage() {
  const { me, profile } = useSocialSelf();
  const client = useQueryClient();
  const list = useOffsetList(
    ['notifications', 'list'],
    async (offset) => {
      const page = await unwrap(api.GET('/v1/social/notifications', { params: { query: { grouped: true, limit: 50, offset } } }));
      return { items: 'groups' in page ? page.groups : [], hasMore: page.pagination.hasMore };
    },
    Boolean(me),
  );
  const markRead = useMutation({
    mutationFn: (ids: string[] | null) => unwrap(api.POST('/v1/social/notifications/read', { body: ids ? { ids } : {} })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['notifications'] }),
  });
  // Opening the page reads what it shows: those stay marked new for this visit, and the bell clears.
  const [newThisVisit, setNewThisVisit] = useState<ReadonlySet<string>>(new Set());
  const unreadShown = list.items.filter((group) => !group.read).flatMap((group) => group.notificationIds);
  const unreadKey = unreadShown.join(',');
  useEffect(() => {
    if (unreadKey === '') return;
    const ids = unreadKey.split(',');
    setNewThisVisit((seen) => new Set([...seen, ...ids]));
    void unwrap(api.POST('/v1/social/notifications/read', { body: { ids } })).then(() => client.invalidateQueries({ queryKey: ['notifications', 'unread'] }));
  }, [unreadKey, client]);
  if (profile.isPending)
    return (
      <div className="page page-medium">
        <SkeletonRows count={3} label="Loading notifications" />
      </div>
    );
  if (!me) {
    return (
      <div className="page page-medium">
        <h1>Notifications</h1>
        <EmptyState title="Notifications come to your social profile.">
          <Link className="button" to="/signup/profile">
            Create your profile
          </Link>
        </EmptyState>
      </div>
    );
  }
  const isNew = (group: NotificationGroup) => !group.read || group.notificationIds.some((id) => newThisVisit.has(id));
  const fresh = list.items.filter(isNew).length;
  return (
    <div className="page page-medium">
      <div className="page-head">
        <h1>Notifications</h1>
        <button type="button" className="button" disabled={unreadShown.length === 0 || markRead.isPending} onClick={() => markRead.mutate(null)}>
          Mark all read
        </button>
      </div>
      {markRead.isError && <ErrorState error={markRead.error} />}
      {list.isPending ? (
        <SkeletonRows count={3} label="Loading notifications" />
      ) : list.isError ? (
        <ErrorState error={list.error} onRetry={() => void list.refetch()} />
      ) : list.items.length === 0 ? (
        <EmptyState title="No notifications yet.">
          <p className="muted">When someone likes, comments on, reposts or mentions your posts, or follows you, it shows up here.</p>
        </EmptyState>
      ) : (
        <>
          <p className="muted">{fresh === 0 ? 'Nothing new.' : `${formatNumber(fresh)} new since your last visit`}</p>
          <ul className="list" aria-label="Notifications, newest first">
            {list.items.map((group) => (
              <li key={group.id} className={`card notification${isNew(group) ? ' notification-unread' : ''}`}>
                <div className="notification-avatars" aria-hidden="true">
                  {group.actors.map((actor) => (
                    <Avatar key={actor.id} user={actor} size={32} />
                  ))}
                </div>
                <div className="notification-text">
                  <p>
                    {isNew(group) && <span className="badge badge-new">new</span>}{' '}
                    {group.type === 'moderation' ? 'From the moderators' : <Actors group={group} />} {group.type === 'moderation' ? '' : whatHappened(group)}{' '}
                    <span className="muted">
                      · <TimeAgo iso={group.latestAt} />
                    </span>
                  </p>
                  {group.postBody && group.type === 'moderation' && <p className="user-text">{group.postBody}</p>}
                  {group.postId && (
                    <p>
                      <Link to={`/posts/${group.postId}${group.commentId ? `#comment-${group.commentId}` : ''}`} className="notification-post">
                        {group.postBody && group.type !== 'moderation' ? (
                          <span className="user-text" dir="auto">
                            {firstWords(group.postBody)}
                          </span>
                        ) : (
                          'Open the post'
                        )}
                      </Link>
                    </p>
                  )}
                </div>
              </li>
            ))}
          </ul>
          {list.hasNextPage && (
            <button type="button" className="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
              Load older notifications
            </button>
          )}
        </>
      )}
    </div>
  );
}
