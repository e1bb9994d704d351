/** Topics as people see them: their names, counts and whether the reader follows them; following one. */
import type { Principal } from '../../lib/principal.ts';
import { isoNow } from '../../lib/clock.ts';
import { notFound } from '../../lib/errors.ts';
import type { SocialContext, Viewer } from './context.ts';
import { namesOf, resolveTopic, topicDetails, topicGroups, topics, type Topic } from './topics.ts';

export interface TopicView {
  slug: string;
  name: string;
  description: string;
  group: string;
  aliases: string[];
  postCount: number;
  followerCount: number;
  following: boolean;
}

const groupOf = new Map<string, string>(topicGroups.flatMap(({ group, slugs }) => slugs.map((slug) => [slug, group] as const)));

export function createTopicsService(ctx: SocialContext) {
  const { stores, clock } = ctx;

  /** A slug or alias, any case, to its topic; anything else is a 404. */
  function topicNamed(name: string): Topic {
    const topic = resolveTopic(name);
    if (!topic) throw notFound(`No topic is called "${name}": see GET /v1/social/topics`);
    return topic;
  }

  /**
   * Views of `wanted`, with their counts. Post counts come from one grouped query over every post,
   * shared for a few seconds and dropped by any write of posts on this node; follower counts and
   * the reader's follows are read each time, so a follow shows at once.
   */
  async function viewsOf(wanted: readonly Topic[], viewer: Viewer): Promise<TopicView[]> {
    const [posts, followers, followed] = await Promise.all([
      ctx.topicPostCounts.get('all', () => stores.feed.topicPostCounts()),
      stores.topics.followerCounts(),
      viewer?.profileId ? stores.topics.followedBy(viewer.profileId) : Promise.resolve([]),
    ]);
    const following = new Set(followed);
    return wanted.map((slug) => ({
      slug,
      ...topicDetails[slug],
      aliases: namesOf(slug),
      group: groupOf.get(slug)!,
      postCount: posts.get(slug) ?? 0,
      followerCount: followers.get(slug) ?? 0,
      following: following.has(slug),
    }));
  }

  async function viewOf(topic: Topic, viewer: Viewer): Promise<TopicView> {
    return (await viewsOf([topic], viewer))[0]!;
  }

  return {
    /** The spec's list of slugs, and beside it every topic in full, in the taxonomy's order. */
    async list(principal: Principal | null) {
      return { topics: [...topics], data: await viewsOf(topics, await ctx.viewerOf(principal)) };
    },

    async get(principal: Principal | null, name: string) {
      const topic = topicNamed(name);
      return { data: await viewOf(topic, await ctx.viewerOf(principal)) };
    },

    /** Following twice, or unfollowing a topic one does not follow, changes nothing. */
    async setFollowing(principal: Principal, name: string, follow: boolean) {
      const topic = topicNamed(name);
      const profileId = await ctx.profileIdOf(principal);
      const changed = follow ? await stores.topics.follow(profileId, topic, isoNow(clock)) : await stores.topics.unfollow(profileId, topic);
      if (changed) await ctx.timelines.followerChanged(profileId);
      return { data: await viewOf(topic, { profileId }) };
    },
  };
}

export type TopicsService = ReturnType<typeof createTopicsService>;
