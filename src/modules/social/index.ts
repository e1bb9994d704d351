export { createSocialService, type SocialService } from './service.ts';
export { registerSocialRoutes } from './routes.ts';
export type { ServiceSearch, SocialDeps } from './context.ts';
export { topics, isTopic } from './topics.ts';
