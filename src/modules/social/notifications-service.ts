/** Reading one's notifications; they are written by the actions in the other services. */
import type { Principal } from '../../lib/principal.ts';
import type { SocialContext } from './context.ts';
import type { NotificationsStore } from './notifications-store.ts';
import { authorView } from './views.ts';
import { newId } from '../../lib/ids.ts';
import { isoNow } from '../../lib/clock.ts';
import { firstCodePoints, mutedWordsMatcher } from './text.ts';

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

/**
 * Whether a notification stays under a person's muted words. Replies, mentions and quotes carry the
 * words someone else wrote (the first 100 characters of them): one those words match leaves. Likes,
 * pure reposts and follows quote the person's own text, or none, and always stay.
 */
export function mutedNotificationsFilter(words: readonly string[]): (row: Pick<NotificationRow, 'type' | 'post_body' | 'reposted_post_id'>) => boolean {
  if (words.length === 0) return () => true;
  const matches = mutedWordsMatcher(words);
  return (row) => {
    const othersWords = row.type === 'reply' || row.type === 'mention' || (row.type === 'repost' && row.reposted_post_id === null);
    return !(othersWords && row.post_body !== null && matches(row.post_body));
  };
}

/** Unread notifications, less those the muted words leave out (their texts are read only when there are some). */
export async function unreadCount(store: NotificationsStore, recipientId: string, hidden: readonly string[], words: readonly string[]): Promise<number> {
  const count = await store.unreadCount(recipientId, hidden);
  if (words.length === 0 || count === 0) return count;
  const keep = mutedNotificationsFilter(words);
  return count - (await store.unreadTexts(recipientId, hidden)).filter((row) => !keep(row)).length;
}

/** The grouped view merges within a person's newest notifications, this many of them. */
export const GROUPED_WINDOW = 500;
/** Actors named in a group; the rest are counted. */
const ACTORS_SHOWN = 3;

/**
 * What a notification merges by: likes per post or comment, pure reposts per original post, follows
 * per UTC day. Replies, mentions, quotes and moderation notices carry words of their own: never merged.
 */
function groupKey(row: NotificationRow): string | null {
  if (row.type === 'like') return `like:${row.post_id}:${row.comment_id ?? ''}`;
  if (row.type === 'repost' && row.reposted_post_id) return `repost:${row.reposted_post_id}`;
  if (row.type === 'follow') return `follow:${row.created_at.slice(0, 10)}`;
  return null;
}

/** Newest first, as the rows come: each group sits where its newest notification does. */
export function groupNotifications(rows: readonly NotificationRow[]) {
  const groups: { key: string | null; rows: NotificationRow[]; actors: Map<string, NotificationRow> }[] = [];
  const open = new Map<string, (typeof groups)[number]>();
  for (const row of rows) {
    const key = groupKey(row);
    const existing = key === null ? undefined : open.get(key);
    if (existing) {
      existing.rows.push(row);
      if (!existing.actors.has(row.author_id)) existing.actors.set(row.author_id, row);
      continue;
    }
    const group = { key, rows: [row], actors: new Map([[row.author_id, row]]) };
    groups.push(group);
    if (key !== null) open.set(key, group);
  }
  return groups.map(({ key, rows: merged, actors }) => {
    const newest = merged[0]!;
    return {
      id: newest.id,
      type: newest.type,
      read: merged.every((row) => row.read === 1),
      // A merged repost group is about the original post, which every repost in it shares.
      postId: key?.startsWith('repost:') ? newest.reposted_post_id : newest.post_id,
      commentId: newest.comment_id,
      postBody: newest.post_body,
      count: merged.length,
      actors: [...actors.values()].slice(0, ACTORS_SHOWN).map(authorView),
      actorCount: actors.size,
      latestAt: newest.created_at,
      notificationIds: merged.map((row) => row.id),
      quote: newest.type === 'repost' && key === null,
    };
  });
}

/** Long enough for what happened and a moderator's reason in full, as most are. */
const MODERATION_NOTICE_LENGTH = 1100;

export function createNotificationsService(ctx: SocialContext) {
  const { notifications, shuns } = ctx.stores;
  return {
    async list(principal: Principal, limit: number, offset: number) {
      const me = await ctx.actorOf(principal);
      const { accounts: hidden, words } = await shuns.hiddenAndMutedWordsOf(me.id);
      const rows = await notifications.list(me.id, limit, offset, hidden);
      // Muted words are applied to the page found: it may hold fewer notifications than asked.
      return {
        notifications: rows.slice(0, limit).filter(mutedNotificationsFilter(words)).map(notificationView),
        pagination: { limit, offset, hasMore: rows.length > limit },
      };
    },

    /** The merged view over the newest GROUPED_WINDOW notifications, paged by group. */
    async grouped(principal: Principal, limit: number, offset: number) {
      const me = await ctx.actorOf(principal);
      const { accounts: hidden, words } = await shuns.hiddenAndMutedWordsOf(me.id);
      const rows = await notifications.list(me.id, GROUPED_WINDOW - 1, 0, hidden);
      const groups = groupNotifications(rows.filter(mutedNotificationsFilter(words)));
      return { groups: groups.slice(offset, offset + limit), pagination: { limit, offset, hasMore: groups.length > offset + limit } };
    },

    async unread(principal: Principal) {
      const me = await ctx.actorOf(principal);
      const { accounts: hidden, words } = await shuns.hiddenAndMutedWordsOf(me.id);
      return { unread: await unreadCount(notifications, me.id, hidden, words) };
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
