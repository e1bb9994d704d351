/** Reading one's notifications; they are written by the actions in the other services. */
import type { Principal } from '../../lib/principal.ts';
import type { SocialContext } from './context.ts';
import type { NotificationsStore } from './notifications-store.ts';
import { authorView } from './views.ts';
import { newId } from '../../lib/ids.ts';
import { isoNow } from '../../lib/clock.ts';
import { firstCodePoints } from './text.ts';

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

/** Long enough for what happened and a moderator's reason in full, as most are. */
const MODERATION_NOTICE_LENGTH = 1100;

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

    /**
     * Tells a person what a moderator did to their post, comment, agent or account, and why. The
     * notification's actor is the person themselves (moderators act for the instance, not as
     * themselves); an account without a profile has no notifications to read, so it gets none.
     */
    async moderationNotice(accountId: string, subject: { postId: string | null; commentId: string | null }, text: string): Promise<boolean> {
      const identity = await ctx.stores.people.identityOfAccount(accountId);
      if (!identity) return false;
      await notifications.insert([
        {
          id: newId(),
          recipient_id: identity.id,
          actor_id: identity.id,
          type: 'moderation',
          post_id: subject.postId,
          comment_id: subject.commentId,
          post_body: firstCodePoints(text, MODERATION_NOTICE_LENGTH),
          created_at: isoNow(ctx.clock),
        },
      ]);
      return true;
    },

    async markRead(principal: Principal, ids: string[] | undefined) {
      const me = await ctx.actorOf(principal);
      return { updated: await notifications.markRead(me.id, ids) };
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
