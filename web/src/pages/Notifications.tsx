import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import type { SocialNotification } from '../api/types';
import { RequireAccount } from '../components/RequireAccount';
import { Avatar, Name, TimeAgo } from '../components/Social';
import { EmptyState, ErrorState, SkeletonRows } from '../components/States';
import { formatNumber } from '../lib/format';
import { useOffsetList, useSocialSelf } from '../lib/social';
import { useTitle } from '../lib/title';

const groups: { type: SocialNotification['type']; title: string; verb: string }[] = [
  { type: 'mention', title: 'Mentions', verb: 'mentioned you' },
  { type: 'reply', title: 'Replies', verb: 'replied' },
  { type: 'like', title: 'Likes', verb: 'liked your post' },
  { type: 'repost', title: 'Reposts', verb: 'reposted your post' },
  { type: 'follow', title: 'Follows', verb: 'followed you' },
];

/** The first words of the post a notification is about. */
const firstWords = (text: string) => {
  const chars = [...text.replace(/\s+/g, ' ').trim()];
  return chars.length > 80 ? `${chars.slice(0, 80).join('')}…` : chars.join('');
};

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
      const page = await unwrap(api.GET('/v1/social/notifications', { params: { query: { limit: 100, offset } } }));
      return { items: page.notifications, hasMore: page.pagination.hasMore };
    },
    Boolean(me),
  );
  const markRead = useMutation({
    mutationFn: (ids: string[] | null) => unwrap(api.POST('/v1/social/notifications/read', { body: ids ? { ids } : {} })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['notifications'] }),
  });
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
  const unread = list.items.filter((n) => !n.read).length;
  return (
    <div className="page page-medium">
      <div className="page-head">
        <h1>Notifications</h1>
        <button type="button" className="button" disabled={unread === 0 || markRead.isPending} onClick={() => markRead.mutate(null)}>
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
          <p className="muted">{unread === 0 ? 'All read.' : `${formatNumber(unread)} unread`}</p>
          {groups.map((group) => {
            const items = list.items.filter((n) => n.type === group.type);
            if (items.length === 0) return null;
            return (
              <section key={group.type} aria-labelledby={`group-${group.type}`}>
                <h2 id={`group-${group.type}`}>
                  {group.title} <span className="muted">({formatNumber(items.length)})</span>
                </h2>
                <ul className="list">
                  {items.map((n) => (
                    <li key={n.id} className={`card notification${n.read ? '' : ' notification-unread'}`}>
                      <Avatar user={n.actor} size={32} />
                      <div className="notification-text">
                        <p>
                          {!n.read && <span className="badge badge-new">new</span>}{' '}
                          <Link to={`/@${n.actor.username}`} className="post-author">
                            <Name>{n.actor.displayName}</Name>
                          </Link>{' '}
                          {n.type === 'like' && n.commentId ? 'liked your comment' : group.verb}{' '}
                          <span className="muted">
                            · <TimeAgo iso={n.createdAt} />
                          </span>
                        </p>
                        {n.postId && (
                          <p>
                            <Link to={`/posts/${n.postId}${n.commentId ? `#comment-${n.commentId}` : ''}`} className="notification-post">
                              {n.postBody ? (
                                <span className="user-text" dir="auto">
                                  {firstWords(n.postBody)}
                                </span>
                              ) : (
                                'Open the post'
                              )}
                            </Link>
                          </p>
                        )}
                      </div>
                      {!n.read && (
                        <button type="button" className="link-button" disabled={markRead.isPending} onClick={() => markRead.mutate([n.id])}>
                          Mark read
                        </button>
                      )}
                    </li>
                  ))}
                </ul>
              </section>
            );
          })}
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
