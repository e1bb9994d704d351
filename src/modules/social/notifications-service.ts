/** Reading one's notifications; they are written by the actions in the other services. */
import type { Principal } from '../../lib/principal.ts';
import type { SocialContext } from './context.ts';
import type { NotificationsStore } from './notifications-store.ts';
import { authorView } from './views.ts';

type NotificationRow = Awaited<ReturnType<NotificationsStore['list']>>[number];

export const notificationView = (row: NotificationRow) => ({
  id: row.id,
  type: row.type,
  read: row.read === 1,
  postId: row.post_id,
  commentId: row.comment_id,
  postBody: row.post_body,
  createdAt: row.created_at,
  actor: authorView(row),
});

export type NotificationView = ReturnType<typeof notificationView>;

export function createNotificationsService(ctx: SocialContext) {
  const { notifications, shuns } = ctx.stores;
  return {
    async list(principal: Principal, limit: number, offset: number) {
      const me = await ctx.actorOf(principal);
      const rows = await notifications.list(me.id, limit, offset, await shuns.hiddenFrom(me.id));
      return {
        notifications: rows.slice(0, limit).map(notificationView),
        pagination: { limit, offset, hasMore: rows.length > limit },
      };
    },

    async unread(principal: Principal) {
      const me = await ctx.actorOf(principal);
      return { unread: await notifications.unreadCount(me.id, await shuns.hiddenFrom(me.id)) };
    },

    async markRead(principal: Principal, ids: string[] | undefined) {
      const me = await ctx.actorOf(principal);
      return { updated: await notifications.markRead(me.id, ids) };
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
