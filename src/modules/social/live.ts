/**
 * What the social network adds to an account's event stream (GET /v1/events): its new notifications,
 * each with the new unread count, and the new posts of the accounts and topics it follows (what its
 * Following feed shows). Notifications wake the stream through the `events` signal their trigger raises
 * (migration 0032); posts through the authors and topics signals the timelines send after a post is written. Neither is replayed after a reconnect: the client
 * loads notifications and the feed again then, as it does on a `reset`.
 */
import { isoNow } from '../../lib/clock.ts';
import { mutedWordsFilter, type SocialContext } from './context.ts';
import { mutedNotificationsFilter, notificationView, unreadCount } from './notifications-service.ts';
import { AUTHORS_CHANNEL, FOLLOWER_CHANNEL, TOPICS_CHANNEL } from './timelines.ts';

/**
 * A notification or post is written with its time before it commits, so one can become visible after a
 * later one was sent. Each read looks back this far and skips what it sent already; a transaction open
 * longer than this could be missed by a stream (not by a reload).
 */
const LATE_COMMIT_WINDOW_MS = 10_000;
/** Read at most this many of each per look; more arrive at the next. */
const READ_BATCH = 50;

export interface LiveItem {
  event: 'notification' | 'post';
  data: unknown;
}

export function createSocialLive(ctx: SocialContext) {
  const { notifications, shuns, people, feed, topics } = ctx.stores;
  return {
    channels: [AUTHORS_CHANNEL, TOPICS_CHANNEL, FOLLOWER_CHANNEL] as const,

    /** Starts watching for an account: what is made from now on. */
    async follow(accountId: string) {
      let profileId = (await people.identityOfAccount(accountId))?.id ?? null;
      const openedAt = isoNow(ctx.clock);
      /** What was sent within the window, by kind and id, with its time. */
      const sent = new Map<string, string>();
      let followees = new Set<string>();
      let followedTopics = new Set<string>();
      let hidden = new Set<string>();
      let mutedWords: string[] = [];
      // Loaded again when this person follows or unfollows someone or a topic, mutes, blocks or changes their muted words (and by the backstop).
      let stale = false;
      let postsDue = false;
      async function load(me: string) {
        const [followed, topicsFollowed, shunned] = await Promise.all([people.followeesOf(me), topics.followedBy(me), shuns.hiddenAndMutedWordsOf(me)]);
        hidden = new Set(shunned.accounts);
        mutedWords = shunned.words;
        followees = new Set(followed.filter((id) => !hidden.has(id)));
        followedTopics = new Set(topicsFollowed);
      }
      // Before the stream starts, so a post signal right after it opens finds whom it follows.
      if (profileId !== null) await load(profileId);

      return {
        /** Whether a signal may bring this account something: the stream reads only then. */
        concerns(channel: string, payload: string): boolean {
          if (channel === FOLLOWER_CHANNEL) {
            if (payload !== profileId) return false;
            stale = true;
            return true;
          }
          const followedPosts =
            (channel === AUTHORS_CHANNEL && payload.split(',').some((id) => followees.has(id))) ||
            (channel === TOPICS_CHANNEL && payload.split(',').some((topic) => followedTopics.has(topic)));
          if (followedPosts) {
            postsDue = true;
            return true;
          }
          return false;
        },

        /** A lost signal, or the periodic backstop: look at everything again. */
        lookAgain(): void {
          stale = true;
          postsDue = true;
        },

        async next(): Promise<LiveItem[]> {
          if (profileId === null) {
            profileId = (await people.identityOfAccount(accountId))?.id ?? null;
            if (profileId === null) return [];
            stale = true;
          }
          const me = profileId;
          if (stale) {
            stale = false;
            await load(me);
          }
          const windowStart = new Date(ctx.clock.now().getTime() - LATE_COMMIT_WINDOW_MS).toISOString();
          const since = openedAt > windowStart ? openedAt : windowStart;
          const items: LiveItem[] = [];

          const keepNotification = mutedNotificationsFilter(mutedWords);
          const rows = (await notifications.list(me, READ_BATCH, 0, [...hidden], since))
            .filter((row) => !sent.has(`n:${row.id}`) && keepNotification(row))
            .reverse();
          if (rows.length > 0) {
            const unread = await unreadCount(notifications, me, [...hidden], mutedWords);
            for (const row of rows) {
              sent.set(`n:${row.id}`, row.created_at);
              items.push({ event: 'notification', data: { notification: notificationView(row), unread } });
            }
          }

          if (postsDue) {
            postsDue = false;
            const ids = (await feed.idsSince([...followees], [...followedTopics], since, READ_BATCH)).filter((id) => !sent.has(`p:${id}`));
            for (const post of await ctx.viewsOf((await feed.hydrate(ids)).filter(mutedWordsFilter(me, mutedWords)), { profileId: me })) {
              sent.set(`p:${post.id}`, post.createdAt);
              // A followed topic's post by someone muted or blocked stays hidden, and so does a repost of them.
              if (hidden.has(post.author.id) || (post.originalPost && hidden.has(post.originalPost.author.id))) continue;
              items.push({ event: 'post', data: { post } });
            }
          }

          for (const [key, at] of sent) if (at < since) sent.delete(key);
          return items;
        },
      };
    },
  };
}

export type SocialLive = ReturnType<typeof createSocialLive>;
