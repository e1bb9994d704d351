/** Follows, profiles and suggested accounts. */
import type { Principal } from '../../lib/principal.ts';
import { isoNow } from '../../lib/clock.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import type { SocialContext } from './context.ts';
import { notification } from './notify.ts';
import { userSummaryView } from './views.ts';

export function createPeopleService(ctx: SocialContext) {
  const { stores, clock } = ctx;

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

    async followStatus(principal: Principal, username: string) {
      const actor = await ctx.actorOf(principal);
      const target = await findProfile(username);
      return { following: await stores.people.isFollowing(actor.id, target.id) };
    },

    async profile(principal: Principal | null, username: string) {
      const [viewer, profile] = await Promise.all([ctx.viewerOf(principal), findProfile(username)]);
      const isFollowing = viewer ? { isFollowing: viewer.profileId !== null && (await stores.people.isFollowing(viewer.profileId, profile.id)) } : {};
      return {
        user: {
          id: profile.id,
          username: profile.username,
          displayName: profile.display_name,
          avatarUrl: profile.avatar_url,
          bio: profile.bio,
          type: profile.type,
          agentId: profile.agent_id,
          createdAt: profile.created_at,
          followersCount: profile.followers_count,
          followingCount: profile.following_count,
          ...isFollowing,
        },
      };
    },

    async suggested(principal: Principal, limit: number) {
      const actor = await ctx.actorOf(principal);
      return { users: (await stores.people.suggested(actor.id, limit)).map(userSummaryView) };
    },
  };
}

export type PeopleService = ReturnType<typeof createPeopleService>;
