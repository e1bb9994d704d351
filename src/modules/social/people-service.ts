/** Follows, profiles and suggested accounts. */
import type { Principal } from '../../lib/principal.ts';
import { isoNow } from '../../lib/clock.ts';
import { badRequest, forbidden, notFound } from '../../lib/errors.ts';
import type { SocialContext } from './context.ts';
import { notification } from './notify.ts';
import type { ShunKind } from './shuns-store.ts';
import { userSummaryView } from './views.ts';

export function createPeopleService(ctx: SocialContext) {
  const { stores, clock } = ctx;

  async function shunState(profileId: string, targetId: string) {
    const { muted, blocked } = await stores.shuns.state(profileId, targetId);
    return { muted, blocked };
  }

  // Usernames are stored lowercase and compared case-insensitively.
  async function findProfile(username: string) {
    const profile = await stores.people.profileByUsername(username.toLowerCase());
    if (!profile) throw notFound('User not found');
    return profile;
  }

  return {
    async follow(principal: Principal, username: string) {
      const actor = await ctx.actorOf(principal);
      const target = await findProfile(username);
      if (target.id === actor.id) throw badRequest('You cannot follow yourself');
      if ((await stores.shuns.blockersAmong([target.id], actor.id)).length > 0) throw forbidden(`@${target.username} has blocked you: you cannot follow them`);
      const now = isoNow(clock);
      const added = await ctx.write(async (tx) => {
        // Following twice changes nothing and notifies nobody again.
        if (!(await tx.people.follow(actor.id, target.id, now))) return false;
        await tx.adjustFollowCounts(actor.id, target.id, 1);
        await tx.notifications.insert(notification('follow', target.id, actor, { postId: null, commentId: null, postText: null }, now));
        return true;
      });
      if (added) await Promise.all([ctx.profilesChanged([actor.account_id, target.account_id]), ctx.timelines.followerChanged(actor.id)]);
      return { following: true };
    },

    async unfollow(principal: Principal, username: string) {
      const actor = await ctx.actorOf(principal);
      const target = await findProfile(username);
      if (target.id === actor.id) throw badRequest('You cannot unfollow yourself');
      const removed = await ctx.write(async (tx) => {
        if (!(await tx.people.unfollow(actor.id, target.id))) return false;
        await tx.adjustFollowCounts(actor.id, target.id, -1);
        await tx.notifications.withdraw('follow', actor.id, { recipientId: target.id });
        return true;
      });
      if (removed) await Promise.all([ctx.profilesChanged([actor.account_id, target.account_id]), ctx.timelines.followerChanged(actor.id)]);
      return { following: false };
    },

    /**
     * Before an account's profiles (its own and its agents') are deleted: ends their follows both
     * ways, so the counters of the people on the other side drop as an unfollow would drop them.
     */
    async endFollowsOfAccount(accountId: string, agentIds: string[]) {
      const leaving = await stores.people.profileIdsOf(accountId, agentIds);
      if (leaving.length === 0) return;
      await ctx.write(async (tx) => {
        for (const follow of await tx.people.followsInvolving(leaving)) {
          if (await tx.people.unfollow(follow.follower_id, follow.followee_id)) await tx.adjustFollowCounts(follow.follower_id, follow.followee_id, -1);
        }
      });
    },

    /** Mutes (`mutes`) or blocks (`blocks`) someone; blocking also ends the follows between the two. */
    async shun(principal: Principal, kind: ShunKind, username: string) {
      const actor = await ctx.actorOf(principal);
      const target = await findProfile(username);
      if (target.id === actor.id) throw badRequest(kind === 'mutes' ? 'You cannot mute yourself' : 'You cannot block yourself');
      const now = isoNow(clock);
      const unfollowed = await ctx.write(async (tx) => {
        await tx.shuns.add(kind, actor.id, target.id, now);
        if (kind === 'mutes') return [];
        const ended: string[] = [];
        for (const [follower, followee] of [
          [target, actor],
          [actor, target],
        ] as const) {
          if (!(await tx.people.unfollow(follower.id, followee.id))) continue;
          await tx.adjustFollowCounts(follower.id, followee.id, -1);
          await tx.notifications.withdraw('follow', follower.id, { recipientId: followee.id });
          ended.push(follower.id);
        }
        return ended;
      });
      if (unfollowed.length > 0) await ctx.profilesChanged([actor.account_id, target.account_id]);
      // The actor's timelines and live stream load whom they follow and hide again.
      await Promise.all([...new Set([actor.id, ...unfollowed])].map((id) => ctx.timelines.followerChanged(id)));
      return shunState(actor.id, target.id);
    },

    async unshun(principal: Principal, kind: ShunKind, username: string) {
      const actor = await ctx.actorOf(principal);
      const target = await findProfile(username);
      if (await stores.shuns.remove(kind, actor.id, target.id)) await ctx.timelines.followerChanged(actor.id);
      return shunState(actor.id, target.id);
    },

    /** The people the caller muted or blocked, the latest first. */
    async shunned(principal: Principal, kind: ShunKind, limit: number, offset: number) {
      const actor = await ctx.actorOf(principal);
      const rows = await stores.shuns.list(kind, actor.id, limit, offset);
      return {
        users: rows.slice(0, limit).map((row) => ({
          id: row.id,
          username: row.username,
          displayName: row.display_name,
          type: row.type,
          avatarUrl: row.avatar_url,
          since: row.created_at,
        })),
        pagination: { limit, offset, hasMore: rows.length > limit },
      };
    },

    async followStatus(principal: Principal, username: string) {
      const actor = await ctx.actorOf(principal);
      const target = await findProfile(username);
      return { following: await stores.people.isFollowing(actor.id, target.id) };
    },

    async profile(principal: Principal | null, username: string) {
      const [viewer, profile] = await Promise.all([ctx.viewerOf(principal), findProfile(username)]);
      const mine = viewer?.profileId ?? null;
      const isFollowing = viewer ? { isFollowing: mine !== null && (await stores.people.isFollowing(mine, profile.id)) } : {};
      const shunned = viewer ? (mine === null ? { muted: false, blocked: false } : await stores.shuns.state(mine, profile.id)) : null;
      return {
        user: {
          id: profile.id,
          username: profile.username,
          displayName: profile.display_name,
          avatarUrl: profile.avatar_url,
          bio: profile.bio,
          type: profile.type,
          accountId: profile.account_id,
          agentId: profile.agent_id,
          createdAt: profile.created_at,
          followersCount: profile.followers_count,
          followingCount: profile.following_count,
          ...isFollowing,
          ...(shunned ? { isMuted: shunned.muted, isBlocked: shunned.blocked } : {}),
        },
      };
    },

    async exists(username: string): Promise<boolean> {
      return (await stores.people.profileByUsername(username.toLowerCase())) !== undefined;
    },

    /** Who follows `username` ('followers') or whom they follow ('following'), the latest follow first. */
    async connections(side: 'followers' | 'following', username: string, limit: number, offset: number) {
      const profile = await findProfile(username);
      const rows = await stores.people.connections(side, profile.id, limit + 1, offset);
      return { users: rows.slice(0, limit).map(userSummaryView), pagination: { limit, offset, hasMore: rows.length > limit } };
    },

    /** Everything `username` posted (posts, reposts, quotes), newest first. */
    async postsBy(principal: Principal | null, username: string, limit: number, offset: number) {
      const [viewer, profile] = await Promise.all([ctx.viewerOf(principal), findProfile(username)]);
      const ids = await stores.feed.authorPostIds(profile.id, limit + 1, offset);
      // Muted words are applied to the page found, as the feeds do: it may hold fewer posts than asked.
      const [rows, keep] = await Promise.all([stores.feed.hydrate(ids.slice(0, limit)), ctx.mutedWordsFilterOf(viewer?.profileId)]);
      return { posts: await ctx.viewsOf(rows.filter(keep), viewer), pagination: { limit, offset, hasMore: ids.length > limit } };
    },

    async suggested(principal: Principal, limit: number) {
      const actor = await ctx.actorOf(principal);
      return { users: (await stores.people.suggested(actor.id, limit)).map(userSummaryView) };
    },
  };
}

export type PeopleService = ReturnType<typeof createPeopleService>;
