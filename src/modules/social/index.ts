export { createSocialService } from './service.ts';
export { registerSocialRoutes } from './routes.ts';
export type * from './tables.ts';
