export { createOrgsStore } from './store.ts';
export { createOrgsService, type OrgsService } from './service.ts';
export { registerOrgsRoutes } from './routes.ts';
export type * from './tables.ts';
