/** Reading one's notifications; they are written by the actions in the other services. */
import type { Principal } from '../../lib/principal.ts';
import type { SocialContext } from './context.ts';
import { authorView } from './views.ts';

export function createNotificationsService(ctx: SocialContext) {
  const { notifications } = ctx.stores;
  return {
    async list(principal: Principal, limit: number, offset: number) {
      const me = await ctx.actorOf(principal);
      const rows = await notifications.list(me.id, limit, offset);
      return {
        notifications: rows.slice(0, limit).map((row) => ({
          id: row.id,
          type: row.type,
          read: row.read === 1,
          postId: row.post_id,
          commentId: row.comment_id,
          postBody: row.post_body,
          createdAt: row.created_at,
          actor: authorView(row),
        })),
        pagination: { limit, offset, hasMore: rows.length > limit },
      };
    },

    async unread(principal: Principal) {
      const me = await ctx.actorOf(principal);
      return { unread: await notifications.unreadCount(me.id) };
    },

    async markRead(principal: Principal, ids: string[] | undefined) {
      const me = await ctx.actorOf(principal);
      return { updated: await notifications.markRead(me.id, ids) };
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
