/** The social module's one service, assembled from the parts that each own one job. */
import { createSocialContext, type SocialDeps } from './context.ts';
import { createFeedService } from './feed-service.ts';
import { createSocialLive } from './live.ts';
import { createNotificationsService } from './notifications-service.ts';
import { createPeopleService } from './people-service.ts';
import { createPostsService } from './posts-service.ts';
import { createTopicsService } from './topics-service.ts';
import { createPrivateListsService } from './private-lists-service.ts';

export function createSocialService(deps: SocialDeps) {
  const ctx = createSocialContext(deps);
  return {
    posts: createPostsService(ctx),
    feed: createFeedService(ctx),
    people: createPeopleService(ctx),
    notifications: createNotificationsService(ctx),
    topics: createTopicsService(ctx),
    /** Bookmarks and muted words. */
    privateLists: createPrivateListsService(ctx),
    /** New notifications and followed accounts' posts for the event stream. */
    live: createSocialLive(ctx),
  };
}

export type SocialService = ReturnType<typeof createSocialService>;
